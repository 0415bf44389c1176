import ChatIndex
import ChatMemory
import IRCWire

/// One channel's kept chat: an ``EntryRing``, whose slot table indexes its entries by message id
/// and by user id (``IdLinks``), and the tokens of the process-wide ``Interner``.
///
/// Moderation finds its targets through that index: a CLEARMSG or a ban walks the chain of its id's
/// bucket, newest entry first, while the entries are live, and confirms each hit on the entry's
/// bytes. An append links its entry into two chains (two bucket heads of a table of 2 to 4 bytes a
/// slot); an eviction does nothing. It replaced a pass over the ring per moderation line, which
/// made one channel holding 300,000 lines cost 42% more instructions than the same lines over
/// 1,000 channels.
/// Threads: mutated by the owner only (through ``ChatStore``); readers use ``ring``.
public final class ChannelLog: @unchecked Sendable {  // owner-only mutable state; readers touch `ring` only
    /// The channel login without `#` (empty for the connection-level log).
    public let name: String
    /// Index of this log in its ``ChatStore``.
    public let index: Int
    public let ring: EntryRing
    /// The set behind ``modified``, out of line and made at this log's first moderation mark: 273
    /// bytes inline would be most of what a quiet channel costs besides its lines, and most
    /// channels are never moderated while they are watched. Declared with the fields above, in the
    /// object's first cache line: the view model's tick reads them for every channel that changed.
    private var modifiedBox: ModifiedBox? = nil

    /// The name's bytes when they are longer than ``ChannelIndex/inlineBytes`` (empty otherwise):
    /// the store's channel index compares shorter names in its own slots, and a longer one here.
    private let longName: [UInt8]
    /// `nil` when the store does not intern senders.
    private let interner: Interner?
    /// Sequence of the last whole-chat clear, if any.
    public private(set) var lastClear: UInt64? = nil
    /// Entries whose tombstone changed since the view model last published (owner-side; appends and
    /// evictions need no record: they show in the window itself).
    var modified: ModifiedSeqs { modifiedBox?.seqs ?? ModifiedSeqs() }
    /// Whether ``modified`` holds anything. - Complexity: O(1).
    var hasModified: Bool { modifiedBox.map { !$0.seqs.isEmpty } ?? false }
    /// ``modifiedBox``'s object.
    private final class ModifiedBox {
        var seqs = ModifiedSeqs()
    }

    /// Empties ``modified`` (the view model published it). - Allocations: none.
    func clearModified() { modifiedBox?.seqs = ModifiedSeqs() }

    /// - Parameter regions: the store's mapping and regions for its rings' bytes (``EntryRing``).
    ///
    /// - Allocations: the log and its ring (``EntryRing``); the name's bytes only when it is longer than
    ///   15 bytes (a `String`'s inline capacity) and again when longer than ``ChannelIndex/inlineBytes``.
    ///   It took five more: the bytes were first appended one by one to an array (10,000 channels:
    ///   50,000 allocations, a sixth of a replay's; realchat_channels_bench).
    init(name nameBytes: Span<UInt8>, index: Int, capacity: Int, interner: Interner?, regions: PageRegions?) {
        // SAFETY: the buffer is only read, inside the closure.
        name = unsafe nameBytes.withUnsafeBufferPointer { unsafe String(decoding: $0, as: UTF8.self) }
        self.index = index
        longName =
            nameBytes.count > ChannelIndex.inlineBytes
            ? unsafe nameBytes.withUnsafeBufferPointer { unsafe Array($0) } : []
        ring = EntryRing(capacity: capacity, keepsSenders: interner != nil, firstSeq: 0, regions: regions)
        self.interner = interner
    }

    /// Whether this is the log of channel `name` (its bytes, without `#`), a name longer than
    /// ``ChannelIndex/inlineBytes`` (the index tells shorter ones apart by itself).
    ///
    /// - Complexity: O(name). - Allocations: none.
    func hasName(_ name: Span<UInt8>) -> Bool {
        guard name.count > ChannelIndex.inlineBytes else { return false }
        let long = longName
        return long.span.equals(name)
    }

