public import ChatPosix
import TwitchSession

extension TLSConnection {
    /// Connects to `host:port` and completes the handshake, waiting on a private ``EventLoop`` for
    /// at most `timeoutMs` in all, and no longer than ``EventLoop/stopCheckMs`` after `stop` is raised
    /// (SIGINT, SIGTERM).
    ///
    /// - Throws: ``TLSError``: the socket's error, a certificate or name error, a timeout, or
    ///   ``TLSError/socket(_:)`` with ``SocketError/stopped(_:)``.
    public static func connect(
        host: String, port: UInt16, context: TLSContext, timeoutMs: Int64 = 10_000, stop: StopFlag? = nil
    ) throws(TLSError) -> TLSConnection {
        let start = Moment.now().monotonicMs
        let tcp: TCPConnection
        do { tcp = try TCPConnection.connect(host: host, port: port, timeoutMs: timeoutMs, stop: stop) } catch {
            throw .socket(error)
        }
        let connection = try TLSConnection(over: tcp, host: host, context: context)
        let loop: EventLoop
        do {
            loop = try EventLoop(maxEvents: 1)
            try loop.register(tcp.fileDescriptor, interest: .readable)
        } catch {
            throw .socket(error)
        }
        defer { try? loop.remove(tcp.fileDescriptor) }
        while try connection.handshake() != .complete {
            let remaining = start + timeoutMs - Moment.now().monotonicMs
            guard remaining > 0 else { throw .timedOut(peer: tcp.peer, afterMs: timeoutMs) }
            do {
                try loop.modify(tcp.fileDescriptor, interest: connection.interest)
                try loop.waitStep(remainingMs: remaining, stop: stop, "TLS handshake with \(tcp.peer)")
            } catch {
                throw .socket(error)
            }
        }
        return connection
    }
}
