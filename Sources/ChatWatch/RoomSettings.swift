public import IRCWire

/// A channel's chat settings as of its latest ROOMSTATE: the full state on join, updated by the
/// single-setting deltas that follow. `nil` means "not told yet".
public struct RoomSettings: Sendable, Equatable {
    /// Seconds between messages (0: off).
    public var slow: Int64? = nil
    /// Minutes of following required (-1: off).
    public var followersOnly: Int64? = nil
    public var subsOnly: Bool? = nil
    public var emoteOnly: Bool? = nil
    public var r9k: Bool? = nil

    public init() {}

    /// Applies a ROOMSTATE (full or delta).
    public mutating func merge(_ state: RoomState) {
        if let v = state.slow { slow = v }
        if let v = state.followersOnly { followersOnly = v }
        if let v = state.subsOnly { subsOnly = v }
        if let v = state.emoteOnly { emoteOnly = v }
        if let v = state.r9k { r9k = v }
    }

    /// Whether any ROOMSTATE was seen.
    public var isKnown: Bool {
        slow != nil || followersOnly != nil || subsOnly != nil || emoteOnly != nil || r9k != nil
    }

    /// The restrictions in force, e.g. `slow 30s · followers 10m · sub-only`; `no restrictions` when none
    /// (and `all` is false: only settings that are on are named). With `all`, settings that are off
    /// are named too (for a ROOMSTATE line: `slow off`).
    public func describe(all: Bool = false) -> String {
        var parts: [String] = []
        if let s = slow, s > 0 || all { parts.append(s > 0 ? "slow \(s)s" : "slow off") }
        if let f = followersOnly, f >= 0 || all {
            parts.append(f < 0 ? "followers off" : (f == 0 ? "followers-only" : "followers \(f)m"))
        }
        if let v = subsOnly, v || all { parts.append(v ? "sub-only" : "sub-only off") }
        if let v = emoteOnly, v || all { parts.append(v ? "emote-only" : "emote-only off") }
        if let v = r9k, v || all { parts.append(v ? "r9k" : "r9k off") }
        if parts.isEmpty { return isKnown ? "no restrictions" : "" }
        return parts.joined(separator: " · ")
    }
}
