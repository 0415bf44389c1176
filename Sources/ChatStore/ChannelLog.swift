import IRCWire
import Synchronization

/// One channel's kept chat: an ``EntryRing`` plus the owner's indexes that let moderation find
/// entries (message id → entry, user id → newest entry, chained per user) and the tokens of the
/// process-wide ``Interner``.
///
/// Indexes are maintained on append and eviction and never hold more than the live entries.
/// Threads: mutated by the owner only (through ``ChatStore``); readers use ``ring``.
public final class ChannelLog: @unchecked Sendable {  // owner-only mutable state; readers touch `ring` only
    /// The channel login without `#` (empty for the connection-level log).
    public let name: String
    /// Index of this log in its ``ChatStore``.
    public let index: Int
    public let ring: EntryRing
    /// Bumped by ``reset()``: windows of an older generation are stale as a whole.
    public var generation: UInt32 { _generation.load(ordering: .acquiring) }
    private let _generation = Atomic<UInt32>(0)

    let nameBytes: [UInt8]
    /// The name's length and, up to 32 bytes (Twitch logins have at most 25), its bytes, inline in
    /// this object: finding a line's log compares its channel against the object it loads anyway,
    /// not against a separate array buffer (a cache miss per line with thousands of channels).
    private let nameLength: Int
    private let shortName: InlineArray<32, UInt8>
    private let messages: HashIndex
    private let users: HashIndex
    /// `nil` when the store does not intern senders.
    private let interner: Interner?
    /// Sequence of the last whole-chat clear, if any.
    public private(set) var lastClear: UInt64? = nil
    /// Entries whose tombstone changed since the view model last published (owner-side; appends and
    /// evictions need no record: they show in the window itself).
    var modified = ModifiedSeqs()

    init(nameBytes: [UInt8], index: Int, capacity: Int, interner: Interner?) {
        name = String(decoding: nameBytes, as: UTF8.self)
        self.index = index
        self.nameBytes = nameBytes
        nameLength = nameBytes.count
        var short = InlineArray<32, UInt8>(repeating: 0)
        for i in 0..<min(nameBytes.count, 32) { short[i] = nameBytes[i] }
        shortName = short
        ring = EntryRing(capacity: capacity, keepsSenders: interner != nil)
        // Both indexes start small and double as entries arrive (never past what the ring holds).
        messages = HashIndex(minimumCapacity: 8)
        users = HashIndex(minimumCapacity: 8)
        self.interner = interner
    }

    /// Whether this is the log of channel `name` (its bytes, without `#`).
    ///
    /// - Complexity: O(name). - Allocations: none.
    @inline(__always)
    func hasName(_ name: Span<UInt8>) -> Bool {
        guard name.count == nameLength else { return false }
        if nameLength <= 32 { return shortName.span.extracting(0..<nameLength).equals(name) }
        let long = nameBytes
        return long.span.equals(name)
    }

    /// Bytes this log reserves now: its ring (slot arrays, byte storage, pins) and its indexes.
    /// Grows with the entries kept; a channel that has said nothing reserves a few KiB.
    public var reservedBytes: Int {
        ring.reservedBytes + messages.reservedBytes + users.reservedBytes + nameBytes.count + 256  // + objects
    }

    /// Bytes of the message-id and user-id indexes.
    public var indexBytes: Int { messages.reservedBytes + users.reservedBytes }

    /// What happened to the oldest entry when a new one pushed it out.
    struct Evicted {
        var seq: UInt64
        var sourceIdHash: UInt64
    }

