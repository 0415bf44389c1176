/// Which of a line's tags a parse sorts into slots (``TwitchMessage/parse(_:tags:)``).
public enum TagScope: Sendable, Equatable {
    /// Every tag: any tag of the message may be looked up. The default.
    case every
    /// Only `time` and `tmi-sent-ts` (``TwitchTags/scanTimes(_:from:limit:)``), for a reader that
    /// needs a line's command, channel and times alone (`stats`): no other tag of the message may be
    /// read (a debug build traps; a release build would read it as absent), and its tag counts are 0.
    /// The parse's result otherwise, and every error, is the same.
    case times
}
