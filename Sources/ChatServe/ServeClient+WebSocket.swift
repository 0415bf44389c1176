import ChatNet
import WebSocketWire

extension ServeClient {
    /// The close frame a WebSocket client gets when the server closes it on purpose, after its queue:
    /// 1000 after QUIT, 1001 (going away) after RECONNECT and at shutdown; none for `--drop-after`
    /// (a drop says nothing), for a PING left unanswered, or when the connection already failed or the
    /// client closed it; 1008 (policy) to a client closed for not logging in in time or to make room.
    var webSocketCloseCode: WebSocketCloseCode? {
        switch closeReason {
        case .quit: .normal
        case .reconnectSent, .serverStopping: .goingAway
        case .noLogin, .evicted: .policyViolation
        case .dropped, .noPong, .clientClosed, .notReading, .failed, .tlsOnPlainPort, nil: nil
        }
    }

    /// Sends the close frame of ``webSocketCloseCode`` when the transport is WebSocket (best effort).
    func sendWebSocketClose() {
        guard let stream = transport as? WebSocketStream, let code = webSocketCloseCode else { return }
        stream.close(code, reason: closeReason.map { "\($0)" } ?? "")
    }
}
