public import ChatStore
public import IRCWire

/// One line of a capture file as the logs API sees it: the parsed message, the time capture received
/// it, and the answers to the API's questions (who, which channel, which type, what time), all read
/// back from the same bytes.
///
/// Capture stores the line as the server sent it with one tag added in front, `time` (when it was
/// received). The API serves the lines rustlog keeps (`src/bot.rs`, `prepare_message`: a line with
/// a `room-id` tag, but no ROOMSTATE) and reads the user, the text and the type as its
/// `src/db/schema.rs` (`StructuredMessage::from_unstructured`, `user_friendly_text`) does.
///
/// Offsets only (a ``TwitchMessage`` and a time): every method takes the line's bytes again.
public struct StoredLine: Sendable {
    public var message: TwitchMessage
    /// When capture received the line (its `time` tag), if it has one.
    public var received: Timestamp?

    public init(message: TwitchMessage, received: Timestamp?) {
        self.message = message
        self.received = received
    }

    /// Whether the API serves the line: it names its room (`room-id`) and is not a ROOMSTATE.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public var isServed: Bool {
        message.tags[.roomId] != nil && message.command != .roomstate && message.channel != nil
    }

    /// The line's time as the API shows it: `tmi-sent-ts` (when the server sent it, what rustlog stores,
    /// `src/logs/extract.rs`), else when capture received it, else the epoch.
    ///
    /// - Complexity: O(tag length). - Allocations: none.
    public func timestamp(in bytes: Span<UInt8>) -> Timestamp {
        if let sent = message.sentTimestamp(in: bytes) { return Timestamp(milliseconds: sent) }
        return received ?? .epoch
    }

    /// The user a line is about: a CLEARCHAT's target (its last parameter), else the `login` tag
    /// (USERNOTICE, CLEARMSG), else the nick of a `nick!user@host` source; `nil` for none (a source
    /// that is only a host, `tmi.twitch.tv`, names no user).
    ///
    /// - Complexity: O(source length). - Allocations: none.
    public func userLogin(in bytes: Span<UInt8>) -> ByteRange? {
        if message.command == .clearchat {
            guard message.line.paramCount >= 2, let login = message.line.lastParam(in: bytes), !login.isEmpty else {
                return nil
            }
            return login
        }
        if let login = message.tags[.login] { return login.raw }  // logins hold nothing to unescape
        guard let parts = message.line.sourceParts(in: bytes), parts.user != nil || parts.host != nil else {
            return nil
        }
        return parts.nick.isEmpty ? nil : parts.nick
    }

    /// The id of the user a line is about: `user-id`, else `target-user-id` (a CLEARCHAT's), as rustlog
    /// reads it (`src/logs/extract.rs`, `extract_user_id`).
    public var userId: TagValue? { message.tags[.userId] ?? message.tags[.targetUserId] }

    /// The channel's id (`room-id`).
    public var roomId: TagValue? { message.tags[.roomId] }

    /// rustlog's message type number (`src/db/schema.rs`, `MessageType`), the `type` of its JSON.
    public var typeCode: Int {
        switch message.command {
        case .whisper: 0
        case .privmsg: 1
        case .clearchat: 2
        case .roomstate: 3
        case .usernotice: 4
        case .userstate: 5
        case .notice: 6
        case .join: 7
        case .part: 8
        case .reconnect: 9
        case .names: 10
        case .ping: 11
        case .pong: 12
        case .clearmsg: 13
        case .globaluserstate: 14
        default: -1
        }
    }

    /// The line as the server sent it: without the `time` tag capture put first. The bytes are
    /// `@` (when `needsAt`) followed by `bytes[range]`.
    ///
    /// - Complexity: O(length of the `time` tag). - Allocations: none.
    public func serverLine(in bytes: Span<UInt8>) -> (needsAt: Bool, range: Range<Int>) {
        let n = bytes.count
        guard n > 6, bytes.equals(Self.timePrefix, at: 0..<6) else { return (false, 0..<n) }
        var i = 6
        while i < n && bytes[i] != UInt8(ascii: ";") && bytes[i] != UInt8(ascii: " ") { i += 1 }
        guard i < n else { return (false, 0..<n) }
        // `@time=…;rest` keeps `@rest`; `@time=… rest` (a line without tags of its own) keeps `rest`.
        return bytes[i] == UInt8(ascii: ";") ? (true, (i + 1)..<n) : (false, (i + 1)..<n)
    }

    private static let timePrefix: [UInt8] = Array("@time=".utf8)
}
