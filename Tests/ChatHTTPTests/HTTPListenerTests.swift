import ChatHTTP
import Glibc
import Testing

/// The listener over real loopback sockets: what happens to connections past its limits.
@Suite struct HTTPListenerTests {
    /// A blocking TCP connect to `127.0.0.1:port`, optionally from `source` (another loopback
    /// address); the descriptor, or -1.
    static func connect(port: UInt16, from source: String? = nil) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        func address(_ host: String, _ port: UInt16) -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr(host)
            return address
        }
        func call(_ address: sockaddr_in, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
            withUnsafePointer(to: address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        if let source, call(address(source, 0), { bind(fd, $0, $1) }) != 0 {
            close(fd)
            return -1
        }
        guard call(address("127.0.0.1", port), { Glibc.connect(fd, $0, $1) }) == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    /// Whether the listener closed `fd` (a read sees the end of the stream) within `ms`.
    static func closedByPeer(_ fd: Int32, withinMs ms: Int32 = 2_000) -> Bool {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, ms) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK)) == 0
    }

    /// Polls `body` every 10 ms for up to 5 s.
    static func eventually(_ body: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if body() { return true }
            usleep(10_000)
        }
        return body()
    }

    @Test("past the connection limit a connection is accepted and closed at once, and counted as shed")
    func shedsOverTheLimit() throws {
        let listener = try HTTPListener(
            host: "127.0.0.1", port: 0, limits: HTTPLimits(connections: 2, connectionsPerAddress: 2),
            router: HTTPRouter())
        defer { listener.stop() }
        // Closed once each: the one closed early leaves the array, so the deferred close never hits a
        // number reused meanwhile by another test's file (the test process is shared).
        var held = [Self.connect(port: listener.port), Self.connect(port: listener.port)]
        defer { for fd in held { close(fd) } }
        #expect(held.allSatisfy { $0 >= 0 })
        #expect(Self.eventually { listener.figures.open == 2 }, "\(listener.figures)")
        let extra = (0..<3).map { _ in Self.connect(port: listener.port, from: "127.0.2.1") }
        defer { for fd in extra { close(fd) } }
        // The connects complete (nothing waits in the backlog), and the listener closes each at once.
        #expect(extra.allSatisfy { $0 >= 0 })
        #expect(extra.allSatisfy { Self.closedByPeer($0) })
        #expect(!held.contains { Self.closedByPeer($0, withinMs: 50) })
        let figures = listener.figures
        #expect(figures.shedOverLimit == 3 && figures.shedOverAddressLimit == 0, "\(figures)")
        #expect(figures.limit == 2 && figures.accepted == 2 && figures.open == 2, "\(figures)")
        // Room again once one closes.
        close(held.removeFirst())
        #expect(Self.eventually { listener.figures.open == 1 }, "\(listener.figures)")
        let again = Self.connect(port: listener.port)
        defer { close(again) }
        #expect(!Self.closedByPeer(again, withinMs: 200))
        #expect(Self.eventually { listener.figures.accepted == 3 }, "\(listener.figures)")
    }

    @Test("past the per-address limit a connection is shed and counted apart; other addresses still get in")
    func shedsOverTheAddressLimit() throws {
        let listener = try HTTPListener(
            host: "127.0.0.1", port: 0, limits: HTTPLimits(connections: 8, connectionsPerAddress: 1),
            router: HTTPRouter())
        defer { listener.stop() }
        let first = Self.connect(port: listener.port, from: "127.0.3.1")
        defer { close(first) }
        #expect(Self.eventually { listener.figures.open == 1 })
        let second = Self.connect(port: listener.port, from: "127.0.3.1")
        defer { close(second) }
        #expect(Self.closedByPeer(second))
        let other = Self.connect(port: listener.port, from: "127.0.3.2")
        defer { close(other) }
        #expect(!Self.closedByPeer(other, withinMs: 200))
        #expect(Self.eventually { listener.figures.open == 2 })
        let figures = listener.figures
        #expect(figures.shedOverAddressLimit == 1 && figures.shedOverLimit == 0, "\(figures)")
        #expect(figures.limitPerAddress == 1 && figures.accepted == 2, "\(figures)")
    }

    @Test("the counts stay readable after the listener stops")
    func figuresAfterStop() throws {
        let listener = try HTTPListener(
            host: "127.0.0.1", port: 0, limits: HTTPLimits(connections: 1, connectionsPerAddress: 1),
            router: HTTPRouter())
        let fd = Self.connect(port: listener.port)
        defer { close(fd) }
        #expect(Self.eventually { listener.figures.accepted == 1 })
        listener.stop()
        #expect(listener.figures.accepted == 1 && listener.figures.open == 0, "\(listener.figures)")
    }
}
