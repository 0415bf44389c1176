/// Where a login sits in a line: bytes taken as they are (a prefix nick, a parameter) or a tag value
/// (IRCv3-escaped).
public enum LoginField: Sendable, Equatable {
    case bytes(ByteRange)
    case tag(TagValue)

    /// The bytes of the line it covers (for a tag, before unescaping; logins never hold escapes).
    public var raw: ByteRange {
        switch self {
        case .bytes(let r): r
        case .tag(let v): v.raw
        }
    }
}

extension TwitchMessage {
    /// The login of the user the line is about, or `nil` for lines about no user:
    ///
    /// | command | the user |
    /// | --- | --- |
    /// | PRIVMSG, WHISPER | the sender (source nick) |
    /// | USERNOTICE | the recipient of a gift (`msg-param-recipient-user-name`), else the user (`login` tag) |
    /// | CLEARCHAT | the banned or timed-out user (none for a clear of the whole chat) |
    /// | CLEARMSG | the sender of the deleted message (`login` tag) |
    /// | JOIN, PART | the user joining or leaving |
    ///
    /// Empty values count as missing.
    ///
    /// - Complexity: O(tags) for USERNOTICE, else O(1) after parsing. - Allocations: none.
    public func about(in bytes: Span<UInt8>) -> LoginField? {
        let found: LoginField?
        switch command {
        case .privmsg: found = privmsg(in: bytes).map { .bytes($0.login) }
        case .whisper: found = whisper(in: bytes).map { .bytes($0.from) }
        case .usernotice:
            guard channel != nil else { return nil }
            if let r = tags.msgParam("recipient-user-name", in: bytes), !r.raw.isEmpty { return .tag(r) }
            found = tags[.login].map { .tag($0) }
        case .clearchat:
            switch clearChat(in: bytes)?.action {
            case .ban(let login), .timeout(let login, _): found = .bytes(login)
            case .clearAll, nil: found = nil
            }
        case .clearmsg: found = clearMsg(in: bytes)?.login.map { .tag($0) }
        case .join, .part: found = membership(in: bytes).map { .bytes($0.login) }
        default: found = nil
        }
        guard let found, !found.raw.isEmpty else { return nil }
        return found
    }
}
