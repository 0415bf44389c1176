/// What moderation did to an entry: every fact a later CLEARMSG/CLEARCHAT established, none hiding
/// another (a message deleted by a moderator whose sender is then timed out is both). Entries are
/// never removed for moderation; they carry these marks.
///
/// IRC does not say which moderator acted, so the facts carry no "by whom".
public struct Tombstone: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Deleted by a CLEARMSG naming its `id`.
    public var deleted = false
    /// The sender's latest timeout after the message (CLEARCHAT with `ban-duration`), in seconds;
    /// `nil` when not timed out. A later timeout replaces an earlier one, as on Twitch.
    public var timedOutSeconds: UInt32? = nil
    /// The sender was banned (CLEARCHAT with a user, no duration).
    public var banned = false
    /// The whole chat was cleared after it (CLEARCHAT without a user).
    public var cleared = false

    public init(deleted: Bool = false, timedOutSeconds: UInt32? = nil, banned: Bool = false, cleared: Bool = false) {
        self.deleted = deleted
        self.timedOutSeconds = timedOutSeconds
        self.banned = banned
        self.cleared = cleared
    }

    public static let none = Tombstone()
    public static let deleted = Tombstone(deleted: true)
    public static let banned = Tombstone(banned: true)
    public static let cleared = Tombstone(cleared: true)
    public static func timedOut(seconds: UInt32) -> Tombstone { Tombstone(timedOutSeconds: seconds) }

    /// Whether no moderation touched the entry.
    public var isEmpty: Bool { self == .none }

    /// These facts and `other`'s together (`other`'s timeout, when it has one, is the later one).
    public func merging(_ other: Tombstone) -> Tombstone {
        Tombstone(
            deleted: deleted || other.deleted, timedOutSeconds: other.timedOutSeconds ?? timedOutSeconds,
            banned: banned || other.banned, cleared: cleared || other.cleared)
    }

    /// The facts in words (``ModerationWords``), `[deleted] [timed out 600s]`; empty when none.
    public var description: String {
        var parts: [String] = []
        if deleted { parts.append(ModerationWords.deleted.description) }
        if let s = timedOutSeconds {
            parts.append("\(ModerationWords.timedOutOpen)\(s)\(ModerationWords.timedOutClose)")
        }
        if banned { parts.append(ModerationWords.banned.description) }
        if cleared { parts.append(ModerationWords.cleared.description) }
        return parts.joined(separator: " ")
    }

    /// The longest timeout a ring's slot keeps exactly: 2^28 - 1 seconds (eight and a half years;
    /// Twitch's longest is two weeks). A store clamps longer ones to it.
    public static let maximumTimeoutSeconds: UInt32 = (1 << 28) - 1

    /// Packed for an atomic slot of 32 bits (4 bytes an entry, not 8: a slot's fixed cost is most of
    /// what a short line costs besides its bytes): flags in the low 4 bits (deleted 1, banned 2,
    /// cleared 4, timed out 8), the timeout's seconds above them, clamped to ``maximumTimeoutSeconds``.
    var packed: UInt32 {
        var p: UInt32 = 0
        if deleted { p |= 1 }
        if banned { p |= 2 }
        if cleared { p |= 4 }
        if let s = timedOutSeconds { p |= 8 | min(s, Self.maximumTimeoutSeconds) << 4 }
        return p
    }

    init(packed: UInt32) {
        self.init(
            deleted: packed & 1 != 0, timedOutSeconds: packed & 8 != 0 ? packed >> 4 : nil,
            banned: packed & 2 != 0, cleared: packed & 4 != 0)
    }
}
