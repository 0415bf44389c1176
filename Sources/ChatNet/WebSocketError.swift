public import WebSocketWire

/// Why a WebSocket connection could not be opened or failed, with a message a person can act on.
public enum WebSocketError: Error, CustomStringConvertible {
    /// The stream below (TCP or TLS) or the event loop failed: its error.
    case transport(any Error)
    /// The Upgrade handshake failed (as the client: the server's answer; as the server: the request,
    /// which was answered with an HTTP error).
    case handshake(peer: String, WebSocketHandshakeError)
    /// The peer broke the protocol or a limit; it was sent a close frame with the failure's code.
    case protocolViolation(peer: String, WebSocketFailure)
    /// The server closed or reset the connection before answering the Upgrade request with a byte
    /// (as a TLS port does with a plain request): what happened, for the message.
    case unanswered(peer: String, String)
    /// The handshake did not finish in time.
    case timedOut(peer: String, afterMs: Int64)

    /// Whether the server went away without a byte of answer to the Upgrade request: over a plain
    /// connection, the hint of a TLS port.
    public var isUnanswered: Bool {
        if case .unanswered = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .transport(let error): "\(error)"
        case .handshake(let peer, let error): "WebSocket handshake with \(peer) failed: \(error)"
        case .protocolViolation(let peer, let failure): "WebSocket connection to \(peer) closed: \(failure)"
        case .unanswered(let peer, let what):
            "WebSocket handshake with \(peer) failed: no answer to the Upgrade request (\(what))"
        case .timedOut(let peer, let afterMs):
            "WebSocket handshake with \(peer) timed out: no answer within \(afterMs) ms"
        }
    }
}
