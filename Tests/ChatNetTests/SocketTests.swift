import ChatNet
import ChatTestSupport
import Glibc
import IRCWire
import Testing

/// A connected pair of Unix stream sockets: `connection` is ours, `peer` is the raw other end.
struct SocketPairFixture {
    let connection: TCPConnection
    let peer: Int32

    init() throws {
        var descriptors: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
        connection = try TCPConnection(adopting: descriptors[0], peer: "socketpair")
        peer = descriptors[1]
    }

    func peerWrite(_ text: String) {
        let bytes = Array(text.utf8)
        #expect(write(peer, bytes, bytes.count) == bytes.count)
    }

    /// Reads what the peer has now (blocking until at least one byte, or EOF).
    func peerRead(max: Int = 1 << 16) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: max)
        let count = read(peer, &buffer, max)
        return count > 0 ? Array(buffer[..<count]) : []
    }

    func closePeer() { close(peer) }
}

func socketRead(_ connection: some ByteStream, max: Int = 4096) throws -> (ReadOutcome, [UInt8]) {
    var buffer = [UInt8](repeating: 0, count: max)
    let outcome = try buffer.withUnsafeMutableBytes { try connection.read(into: $0) }
    if case .bytes(let count) = outcome { return (outcome, Array(buffer[..<count])) }
    return (outcome, [])
}

