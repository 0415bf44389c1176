/// A chat message (PRIVMSG), with the `/me` wrapper removed from its text.
public struct Privmsg: Sendable, Equatable {
    /// The channel's login, without `#`.
    public var channel: ByteRange
    /// The sender's login (source nick).
    public var login: ByteRange
    /// The text without the `\u{1}ACTION …\u{1}` wrapper; emote indices count code points of it.
    public var text: ByteRange
    /// Whether the message was a `/me` action.
    public var isAction: Bool

    /// Strips a CTCP ACTION wrapper from `text`: `\u{1}ACTION body\u{1}` (the final `\u{1}` may be
    /// missing) becomes `body`.
    static func strippingAction(_ text: ByteRange, in bytes: Span<UInt8>) -> (ByteRange, Bool) {
        let prefix: StaticString = "\u{1}ACTION"
        let n = prefix.utf8CodeUnitCount
        guard text.count >= n, bytes.equals(prefix, at: ByteRange(text.lower, text.lower + UInt16(n))) else {
            return (text, false)
        }
        var lower = Int(text.lower) + n
        var upper = Int(text.upper)
        if lower < upper && bytes[lower] == UInt8(ascii: " ") {
            lower += 1
        } else if lower < upper && bytes[lower] != 0x01 {
            return (text, false)  // `\u{1}ACTIONS…`: not an action
        }
        if upper > lower && bytes[upper - 1] == 0x01 { upper -= 1 }
        return (ByteRange(lower..<max(lower, upper)), true)
    }
}

/// The message a reply answers (`reply-parent-*` tags).
public struct ReplyParent: Sendable, Equatable {
    public var messageId: TagValue
    public var userId: TagValue?
    public var login: TagValue?
    public var displayName: TagValue?
    /// The parent's text (tag-escaped).
    public var body: TagValue?
    /// The thread's first message (`reply-thread-parent-msg-id`).
    public var threadMessageId: TagValue?
    public var threadLogin: TagValue?
}

extension TwitchMessage {
    /// The PRIVMSG view, or `nil` for other commands or a PRIVMSG without channel and text.
    ///
    /// - Complexity: O(1) plus the source. - Allocations: none.
    public func privmsg(in bytes: Span<UInt8>) -> Privmsg? {
        guard command == .privmsg, let channel, line.paramCount >= 2, let text = line.lastParam(in: bytes) else {
            return nil
        }
        let (body, isAction) = Privmsg.strippingAction(text, in: bytes)
        let login = senderLogin(in: bytes) ?? ByteRange(0, 0)
        return Privmsg(channel: channel, login: login, text: body, isAction: isAction)
    }

    /// The message this one replies to, or `nil`.
    public var replyParent: ReplyParent? {
        guard let id = tags[.replyParentMsgId] else { return nil }
        return ReplyParent(
            messageId: id, userId: tags[.replyParentUserId], login: tags[.replyParentUserLogin],
            displayName: tags[.replyParentDisplayName], body: tags[.replyParentMsgBody],
            threadMessageId: tags[.replyThreadParentMsgId], threadLogin: tags[.replyThreadParentUserLogin])
    }

    /// Cheered bits (`bits` tag), or `nil`.
    public func bits(in bytes: Span<UInt8>) -> Int64? { tags[.bits]?.integer(in: bytes) }
}
