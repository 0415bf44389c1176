public import IRCWire

/// A received line as far as connection control cares: the few commands that steer the session,
/// with their parameters as strings, and ``other`` for everything else.
///
/// Built by ``init(_:in:ownNick:)`` from a parsed ``TwitchMessage``. Chat lines (PRIVMSG,
/// USERNOTICE, other users' JOINs, …) become ``other`` without allocating; only the rare control
/// lines build strings.
public enum ServerLine: Sendable, Equatable {
    /// `PING :token`: answer with `PONG :token`.
    case ping(token: String)
    /// `PONG`: an answer to our probe.
    case pong(token: String)
    /// `CAP * ACK :caps`.
    case capabilitiesAcknowledged([String])
    /// `CAP * NAK :caps`.
    case capabilitiesRejected([String])
    /// `001`: registration is complete; `nick` is the name the server knows us by.
    case welcome(nick: String)
    /// Our own JOIN, echoed: we are in the channel (login without `#`, lower case).
    case ownJoin(channel: String)
    /// A NOTICE: `channel` is `nil` for `NOTICE *`; `msgId` is `nil` without the tags capability.
    case notice(channel: String?, msgId: String?, text: String)
    /// `RECONNECT`: the server is going away; connect again.
    case reconnect
    /// Any other line: it only proves the connection is alive.
    case other

    /// Whether a line with `command` can be anything but ``other``: the commands
    /// ``init(_:in:ownNick:)`` looks at. A session hands every other line (PRIVMSG, USERNOTICE,
    /// CLEARCHAT, ROOMSTATE, …: chat, most lines) to ``ConnectionMachine/chatReceived(at:)`` without
    /// classifying it.
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inline(__always)
    public static func mayControl(_ command: TwitchCommand) -> Bool {
        switch command {
        case .ping, .pong, .cap, .numeric(1), .join, .notice, .reconnect: true
        default: false
        }
    }

    /// Classifies `message` (parsed from `bytes`) for a session logged in as `ownNick`.
    ///
    /// - Complexity: O(line length) for control lines; O(nick length) for other JOINs; O(1) otherwise.
    /// - Allocations: none for ``other``; a few strings for control lines.
    public init(_ message: TwitchMessage, in bytes: Span<UInt8>, ownNick: String) {
        switch message.command {
        case .ping:
            self = .ping(token: message.pingToken(in: bytes).map { String(decoding: bytes, in: $0) } ?? "")
        case .pong:
            self = .pong(token: message.pingToken(in: bytes).map { String(decoding: bytes, in: $0) } ?? "")
        case .cap:
            guard let reply = message.capReply(in: bytes) else {
                self = .other
                return
            }
            let capabilities = reply.capabilities.map { Self.words(bytes, $0) } ?? []
            if bytes.equals("ACK", at: reply.subcommand) {
                self = .capabilitiesAcknowledged(capabilities)
            } else if bytes.equals("NAK", at: reply.subcommand) {
                self = .capabilitiesRejected(capabilities)
            } else {
                self = .other
            }
        case .numeric(1):
            self = .welcome(nick: message.line.param(0, in: bytes).map { String(decoding: bytes, in: $0) } ?? "")
        case .join:
            guard let membership = message.membership(in: bytes),
                Self.equalsIgnoringCase(bytes, membership.login, ownNick)
            else {
                self = .other
                return
            }
            self = .ownJoin(channel: String(decoding: bytes, in: membership.channel).lowercased())
        case .notice:
            guard let notice = message.notice(in: bytes) else {
                self = .other
                return
            }
            self = .notice(
                channel: notice.channel.map { String(decoding: bytes, in: $0).lowercased() },
                msgId: notice.msgId.map { String(decoding: bytes, in: $0.raw) },
                text: notice.text.map { String(decoding: bytes, in: $0) } ?? "")
        case .reconnect:
            self = .reconnect
        default:
            self = .other
        }
    }

    private static func words(_ bytes: Span<UInt8>, _ range: ByteRange) -> [String] {
        String(decoding: bytes, in: range).split(separator: " ").map(String.init)
    }

    /// ASCII case-insensitive comparison of `range` with `text`, without building a string.
    private static func equalsIgnoringCase(_ bytes: Span<UInt8>, _ range: ByteRange, _ text: String) -> Bool {
        guard range.count == text.utf8.count else { return false }
        var index = range.range.lowerBound
        for expected in text.utf8 {
            if Self.lower(bytes[index]) != Self.lower(expected) { return false }
            index += 1
        }
        return true
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }
}