@Suite(.timeLimit(.minutes(20))) struct SocketTests {
    @Test("read returns the bytes written by the peer")
    func readsBytes() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        pair.peerWrite("PING :x\r\n")
        let (outcome, bytes) = try socketRead(pair.connection)
        #expect(outcome == .bytes(9))
        #expect(bytes == Array("PING :x\r\n".utf8))
    }

    @Test("read returns wouldBlock when nothing is there, and endOfStream after the peer closes")
    func wouldBlockThenEndOfStream() throws {
        let pair = try SocketPairFixture()
        #expect(try socketRead(pair.connection).0 == .wouldBlock)
        pair.peerWrite("last")
        pair.closePeer()
        #expect(try socketRead(pair.connection).0 == .bytes(4))
        #expect(try socketRead(pair.connection).0 == .endOfStream)
        #expect(try socketRead(pair.connection).0 == .endOfStream)
    }

    @Test("reads go straight into the framer, lines come out whole across chunks")
    func readIntoFramer() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        var framer = LineFramer()
        var lines: [String] = []
        func drain() {
            while let event = framer.nextLine() {
                if case .line(let line) = event {
                    lines.append(
                        framer.withBytes(of: line) { span in
                            var out: [UInt8] = []
                            for i in span.indices { out.append(span[i]) }
                            return String(decoding: out, as: UTF8.self)
                        })
                }
            }
        }
        for chunk in ["PING :a\r\nPRIV", "MSG #c :hello\r", "\n:tmi.twitch.tv RECONNECT\r\n"] {
            pair.peerWrite(chunk)
            while case .bytes = try pair.connection.read(into: &framer) { drain() }
        }
        #expect(lines == ["PING :a", "PRIVMSG #c :hello", ":tmi.twitch.tv RECONNECT"])
    }

    @Test("the write queue survives partial writes and delivers every byte in order")
    func partialWrites() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        var expected: [UInt8] = []
        for n in 0..<20_000 {
            let message = OutgoingMessage.privmsg(channel: "c", text: "message number \(n) with some padding text")
            try pair.connection.enqueue(message)
            expected += try message.wireBytes()
        }
        #expect(pair.connection.pendingWriteCount == expected.count)
        #expect(try pair.connection.flush() == false, "a socketpair buffer cannot take \(expected.count) bytes at once")
        #expect(pair.connection.hasPendingWrites)
        #expect(pair.connection.interest == [.readable, .writable])
        var received: [UInt8] = []
        while received.count < expected.count {
            received += pair.peerRead()
            try pair.connection.flush()
        }
        #expect(received == expected)
        #expect(!pair.connection.hasPendingWrites)
        #expect(pair.connection.interest == .readable)
    }

    @Test("writing to a closed peer throws EPIPE instead of raising SIGPIPE")
    func writeToClosedPeer() throws {
        let pair = try SocketPairFixture()
        pair.closePeer()
        try pair.connection.enqueue(.ping("x"))
        let error = #expect(throws: SocketError.self) { try pair.connection.flush() }
        #expect(error?.code == EPIPE)
        #expect(error?.message.contains("write to socketpair") == true)
    }

    @Test("a message that cannot be serialised is refused and leaves the queue untouched")
    func unserialisable() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        #expect(throws: SerializationError.self) {
            try pair.connection.enqueue(.privmsg(channel: "c", text: "a\r\nQUIT"))
        }
        #expect(!pair.connection.hasPendingWrites)
    }

    @Test("connects to 127.0.0.1 and exchanges lines")
    func tcpConnect() throws {
        let listener = try SocketLoopbackListener()
        defer { listener.close() }
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: listener.port, timeoutMs: 2_000)
        #expect(connection.isConnected)
        #expect(connection.peer == "127.0.0.1:\(listener.port)")
        let accepted = listener.accept()
        defer { close(accepted) }
        try connection.enqueue(.nick("justinfan1"))
        #expect(try connection.flush())
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(accepted, &buffer, 64)
        #expect(Array(buffer[..<max(count, 0)]) == Array("NICK justinfan1\r\n".utf8))
    }

    /// A connect to `listener` that is still in progress, on `loop`: the listener's accept queue is
    /// filled first (nothing accepts), so the kernel drops our SYN and the client retries it about a
    /// second later. Returns the pending connection and the completed ones that filled the queue.
    static func pendingConnect(to listener: SocketLoopbackListener, on loop: EventLoop) throws -> (
        TCPConnection, [TCPConnection]
    ) {
        let address = try #require(SocketAddress.resolve(host: "127.0.0.1", port: listener.port).first)
        var fillers: [TCPConnection] = []
        for _ in 0..<64 {
            let connection = try TCPConnection.startConnect(to: address)
            try loop.register(connection.fileDescriptor, interest: connection.interest)
            // A loopback handshake with room in the queue completes within microseconds.
            let completed = try connection.isConnected || !Self.readiness(loop, connection, timeoutMs: 100).isEmpty
            if completed {
                try connection.finishConnect()
                #expect(connection.isConnected)
                try loop.remove(connection.fileDescriptor)
                fillers.append(connection)
            } else {
                return (connection, fillers)
            }
        }
        let none: TCPConnection? = nil
        return (try #require(none, "64 connects to a listener that accepts none all completed"), fillers)
    }

    /// What epoll reports for `connection` within `timeoutMs` (empty: nothing).
    static func readiness(_ loop: EventLoop, _ connection: TCPConnection, timeoutMs: Int) throws -> EventLoop.Readiness
    {
        var readiness: EventLoop.Readiness = []
        let deadline = ContinuousClock.now + .milliseconds(timeoutMs)
        while readiness.isEmpty && ContinuousClock.now < deadline {
            try loop.wait(timeoutMs: 50) { descriptor, ready in
                if descriptor == connection.fileDescriptor { readiness.formUnion(ready) }
            }
        }
        return readiness
    }

    @Test("a non-blocking connect completes through epoll writability and SO_ERROR")
    func startAndFinishConnect() throws {
        let listener = try SocketLoopbackListener()
        defer { listener.close() }
        let loop = try EventLoop()
        let (connection, fillers) = try Self.pendingConnect(to: listener, on: loop)
        #expect(!fillers.isEmpty, "the accept queue takes some connections before it is full")
        // In progress: finishing early leaves it unconnected (SO_ERROR 0, no peer yet).
        try connection.finishConnect()
        #expect(!connection.isConnected)
        // Room in the queue: the retried SYN is answered, epoll reports writability, SO_ERROR is 0.
        for _ in fillers { close(listener.accept()) }
        #expect(try Self.readiness(loop, connection, timeoutMs: 10_000) == .writable)
        try connection.finishConnect()
        #expect(connection.isConnected)
        let accepted = listener.accept()
        defer { close(accepted) }
        try connection.enqueue(.nick("justinfan1"))
        #expect(try connection.flush())
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(accepted, &buffer, 64)
        #expect(Array(buffer[..<max(count, 0)]) == Array("NICK justinfan1\r\n".utf8))
    }

    @Test(
        "a non-blocking connect refused while in progress: epoll wakes it, finishConnect throws SO_ERROR's ECONNREFUSED"
    )
    func pendingConnectRefused() throws {
        let listener = try SocketLoopbackListener()
        let loop = try EventLoop()
        let (connection, fillers) = try Self.pendingConnect(to: listener, on: loop)
        #expect(!fillers.isEmpty)
        // Nothing listens when the SYN is retried: the port answers with a reset.
        listener.close()
        let readiness = try Self.readiness(loop, connection, timeoutMs: 10_000)
        #expect(readiness.contains(.writable) && readiness.contains(.error), "\(readiness)")
        let error = #expect(throws: SocketError.self) { try connection.finishConnect() }
        #expect(error?.code == ECONNREFUSED)
        #expect(!connection.isConnected)
    }

    @Test("a refused connection is a SocketError with ECONNREFUSED and the address")
    func connectionRefused() throws {
        let listener = try SocketLoopbackListener()
        let port = listener.port
        listener.close()
        let error = #expect(throws: SocketError.self) {
            try TCPConnection.connect(host: "127.0.0.1", port: port, timeoutMs: 2_000)
        }
        #expect(error?.code == ECONNREFUSED)
        #expect(error?.message.contains("127.0.0.1:\(port)") == true)
        #expect(error?.message.contains("refused") == true)
    }

    @Test("localhost resolves; IP literals are recognised")
    func resolution() throws {
        let addresses = try SocketAddress.resolve(host: "localhost", port: 6697)
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { $0.description.hasSuffix(":6697") })
        #expect(try SocketAddress.resolve(host: "::1", port: 6667).first?.description == "[::1]:6667")
        #expect(SocketAddress.isIPLiteral("127.0.0.1") && SocketAddress.isIPLiteral("::1"))
        #expect(!SocketAddress.isIPLiteral("irc.chat.twitch.tv") && !SocketAddress.isIPLiteral("localhost"))
    }
}
