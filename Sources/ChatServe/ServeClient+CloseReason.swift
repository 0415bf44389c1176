extension ServeClient {
    /// Why the connection is to be closed.
    enum CloseReason: Equatable, CustomStringConvertible {
        case clientClosed
        case quit
        case reconnectSent(after: Int)
        case dropped(after: Int)
        case notReading(queued: Int)
        case noPong(timeoutMs: Int64)
        case noLogin(timeoutMs: Int64)
        /// Closed to make room (``ChatServer``): the address reached its cap, or descriptors ran out.
        case evicted(String)
        case failed(String)
        case serverStopping
        /// The client opened with a TLS handshake on a plain port (answered with a TLS alert).
        case tlsOnPlainPort

        /// What the server's count of misbehaving peers files this close under, if anything.
        var misbehaviour: String? {
            switch self {
            case .notReading: "did not read"
            case .noLogin: "did not log in in time"
            case .tlsOnPlainPort: "spoke TLS to a plain port"
            case .evicted: "closed to make room"
            default: nil
            }
        }

        var description: String {
            switch self {
            case .clientClosed: "the client closed the connection"
            case .quit: "the client quit"
            case .reconnectSent(let n): "sent RECONNECT after \(n) lines (--reconnect-after)"
            case .dropped(let n): "dropped after \(n) lines (--drop-after)"
            case .notReading(let queued): "the client does not read (\(queued) bytes queued)"
            case .noPong(let ms): "no PONG within \(Double(ms) / 1000) s of a PING"
            case .noLogin(let ms): "no login within \(Double(ms) / 1000) s of connecting (--login-timeout)"
            case .evicted(let why): "closed before logging in to make room: \(why)"
            case .failed(let message): message
            case .serverStopping: "the server is stopping"
            case .tlsOnPlainPort:
                "the client began a TLS handshake, but this port speaks plain IRC: give the client --plain "
                    + "(or serve TLS with --tls-cert and --tls-key)"
            }
        }
    }
}
