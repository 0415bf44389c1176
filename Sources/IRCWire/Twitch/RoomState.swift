/// A ROOMSTATE: the channel's chat settings. The full form (on join) carries every setting; a delta
/// carries only what changed, so each setting is optional.
public struct RoomState: Sendable, Equatable {
    public var channel: ByteRange
    public var emoteOnly: Bool?
    /// Minutes an account must follow before chatting; -1 when followers-only mode is off.
    public var followersOnly: Int64?
    public var r9k: Bool?
    /// Seconds between messages; 0 when slow mode is off.
    public var slow: Int64?
    public var subsOnly: Bool?

    /// Whether every setting is present (the state sent on JOIN).
    public var isFull: Bool {
        emoteOnly != nil && followersOnly != nil && r9k != nil && slow != nil && subsOnly != nil
    }
}

/// USERSTATE (after JOIN or our own PRIVMSG) or GLOBALUSERSTATE (after login): our own identity.
public struct UserState: Sendable, Equatable {
    /// The channel, or `nil` for GLOBALUSERSTATE.
    public var channel: ByteRange?
    public var displayName: TagValue?
    public var color: TagValue?
    /// Comma-separated emote set ids.
    public var emoteSets: TagValue?
    public var isGlobal: Bool
}

extension TwitchMessage {
    /// The ROOMSTATE view, or `nil` for other commands.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func roomState(in bytes: Span<UInt8>) -> RoomState? {
        guard command == .roomstate, let channel else { return nil }
        func bool(_ key: TwitchTagKey) -> Bool? { tags[key]?.integer(in: bytes).map { $0 != 0 } }
        return RoomState(
            channel: channel, emoteOnly: bool(.emoteOnly), followersOnly: tags[.followersOnly]?.integer(in: bytes),
            r9k: bool(.r9k), slow: tags[.slow]?.integer(in: bytes), subsOnly: bool(.subsOnly))
    }

    /// The USERSTATE or GLOBALUSERSTATE view, or `nil` for other commands.
    public func userState(in bytes: Span<UInt8>) -> UserState? {
        guard command == .userstate || command == .globaluserstate else { return nil }
        return UserState(
            channel: channel, displayName: tags[.displayName], color: tags[.color], emoteSets: tags[.emoteSets],
            isGlobal: command == .globaluserstate)
    }
}