    /// Bytes this log reserves now: its ring (slot arrays, byte storage, pins) and its objects.
    /// Grows with the entries kept; a channel that has said nothing reserves a few KiB.
    public var reservedBytes: Int { ring.reservedBytes + longName.count + 256 }  // + objects

    /// What happened to the oldest entry when a new one pushed it out.
    struct Evicted {
        var seq: UInt64
        var sourceIdHash: UInt64
        /// Bytes of its line.
        var length: Int
        /// Its moderation marks when it went.
        var tombstone: Tombstone
    }

    /// Appends a parsed line, evicting the oldest entry first when the ring is full, and applies
    /// CLEARMSG/CLEARCHAT moderation to earlier entries in place.
    ///
    /// `ring` must be this log's ``ring`` and `interner` its interner, unretained (`nil` when the store does not
    /// intern senders): the store passes them from its channel index and its own state, so that the
    /// common path of an append never loads this object (with thousands of channels, a cache miss
    /// a line; only moderation reaches its fields).
    ///
    /// - Complexity: O(line) for the copy in and the tags; a CLEARMSG, or a CLEARCHAT of a user, adds
    ///   O(1 + entries it marks) expected, whatever the ring holds; a CLEARCHAT of the whole chat one
    ///   pass over the live entries.
    /// - Allocations: none in steady state (one at the log's first moderation mark).
    @inline(__always)
    func append(
        _ bytes: Span<UInt8>, message: TwitchMessage, receivedAt: Int64, isMirror: Bool, sourceIdHash: UInt64,
        evicted: inout Evicted?, ring: EntryRing, interner: Unmanaged<Interner>?
    ) -> UInt64 {
        evicted = nil
        if ring.isFull { evicted = unsafe Self.evictOldest(ring, interner) }
        let tags = message.tags
        var sender = SenderTokens()
        // SAFETY: the store keeps its interner alive as long as itself (and its logs).
        if let interner = unsafe interner {
            unsafe interner._withUnsafeGuaranteedRef { interner in
                if let login = message.senderLogin(in: bytes), message.command != .ping, message.command != .pong {
                    sender.login = interner.intern(bytes, login.range)
                }
                if let v = tags[.displayName] { sender.displayName = interner.intern(bytes, v.raw.range) }
                if let v = tags[.color] { sender.color = interner.intern(bytes, v.raw.range) }
                if let v = tags[.badges] { sender.badges = interner.intern(bytes, v.raw.range) }
            }
        }
        let messageIdHash = tags[.id].map { hashBytes(bytes, $0.raw.range) } ?? 0
        let userIdHash = tags[.userId].flatMap { $0.raw.isEmpty ? nil : hashBytes(bytes, $0.raw.range) } ?? 0
        let keepsUser = userIdHash != 0 && (message.command == .privmsg || message.command == .usernotice)
        let meta = EntryMeta(
            parsed: message.line, command: message.command, isMirror: isMirror, hasSourceId: sourceIdHash != 0,
            byteStart: 0, receivedAt: receivedAt)
        let ids = IdHashes(message: messageIdHash, user: keepsUser ? userIdHash : 0)
        let seq = ring.append(bytes, meta: meta, ids: ids, sender: sender)
        switch message.command {
        case .clearmsg: applyClearMsg(message, bytes)
        case .clearchat: applyClearChat(message, bytes, at: seq)
        default: break
        }
        return seq
    }

    /// Evicts `ring`'s oldest entry, gives its sender tokens back to `interner`, and tells what
    /// went: its sequence number, its marks, and its shared-chat key, taken again from its bytes
    /// (``ChatStore/sharedChatKey(_:_:in:)``) when it has one (slots keep a flag, not the hash).
    private static func evictOldest(_ ring: EntryRing, _ interner: Unmanaged<Interner>?) -> Evicted {
        ring.evictOldest { eviction, bytes in
            // SAFETY: the store keeps its interner alive as long as itself (and its logs).
            if let interner = unsafe interner {
                unsafe interner._withUnsafeGuaranteedRef { interner in
                    interner.release(eviction.sender.login)
                    interner.release(eviction.sender.displayName)
                    interner.release(eviction.sender.color)
                    interner.release(eviction.sender.badges)
                }
            }
            let meta = eviction.meta
            var key: UInt64 = 0
            if meta.hasSourceId {
                let source = meta.parsed.tag(TwitchTagKey.sourceId.name, in: bytes)
                key = ChatStore.sharedChatKey(meta.command, source, in: bytes)
            }
            return Evicted(
                seq: eviction.seq, sourceIdHash: key, length: Int(meta.parsed.length),
                tombstone: eviction.tombstone)
        }
    }

