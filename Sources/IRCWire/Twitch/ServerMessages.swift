/// A NOTICE from Twitch: a `msg-id` (e.g. `msg_channel_suspended`) and a human-readable text.
public struct Notice: Sendable, Equatable {
    /// The channel, or `nil` for `NOTICE *`.
    public var channel: ByteRange?
    public var msgId: TagValue?
    public var text: ByteRange?
}

/// A WHISPER: a private message to us.
public struct Whisper: Sendable, Equatable {
    /// The sender's login.
    public var from: ByteRange
    /// The recipient's login (us).
    public var to: ByteRange
    public var text: ByteRange
    public var threadId: TagValue?
    public var messageId: TagValue?
}

/// A JOIN or PART of a user (with the membership capability).
public struct Membership: Sendable, Equatable {
    public var channel: ByteRange
    public var login: ByteRange
    public var isJoin: Bool
}

/// A HOSTTARGET: the channel started hosting `target` (or stopped, `target == nil`).
public struct HostTarget: Sendable, Equatable {
    public var channel: ByteRange
    public var target: ByteRange?
    public var viewers: Int64?
}

/// A CAP reply: `CAP * ACK :caps`, `NAK`, `LS`…
public struct CapReply: Sendable, Equatable {
    /// `ACK`, `NAK`, `LS`, …
    public var subcommand: ByteRange
    /// The space-separated capabilities.
    public var capabilities: ByteRange?
}

extension TwitchMessage {
    /// The NOTICE view, or `nil` for other commands.
    public func notice(in bytes: Span<UInt8>) -> Notice? {
        guard command == .notice else { return nil }
        return Notice(channel: channel, msgId: tags[.msgId], text: text(in: bytes))
    }

    /// The WHISPER view, or `nil` for other commands or a WHISPER without recipient and text.
    public func whisper(in bytes: Span<UInt8>) -> Whisper? {
        guard command == .whisper, line.paramCount >= 2, let to = line.param(0, in: bytes),
            let text = line.lastParam(in: bytes), let from = senderLogin(in: bytes)
        else { return nil }
        return Whisper(from: from, to: to, text: text, threadId: tags[.threadId], messageId: tags[.messageId])
    }

    /// The JOIN/PART view, or `nil` for other commands.
    public func membership(in bytes: Span<UInt8>) -> Membership? {
        guard command == .join || command == .part, let channel, let login = senderLogin(in: bytes) else {
            return nil
        }
        return Membership(channel: channel, login: login, isJoin: command == .join)
    }

    /// The HOSTTARGET view (`#channel :target viewers`, target `-` meaning none), or `nil`.
    public func hostTarget(in bytes: Span<UInt8>) -> HostTarget? {
        guard command == .hosttarget, let channel, line.paramCount >= 2, let rest = line.lastParam(in: bytes) else {
            return nil
        }
        let lo = Int(rest.lower)
        let hi = Int(rest.upper)
        let space = ByteScan.firstIndex(of: UInt8(ascii: " "), in: bytes, from: lo, to: hi) ?? hi
        let target = ByteRange(lo..<space)
        let isNone = target.count == 1 && bytes[lo] == UInt8(ascii: "-")
        let viewers = space < hi ? TagValue(raw: ByteRange((space + 1)..<hi)).integer(in: bytes) : nil
        return HostTarget(channel: channel, target: isNone || target.isEmpty ? nil : target, viewers: viewers)
    }

    /// The CAP view, or `nil` for other commands.
    public func capReply(in bytes: Span<UInt8>) -> CapReply? {
        guard command == .cap, let sub = line.param(1, in: bytes) else { return nil }
        return CapReply(subcommand: sub, capabilities: line.paramCount >= 3 ? line.lastParam(in: bytes) : nil)
    }

    /// The token of a PING or PONG (its last parameter), or `nil`.
    public func pingToken(in bytes: Span<UInt8>) -> ByteRange? {
        guard command == .ping || command == .pong else { return nil }
        return line.lastParam(in: bytes)
    }
}
