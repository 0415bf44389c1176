import ChatHTTP
import Glibc
import Synchronization
import Testing

/// The listener over real loopback sockets while one request is slow (a route that reads a large
/// archive, or a body produced slowly): every other connection is still answered at once.
@Suite struct HTTPListenerConcurrencyTests {
    /// A slow request's gate: the route (or its body) reports that it began, then waits until the
    /// test opens the gate (or 20 s pass, so that a listener that serialises requests still ends).
    final class Gate: Sendable {
        private let state = Mutex((began: false, open: false))

        var began: Bool { state.withLock { $0.began } }

        func open() { state.withLock { $0.open = true } }

        /// Marks the slow work begun and waits for the gate.
        func pass() {
            state.withLock { $0.began = true }
            for _ in 0..<4_000 {
                if state.withLock({ $0.open }) { return }
                usleep(5_000)
            }
        }
    }

    static func router(_ gate: Gate) -> HTTPRouter {
        var router = HTTPRouter()
        router.get("/channels") { _, _ in HTTPResponse(status: 200, contentType: "text/plain", body: Array("fast".utf8))
        }
        router.get("/slow") { _, _ in
            gate.pass()
            return HTTPResponse(status: 200, contentType: "text/plain", body: Array("slow".utf8))
        }
        router.get("/slow-body") { _, _ in
            let sent = Mutex(false)
            let stream = HTTPBodyStream { buffer in
                guard !sent.withLock({ $0 }) else { return 0 }
                gate.pass()
                sent.withLock { $0 = true }
                buffer.storeBytes(of: UInt8(ascii: "s"), as: UInt8.self)
                return 1
            }
            return HTTPResponse(status: 200, contentType: "text/plain", body: [], stream: stream)
        }
        return router
    }

    @Test(
        "while a request is slow (in its route, or in its body) another connection is answered first",
        arguments: ["/slow", "/slow-body"])
    func slowRequestDoesNotBlockOthers(path: String) throws {
        let gate = Gate()
        let listener = try HTTPListener(host: "127.0.0.1", port: 0, router: Self.router(gate))
        defer { listener.stop() }
        let slow = HTTPListenerTests.connect(port: listener.port)
        #expect(slow >= 0)
        guard slow >= 0 else { return }
        defer { close(slow) }
        HTTPListenerSafetyTests.send(slow, "GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        #expect(HTTPListenerTests.eventually { gate.began })
        // The slow request is in its route (or its body) until the gate opens: a fast one on another
        // connection is answered meanwhile, and the slow one has not finished.
        let fast = HTTPListenerSafetyTests.get(listener.port, "/channels")
        #expect(fast.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(fast.prefix(60))")
        #expect(fast.hasSuffix("fast"))
        // What the slow one has sent so far (a streamed body's headers go out before its body).
        let before = HTTPListenerSafetyTests.receive(slow, ms: 50)
        #expect(!Self.isWhole(before), "the slow request finished before the fast one: \(before)")
        gate.open()
        let answer = before + HTTPListenerSafetyTests.receive(slow)
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer.prefix(60))")
        #expect(Self.isWhole(answer), "\(answer)")
    }

    /// Whether `answer` holds the slow request's body: `slow`, or the streamed `s` in its chunk.
    static func isWhole(_ answer: String) -> Bool {
        answer.hasSuffix("\r\n\r\nslow") || answer.contains("\r\n1\r\ns\r\n")
    }
}
