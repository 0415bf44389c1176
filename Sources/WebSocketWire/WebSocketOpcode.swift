/// The kind of a WebSocket frame (RFC 6455 §5.2): data frames carry a message (text or binary, with
/// continuation frames for its further fragments); control frames (close, ping, pong) stand alone
/// and may come between the fragments of a message.
public enum WebSocketOpcode: UInt8, Sendable, Equatable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong: at most 125 bytes of payload, never fragmented.
    public var isControl: Bool { rawValue & 0x8 != 0 }
}
