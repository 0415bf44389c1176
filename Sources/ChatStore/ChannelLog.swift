import Synchronization
import IRCWire

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
    private let messages: HashIndex
    private let users: HashIndex
    private let interner: Interner
    /// Sequence of the last whole-chat clear, if any.
    public private(set) var lastClear: UInt64? = nil
    /// Owner-side record of changes since the view model last looked.
    var changes = ChangeLog()

    init(name: String, index: Int, capacity: Int, interner: Interner) {
        self.name = name
        self.index = index
        nameBytes = Array(name.utf8)
        ring = EntryRing(capacity: capacity)
        messages = HashIndex(minimumCapacity: capacity)
        users = HashIndex(minimumCapacity: capacity)
        self.interner = interner
    }

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
            let (seq, meta) = ring.evictOldest()
            unindex(seq, meta)
            evicted = Evicted(seq: seq, sourceIdHash: meta.sourceIdHash)
            changes.evicted(through: seq)
        }
        let tags = message.tags
        var sender = SenderTokens()
        if let login = message.senderLogin(in: bytes), message.command != .ping, message.command != .pong {
            sender.login = interner.intern(bytes, login.range)
        }
        if let v = tags[.displayName] { sender.displayName = interner.intern(bytes, v.raw.range) }
        if let v = tags[.color] { sender.color = interner.intern(bytes, v.raw.range) }
        if let v = tags[.badges] { sender.badges = interner.intern(bytes, v.raw.range) }
        let messageIdHash = tags[.id].map { hashBytes(bytes, $0.raw.range) } ?? 0
        let userIdHash = tags[.userId].flatMap { $0.raw.isEmpty ? nil : hashBytes(bytes, $0.raw.range) } ?? 0
        let keepsUser = userIdHash != 0 && (message.command == .privmsg || message.command == .usernotice)
        let meta = EntryMeta(
            parsed: message.line, command: message.command, isMirror: isMirror, byteStart: 0, receivedAt: receivedAt,
            sender: sender, messageIdHash: messageIdHash, userIdHash: keepsUser ? userIdHash : 0,
            sourceIdHash: sourceIdHash, previousOfUser: keepsUser ? (users.value(for: userIdHash) ?? .max) : .max)
        let seq = ring.append(bytes, meta: meta)
        if messageIdHash != 0 { messages.set(seq, for: messageIdHash) }
        if keepsUser { users.set(seq, for: userIdHash) }
        changes.appended(seq)
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
            let (seq, meta) = ring.evictOldest()
            unindex(seq, meta)
        }
        lastClear = nil
        _generation.add(1, ordering: .releasing)
        changes.reset()
    }

    private func unindex(_ seq: UInt64, _ meta: EntryMeta) {
        if meta.messageIdHash != 0, messages.value(for: meta.messageIdHash) == seq { messages.remove(meta.messageIdHash) }
        // The user index points at the user's newest entry; if that is evicted, so are the older ones.
        if meta.userIdHash != 0, users.value(for: meta.userIdHash) == seq { users.remove(meta.userIdHash) }
        interner.release(meta.sender.login)
        interner.release(meta.sender.displayName)
        interner.release(meta.sender.color)
        interner.release(meta.sender.badges)
    }

    // MARK: Moderation

    private func applyClearMsg(_ message: TwitchMessage, _ bytes: Span<UInt8>) {
        guard let target = message.tags[.targetMsgId], !target.raw.isEmpty,
            let seq = messages.value(for: hashBytes(bytes, target.raw.range))
        else { return }
        // Confirm the id (a hash match is not proof) before marking.
        let same = ring.ownerBytes(seq) { entry -> Bool in
            guard let parsed = try? ParsedLine.parse(entry), let id = parsed.tag("id", in: entry) else { return false }
            return Self.equal(entry, id.raw.range, bytes, target.raw.range)
        }
        if same == true { mark(seq, .deleted) }
    }

    private func applyClearChat(_ message: TwitchMessage, _ bytes: Span<UInt8>, at clearSeq: UInt64) {
        guard let view = message.clearChat(in: bytes) else { return }
        let tombstone: Tombstone
        switch view.action {
        case .clearAll:
            lastClear = clearSeq
            var seq = ring.liveRange.lowerBound
            while seq < clearSeq {
                if ring.meta(seq)?.command == .privmsg || ring.meta(seq)?.command == .usernotice { mark(seq, .cleared) }
                seq += 1
            }
            return
        case .ban: tombstone = .banned
        case .timeout(_, let seconds): tombstone = .timedOut(seconds: UInt32(clamping: seconds))
        }
        guard let target = view.targetUserId, !target.raw.isEmpty else { return }
        var seq = users.value(for: hashBytes(bytes, target.raw.range)) ?? .max
        while let meta = ring.meta(seq) {
            let same = ring.ownerBytes(seq) { entry -> Bool in
                guard let parsed = try? ParsedLine.parse(entry), let id = parsed.tag("user-id", in: entry) else {
                    return false
                }
                return Self.equal(entry, id.raw.range, bytes, target.raw.range)
            }
            if same == true { mark(seq, tombstone) }
            seq = meta.previousOfUser
        }
    }

    private func mark(_ seq: UInt64, _ tombstone: Tombstone) {
        if ring.setTombstone(seq, tombstone) { changes.modified(seq) }
    }

    private static func equal(_ a: Span<UInt8>, _ ra: Range<Int>, _ b: Span<UInt8>, _ rb: Range<Int>) -> Bool {
        guard ra.count == rb.count else { return false }
        var j = rb.lowerBound
        for i in ra {
            if a[i] != b[j] { return false }
            j += 1
        }
        return true
    }
}