    /// Releases the oldest entries while more than `floor` are live and the oldest is below `keep`,
    /// handing each to `body` as it goes (the memory budget's trim; a full ring's eviction is
    /// ``append(_:message:receivedAt:isMirror:sourceIdHash:evicted:)``'s).
    ///
    /// - Complexity: O(entries released × readers). - Allocations: none.
    func trim(keeping floor: Int, below keep: UInt64, _ body: (Evicted) -> Void) {
        while ring.count > floor && ring.liveRange.lowerBound < keep {
            unsafe body(Self.evictOldest(ring, interner.map { unsafe .passUnretained($0) }))
        }
    }

    // MARK: Moderation

    /// Marks every live entry whose `id` is the CLEARMSG's `target-msg-id` (ids are unique; a log
    /// read twice may hold one twice, and both copies were deleted).
    ///
    /// - Complexity: O(1 + entries marked) expected (the id's bucket chain). - Allocations: none.
    private func applyClearMsg(_ message: TwitchMessage, _ bytes: Span<UInt8>) {
        guard let target = message.tags[.targetMsgId], !target.raw.isEmpty else { return }
        let hash = hashBytes(bytes, target.raw.range)
        ring.forEachLive(withIdHash: hash) { seq in
            if entry(seq, tag: "id", equals: bytes.extracting(target.raw.range)) { mark(seq, .deleted) }
        }
    }

    /// Marks the live PRIVMSG and USERNOTICE entries of the CLEARCHAT's `target-user-id` (a ban or
    /// a timeout), or every one before it (a clear of the whole chat).
    ///
    /// - Complexity: O(1 + entries marked) expected for a user (the user's bucket chain); O(live
    ///   entries) for the whole chat. - Allocations: none.
    private func applyClearChat(_ message: TwitchMessage, _ bytes: Span<UInt8>, at clearSeq: UInt64) {
        guard let view = message.clearChat(in: bytes) else { return }
        let tombstone: Tombstone
        switch view.action {
        case .clearAll:
            lastClear = clearSeq
            var seq = ring.liveRange.lowerBound
            while seq < clearSeq {
                if let command = ring.meta(seq)?.command, command == .privmsg || command == .usernotice {
                    mark(seq, .cleared)
                }
                seq += 1
            }
            return
        case .ban: tombstone = .banned
        case .timeout(_, let seconds):
            tombstone = .timedOut(seconds: UInt32(clamping: min(seconds, Int64(Tombstone.maximumTimeoutSeconds))))
        }
        guard let target = view.targetUserId, !target.raw.isEmpty else { return }
        // The user's messages (entries keep a user-id hash only for PRIVMSG and USERNOTICE).
        let hash = hashBytes(bytes, target.raw.range)
        ring.forEachLive(withIdHash: hash, user: true) { seq in
            if entry(seq, tag: "user-id", equals: bytes.extracting(target.raw.range)) { mark(seq, tombstone) }
        }
    }

    /// Whether live entry `seq` carries tag `key` with exactly the bytes `value`: confirms a hash
    /// match (which is not proof). Reads the entry's stored parse offsets; nothing is parsed again.
    private func entry(_ seq: UInt64, tag key: StaticString, equals value: Span<UInt8>) -> Bool {
        ring.ownerBytes(seq) { parsed, entry in
            guard let tag = parsed.tag(key, in: entry) else { return false }
            return entry.extracting(tag.raw.range).equals(value)
        } ?? false
    }

    private func mark(_ seq: UInt64, _ tombstone: Tombstone) {
        guard ring.setTombstone(seq, tombstone) else { return }
        if modifiedBox == nil { modifiedBox = ModifiedBox() }  // once per log, at its first mark
        modifiedBox?.seqs.insert(seq)
    }
}