    /// Appends a parsed line, evicting the oldest entry first when the ring is full, and applies
    /// CLEARMSG/CLEARCHAT moderation to earlier entries in place.
    ///
    /// - Complexity: O(line) for the copy in and the tags; moderation adds O(entries it marks)
    ///   (O(capacity) for a whole-chat clear).
    /// - Allocations: none in steady state.
    func append(
        _ bytes: Span<UInt8>, message: TwitchMessage, receivedAt: Int64, isMirror: Bool, sourceIdHash: UInt64,
        evicted: inout Evicted?
    ) -> UInt64 {
        evicted = nil
        if ring.isFull {
            let sender = interner == nil ? SenderTokens() : ring.sender(ring.liveRange.lowerBound)
            let (seq, meta) = ring.evictOldest()
            unindex(seq, meta, sender)
            evicted = Evicted(seq: seq, sourceIdHash: meta.sourceIdHash)
        }
        let tags = message.tags
        var sender = SenderTokens()
        if let interner {
            if let login = message.senderLogin(in: bytes), message.command != .ping, message.command != .pong {
                sender.login = interner.intern(bytes, login.range)
            }
            if let v = tags[.displayName] { sender.displayName = interner.intern(bytes, v.raw.range) }
            if let v = tags[.color] { sender.color = interner.intern(bytes, v.raw.range) }
            if let v = tags[.badges] { sender.badges = interner.intern(bytes, v.raw.range) }
        }
        let messageIdHash = tags[.id].map { hashBytes(bytes, $0.raw.range) } ?? 0
        let userIdHash = tags[.userId].flatMap { $0.raw.isEmpty ? nil : hashBytes(bytes, $0.raw.range) } ?? 0
        let keepsUser = userIdHash != 0 && (message.command == .privmsg || message.command == .usernotice)
        let meta = EntryMeta(
            parsed: message.line, command: message.command, isMirror: isMirror, byteStart: 0, receivedAt: receivedAt,
            messageIdHash: messageIdHash, userIdHash: keepsUser ? userIdHash : 0,
            sourceIdHash: sourceIdHash, previousOfUser: keepsUser ? (users.value(for: userIdHash) ?? .max) : .max)
        let seq = ring.append(bytes, meta: meta, sender: sender)
        if messageIdHash != 0 { messages.insert(seq, for: messageIdHash) }
        if keepsUser { users.insert(seq, for: userIdHash) }
        switch message.command {
        case .clearmsg: applyClearMsg(message, bytes)
        case .clearchat: applyClearChat(message, bytes, at: seq)
        default: break
        }
        return seq
    }

    /// Forgets every entry's index data and starts a new generation (the ring itself keeps its
    /// sequence numbers monotonic; windows of the old generation become stale).
    func reset() {
        while ring.count > 0 {
            let sender = interner == nil ? SenderTokens() : ring.sender(ring.liveRange.lowerBound)
            let (seq, meta) = ring.evictOldest()
            unindex(seq, meta, sender)
        }
        lastClear = nil
        _generation.add(1, ordering: .releasing)
        modified = ModifiedSeqs()
    }

    private func unindex(_ seq: UInt64, _ meta: EntryMeta, _ sender: SenderTokens) {
        if meta.messageIdHash != 0, messages.value(for: meta.messageIdHash) == seq {
            messages.remove(meta.messageIdHash)
        }
        // The user index points at the user's newest entry; if that is evicted, so are the older ones.
        if meta.userIdHash != 0, users.value(for: meta.userIdHash) == seq { users.remove(meta.userIdHash) }
        if let interner {
            interner.release(sender.login)
            interner.release(sender.displayName)
            interner.release(sender.color)
            interner.release(sender.badges)
        }
    }

    // MARK: Moderation

    private func applyClearMsg(_ message: TwitchMessage, _ bytes: Span<UInt8>) {
        guard let target = message.tags[.targetMsgId], !target.raw.isEmpty,
            let seq = messages.value(for: hashBytes(bytes, target.raw.range))
        else { return }
        if entry(seq, tag: "id", equals: bytes.extracting(target.raw.range)) { mark(seq, .deleted) }
    }

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
        case .timeout(_, let seconds): tombstone = .timedOut(seconds: UInt32(clamping: seconds))
        }
        guard let target = view.targetUserId, !target.raw.isEmpty else { return }
        var seq = users.value(for: hashBytes(bytes, target.raw.range)) ?? .max
        while let meta = ring.meta(seq) {
            if entry(seq, tag: "user-id", equals: bytes.extracting(target.raw.range)) { mark(seq, tombstone) }
            seq = meta.previousOfUser
        }
    }

    /// Whether live entry `seq` carries tag `key` with exactly the bytes `value`: confirms an index hit
    /// (a hash match is not proof). Reads the entry's stored parse offsets; nothing is parsed again.
    private func entry(_ seq: UInt64, tag key: StaticString, equals value: Span<UInt8>) -> Bool {
        ring.ownerBytes(seq) { parsed, entry in
            guard let tag = parsed.tag(key, in: entry) else { return false }
            return entry.extracting(tag.raw.range).equals(value)
        } ?? false
    }

    private func mark(_ seq: UInt64, _ tombstone: Tombstone) {
        if ring.setTombstone(seq, tombstone) { modified.insert(seq) }
    }
}
