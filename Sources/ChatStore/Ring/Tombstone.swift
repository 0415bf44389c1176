/// What moderation did to an entry. Entries are never removed for moderation; they carry this mark.
public enum Tombstone: Sendable, Equatable, Hashable {
    case none
    /// Deleted by CLEARMSG.
    case deleted
    /// The sender was timed out (CLEARCHAT with `ban-duration`).
    case timedOut(seconds: UInt32)
    /// The sender was banned (CLEARCHAT with a user, no duration).
    case banned
    /// The whole chat was cleared after it (CLEARCHAT without a user).
    case cleared

    /// Packed for an atomic slot: kind in the low byte, duration above it.
    var packed: UInt64 {
        switch self {
        case .none: 0
        case .deleted: 1
        case .timedOut(let s): 2 | UInt64(s) << 8
        case .banned: 3
        case .cleared: 4
        }
    }

    init(packed: UInt64) {
        switch packed & 0xFF {
        case 1: self = .deleted
        case 2: self = .timedOut(seconds: UInt32(truncatingIfNeeded: packed >> 8))
        case 3: self = .banned
        case 4: self = .cleared
        default: self = .none
        }
    }

    /// Whether a later mark may replace this one: a ban outranks a timeout, which outranks a
    /// deletion or a clear, so that the strongest action is what outputs show.
    func isWeaker(than other: Tombstone) -> Bool { other.rank > rank }

    private var rank: Int {
        switch self {
        case .none: 0
        case .cleared: 1
        case .deleted: 2
        case .timedOut: 3
        case .banned: 4
        }
    }
}
