/// A close frame's status code (RFC 6455 §7.4): why an endpoint closes the connection.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Equatable, Hashable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normal = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (a server shutting down, a client leaving).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol (an unmasked client frame, a fragmented control frame, …).
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1007: a message's data does not match its type (a text message that is not UTF-8).
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message broke the endpoint's policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message is too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1011: the server met an unexpected condition.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// Whether a close frame may carry this code (RFC 6455 §7.4.1 and the IANA registry): 1000–1003,
    /// 1007–1014 and 3000–4999. 1005, 1006 and 1015 are only ever reported locally.
    public var isValidOnTheWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    public var description: String {
        let name: String
        switch rawValue {
        case 1000: name = "normal closure"
        case 1001: name = "going away"
        case 1002: name = "protocol error"
        case 1003: name = "unsupported data"
        case 1007: name = "invalid payload"
        case 1008: name = "policy violation"
        case 1009: name = "message too big"
        case 1011: name = "internal error"
        default: return "\(rawValue)"
        }
        return "\(rawValue) (\(name))"
    }
}
