/// The words the outputs for people (the text format of `replay` and `tail`, `watch`) use for
/// moderation, in one place: the marks after a moderated message (a ``Tombstone`` in words) and the
/// `-- …` lines of CLEARCHAT and CLEARMSG. Static strings, so the text format writes them without
/// allocating.
///
/// ```
///  12:00:01 #chan viewer: hello [deleted] [timed out 600s] [banned] [cleared]
///  -- chat cleared by a moderator
///  -- viewer was banned
///  -- viewer was timed out for 600s
///  -- message deleted from viewer: hello
/// ```
public enum ModerationWords: Sendable {
    /// The mark of a message a CLEARMSG deleted.
    public static let deleted: StaticString = "[deleted]"
    /// A timeout mark is `timedOutOpen`, the seconds, `timedOutClose`.
    public static let timedOutOpen: StaticString = "[timed out "
    public static let timedOutClose: StaticString = "s]"
    /// The mark of a message whose sender was banned after it.
    public static let banned: StaticString = "[banned]"
    /// The mark of a message the whole chat was cleared after.
    public static let cleared: StaticString = "[cleared]"

    /// A CLEARCHAT without a user.
    public static let chatCleared: StaticString = "chat cleared by a moderator"
    /// After the login of a CLEARCHAT without a duration.
    public static let wasBanned: StaticString = " was banned"
    /// After the login of a CLEARCHAT with a duration: then the seconds and ``seconds``.
    public static let wasTimedOutFor: StaticString = " was timed out for "
    public static let seconds: StaticString = "s"
    /// A CLEARMSG (then ` from <login>: <text>` when it names them).
    public static let messageDeleted: StaticString = "message deleted"
}
