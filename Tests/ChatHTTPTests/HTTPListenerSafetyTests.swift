import ChatHTTP
import Glibc
import Testing

/// The listener's bounds over real loopback sockets: connections past the limit answered busy at
/// once, a client that sends its request too slowly cut off, a request line too long refused, and
/// after each the listener still answers.
@Suite struct HTTPListenerSafetyTests {
    static func router() -> HTTPRouter {
        var router = HTTPRouter()
        router.get("/ok") { _, _ in HTTPResponse(status: 200, contentType: "text/plain", body: Array("ok".utf8)) }
        return router
    }

    /// Sends `text` whole on `fd`.
    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// What arrives on `fd` until the peer closes or `ms` pass without a byte.
    static func receive(_ fd: Int32, ms: Int32 = 5_000) -> String {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, ms) == 1 else { break }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            out += buffer[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A whole GET of `path` on a new connection (closed after): the response's text.
    static func get(_ port: UInt16, _ path: String = "/ok") -> String {
        let fd = HTTPListenerTests.connect(port: port)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        send(fd, "GET \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        return receive(fd)
    }

    @Test("200 slow clients: past the limit each is answered 503 at once; afterwards a request is answered")
    func busyPastTheLimit() throws {
        let listener = try HTTPListener(
            host: "127.0.0.1", port: 0,
            limits: HTTPLimits(
                connections: 20, connectionsPerAddress: 1_000, busyConnections: 400, requestTimeoutSeconds: 60),
            router: Self.router())
        defer { listener.stop() }
        var slow: [Int32] = []
        defer { for fd in slow { close(fd) } }
        for _ in 0..<200 {
            let fd = HTTPListenerTests.connect(port: listener.port)
            #expect(fd >= 0)
            guard fd >= 0 else { return }
            // A request head begun and never finished.
            Self.send(fd, "GET /ok HTTP/1.1\r\nHost: test\r\n")
            slow.append(fd)
        }
        var busy = 0
        var held = 0
        for fd in slow {
            let answer = Self.receive(fd, ms: busy + held < 20 ? 300 : 3_000)
            if answer.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n") {
                busy += 1
                #expect(answer.hasSuffix(#""error_code":"too_many_connections"}"#))
                #expect(answer.contains("Connection: close\r\n"))
            } else {
                #expect(answer.isEmpty, "a held connection is not answered: \(answer.prefix(40))")
                held += 1
            }
        }
        #expect(held == 20)
        #expect(busy == 180)
        // While the 20 hold, a whole request past them is busy too, not left waiting.
        #expect(Self.get(listener.port).hasPrefix("HTTP/1.1 503"))
        for fd in slow { close(fd) }
        slow = []
        #expect(HTTPListenerTests.eventually { Self.get(listener.port).hasPrefix("HTTP/1.1 200 OK") })
        #expect(listener.figures.answeredBusy >= 181)
        #expect(listener.figures.shedOverLimit == 0)
    }

    @Test("a client that sends its request a byte at a time is cut off after the request timeout")
    func slowlorisIsCut() throws {
        let listener = try HTTPListener(
            host: "127.0.0.1", port: 0, limits: HTTPLimits(idleTimeoutSeconds: 30, requestTimeoutSeconds: 1),
            router: Self.router())
        defer { listener.stop() }
        let fd = HTTPListenerTests.connect(port: listener.port)
        #expect(fd >= 0)
        defer { close(fd) }
        Self.send(fd, "GET /ok HTTP/1.1\r\n")
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        var cut = false
        var elapsed = 0.0
        // A header byte every 200 ms: never idle, never done.
        for _ in 0..<100 {
            Self.send(fd, "X")
            if HTTPListenerTests.closedByPeer(fd, withinMs: 200) {
                cut = true
                break
            }
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            elapsed = Double(now.tv_sec - start.tv_sec) + Double(now.tv_nsec - start.tv_nsec) / 1e9
        }
        #expect(cut)
        #expect(elapsed >= 0.8 && elapsed < 10, "cut after \(elapsed) s, the timeout being 1 s (idle: 30 s)")
        #expect(listener.figures.cutSlow == 1)
        // A client that sends its request at once is answered, not cut.
        #expect(Self.get(listener.port).hasPrefix("HTTP/1.1 200 OK"))
        usleep(1_200_000)
        #expect(listener.figures.cutSlow == 1)
    }

    @Test(
        "a request line or headers past the connection's memory: 414 or 431 in the router's error shape, and the listener still answers"
    )
    func requestTooLong() throws {
        let listener = try HTTPListener(
            host: "127.0.0.1", port: 0, limits: HTTPLimits(memoryPerConnection: 16 * 1024), router: Self.router())
        defer { listener.stop() }
        let answer = Self.get(listener.port, "/ok?" + String(repeating: "a", count: 40_000))
        #expect(answer.hasPrefix("HTTP/1.1 414 URI Too Long\r\n"), "\(answer.prefix(60))")
        #expect(answer.contains("Content-Type: application/json\r\n"), "\(answer.prefix(200))")
        #expect(
            answer.hasSuffix(
                #"{"status":414,"status_message":"URI Too Long","error":"URI Too Long","error_code":"uri_too_long"}"#))
        let header = HTTPListenerTests.connect(port: listener.port)
        defer { close(header) }
        Self.send(header, "GET /ok HTTP/1.1\r\nHost: test\r\nX-Big: \(String(repeating: "b", count: 40_000))\r\n\r\n")
        let refused = Self.receive(header)
        #expect(refused.hasPrefix("HTTP/1.1 431 Request Header Fields Too Large\r\n"), "\(refused.prefix(60))")
        #expect(refused.hasSuffix(#""error_code":"request_header_fields_too_large"}"#), "\(refused.suffix(80))")
        #expect(!refused.contains("<html>"))
        #expect(Self.get(listener.port).hasPrefix("HTTP/1.1 200 OK"))
    }
}
