/// What a CLEARCHAT did.
public enum ClearChatAction: Sendable, Equatable {
    /// The whole channel's chat was cleared.
    case clearAll
    /// A user was banned permanently.
    case ban(login: ByteRange)
    /// A user was timed out for `seconds`.
    case timeout(login: ByteRange, seconds: Int64)
}

/// A CLEARCHAT: chat cleared, or a user banned or timed out.
public struct ClearChat: Sendable, Equatable {
    public var channel: ByteRange
    public var action: ClearChatAction
    /// `target-user-id` of the banned or timed-out user.
    public var targetUserId: TagValue?
}

/// A CLEARMSG: one message deleted.
public struct ClearMsg: Sendable, Equatable {
    public var channel: ByteRange
    /// `target-msg-id`: the id of the deleted message.
    public var targetMessageId: TagValue?
    /// `login` of the message's sender.
    public var login: TagValue?
    /// The deleted message's text.
    public var text: ByteRange?
}

extension TwitchMessage {
    /// The CLEARCHAT view, or `nil` for other commands.
    ///
    /// A `ban-duration` that is not a number is read as a permanent ban (the stricter reading).
    /// - Complexity: O(1). - Allocations: none.
    public func clearChat(in bytes: Span<UInt8>) -> ClearChat? {
        guard command == .clearchat, let channel else { return nil }
        let action: ClearChatAction
        if line.paramCount >= 2, let login = line.lastParam(in: bytes), !login.isEmpty {
            if let seconds = tags[.banDuration]?.integer(in: bytes) {
                action = .timeout(login: login, seconds: seconds)
            } else {
                action = .ban(login: login)
            }
        } else {
            action = .clearAll
        }
        return ClearChat(channel: channel, action: action, targetUserId: tags[.targetUserId])
    }

    /// The CLEARMSG view, or `nil` for other commands.
    public func clearMsg(in bytes: Span<UInt8>) -> ClearMsg? {
        guard command == .clearmsg, let channel else { return nil }
        return ClearMsg(
            channel: channel, targetMessageId: tags[.targetMsgId], login: tags[.login], text: text(in: bytes))
    }
}
