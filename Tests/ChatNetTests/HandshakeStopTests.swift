import ChatNet
import ChatPosix
import ChatTestSupport
import Foundation
import Glibc
import Testing

/// A blocking connect or handshake ends soon after its ``StopFlag`` is raised (SIGINT, SIGTERM: issue
/// 24 item 8), not at its own timeout, and says it was stopped.
@Suite(.timeLimit(.minutes(20))) struct HandshakeStopTests {
    /// Raises `flag` from another thread after `ms` milliseconds.
    static func raise(_ flag: StopFlag, after ms: UInt32) -> Thread {
        let thread = Thread {
            usleep(ms * 1000)
            flag.raise()
        }
        thread.start()
        return thread
    }

    @Test(
        "TLS: a server that never answers the ClientHello, the flag raised after 0.2 s: stopped well before the timeout"
    )
    func tlsHandshake() throws {
        // Listens (the kernel completes the TCP handshake) but never accepts, reads or writes.
        let silent = try SocketLoopbackListener()
        defer { silent.close() }
        let context = try TLSContext()
        let stop = StopFlag()
        let started = Date()
        _ = Self.raise(stop, after: 200)
        let error = #expect(throws: TLSError.self) {
            try TLSConnection.connect(
                host: "127.0.0.1", port: silent.port, context: context, timeoutMs: 10_000, stop: stop)
        }
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds >= 0.2 && seconds < 1, "took \(seconds) s")
        guard case .socket(let socketError)? = error else {
            Issue.record("expected a socket error, got \(String(describing: error))")
            return
        }
        #expect(socketError.isStopped && socketError.code == ECANCELED)
        #expect("\(error!)" == "TLS handshake with 127.0.0.1:\(silent.port): stopped before it completed")
    }

    @Test(
        "WebSocket: a server that never answers the Upgrade request: stopped well before the timeout, not 'unanswered'")
    func webSocketHandshake() throws {
        let silent = try SocketLoopbackListener()
        defer { silent.close() }
        let tcp = try TCPConnection.connect(host: "127.0.0.1", port: silent.port)
        let stop = StopFlag()
        let started = Date()
        _ = Self.raise(stop, after: 200)
        let error = #expect(throws: WebSocketError.self) {
            try WebSocketStream.connect(
                over: tcp, host: "127.0.0.1", port: silent.port, secure: false, peer: "test server",
                timeoutMs: 10_000, stop: stop)
        }
        let seconds = Date().timeIntervalSince(started)
        #expect(seconds >= 0.2 && seconds < 1, "took \(seconds) s")
        #expect(error?.isUnanswered == false, "a stop is no sign of a TLS port")
        #expect("\(error!)" == "WebSocket handshake with test server: stopped before it completed")
    }

    @Test("a flag already raised: the TLS connect gives up at once, before waiting")
    func alreadyRaised() throws {
        let silent = try SocketLoopbackListener()
        defer { silent.close() }
        let context = try TLSContext()
        let stop = StopFlag()
        stop.raise()
        let started = Date()
        let error = #expect(throws: TLSError.self) {
            try TLSConnection.connect(host: "127.0.0.1", port: silent.port, context: context, stop: stop)
        }
        #expect(Date().timeIntervalSince(started) < 0.1)
        // Stopped in the TCP connect if it was still in progress, else before the handshake's first wait.
        guard case .socket(let socketError)? = error else {
            Issue.record("expected a socket error, got \(String(describing: error))")
            return
        }
        #expect(socketError.isStopped, "\(socketError)")
    }

    @Test("without a flag the wait still runs to its own timeout")
    func noFlag() throws {
        let silent = try SocketLoopbackListener()
        defer { silent.close() }
        let context = try TLSContext()
        let started = ContinuousClock.now
        #expect(throws: TLSError.timedOut(peer: "127.0.0.1:\(silent.port)", afterMs: 300)) {
            try TLSConnection.connect(host: "127.0.0.1", port: silent.port, context: context, timeoutMs: 300)
        }
        // The deadline is kept in whole milliseconds of the monotonic clock (a start at x.9 ms counts
        // as x): the wait may end up to 1 ms short of 300 by a finer clock. A loaded run measured
        // 299.98 ms with the wall clock (Date), which also slews.
        #expect(ContinuousClock.now - started >= .milliseconds(299))
    }
}
