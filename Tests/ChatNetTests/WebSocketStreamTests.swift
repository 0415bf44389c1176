import ChatNet
import ChatTestSupport
import Foundation
import Glibc
import IRCWire
import Testing
import WebSocketWire

/// Reads everything `stream` has now into `framer` and returns the complete lines (and the last outcome).
func readLines(_ stream: WebSocketStream, _ framer: inout LineFramer) throws -> ([String], ReadOutcome) {
    var lines: [String] = []
    while true {
        let outcome = try stream.read(into: &framer)
        while let event = framer.nextLine() {
            if case .line(let line) = event {
                lines.append(
                    framer.withBytes(of: line) { b in String(decoding: (0..<b.count).map { b[$0] }, as: UTF8.self) })
            }
        }
        guard case .bytes = outcome else { return (lines, outcome) }
    }
}

/// A blocking read of `count` bytes from `descriptor` (a peer socket), within 5 s.
func readExactly(_ descriptor: Int32, _ count: Int) -> [UInt8] {
    var out: [UInt8] = []
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    while out.count < count {
        var chunk = [UInt8](repeating: 0, count: count - out.count)
        let n = read(descriptor, &chunk, chunk.count)
        guard n > 0 else { break }
        out += chunk[..<n]
    }
    return out
}

/// Reads an HTTP head (through its blank line) from `descriptor`, a byte at a time.
func readHead(_ descriptor: Int32) -> String {
    var head: [UInt8] = []
    while !(head.count >= 4 && Array(head.suffix(4)) == [13, 10, 13, 10]) {
        let byte = readExactly(descriptor, 1)
        guard !byte.isEmpty else { break }
        head += byte
    }
    return String(decoding: head, as: UTF8.self)
}

let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

@Suite(.timeLimit(.minutes(20))) struct WebSocketStreamTests {
    @Test("server side: the upgrade (irc subprotocol echoed), pipelined frames, lines out as one frame, ping answered")
    func serverSide() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        let stream = WebSocketStream(accepting: pair.connection, peer: "socketpair")
        var framer = LineFramer()
        #expect(try readLines(stream, &framer).1 == .wouldBlock)
        #expect(!stream.isOpen)

        let request =
            "GET /chat HTTP/1.1\r\nHost: 127.0.0.1:1234\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
            + "Sec-WebSocket-Key: \(sampleKey)\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: irc\r\n\r\n"
        let frames = frame(.text, Array("CAP REQ :twitch.tv/tags\r\nNICK justinfan1".utf8), key: key)
        let all = Array(request.utf8) + frames
        #expect(write(pair.peer, all, all.count) == all.count)
        let (lines, outcome) = try readLines(stream, &framer)
        #expect(lines == ["CAP REQ :twitch.tv/tags", "NICK justinfan1"])
        #expect(outcome == .wouldBlock)
        #expect(stream.isOpen && stream.subprotocol == "irc" && stream.requestPath == "/chat")
        #expect(
            readHead(pair.peer)
                == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: irc\r\n\r\n")

        for text in [":tmi.twitch.tv 001 justinfan1 :Welcome, GLHF!", ":tmi.twitch.tv 376 justinfan1 :>"] {
            var line = text
            line.withUTF8 { stream.enqueue(line: $0.span) }
        }
        #expect(try stream.flush())
        let payload = ":tmi.twitch.tv 001 justinfan1 :Welcome, GLHF!\r\n:tmi.twitch.tv 376 justinfan1 :>\r\n"
        #expect(
            readExactly(pair.peer, 2 + payload.utf8.count) == [0x81, UInt8(payload.utf8.count)] + Array(payload.utf8))

        let ping = frame(.ping, Array("hi".utf8), key: key)
        #expect(write(pair.peer, ping, ping.count) == ping.count)
        #expect(try readLines(stream, &framer) == ([], .wouldBlock))
        #expect(try stream.flush())
        #expect(readExactly(pair.peer, 4) == [0x8A, 0x02] + Array("hi".utf8))
    }

    @Test("server side: an unmasked frame is answered with close 1002 and a thrown error; a plain IRC client gets 400")
    func serverRefuses() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        let stream = WebSocketStream(accepting: pair.connection, peer: "socketpair")
        let request =
            "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(sampleKey)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        let all = Array(request.utf8) + frame(.text, Array("NICK a\r\n".utf8))
        #expect(write(pair.peer, all, all.count) == all.count)
        var framer = LineFramer()
        #expect {
            _ = try readLines(stream, &framer)
        } throws: { error in
            guard case WebSocketError.protocolViolation(_, let failure) = error else { return false }
            return failure.code == .protocolError
        }
        _ = readHead(pair.peer)
        let close = readExactly(pair.peer, 4)
        #expect(Array(close.prefix(4)) == [0x88, close[1], 0x03, 0xEA], "a close frame with 1002")
        #expect(try readLines(stream, &framer).1 == .endOfStream)

        let irc = try SocketPairFixture()
        defer { irc.closePeer() }
        let refused = WebSocketStream(accepting: irc.connection, peer: "socketpair")
        irc.peerWrite("NICK justinfan1\r\n")
        #expect {
            _ = try readLines(refused, &framer)
        } throws: { error in
            "\(error)".contains("'NICK justinfan1' is not an HTTP GET: this port speaks IRC over WebSocket")
        }
        #expect(readHead(irc.peer).hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
    }

    @Test("server side: a message over 64 KiB is refused with close 1009 before its payload is read")
    func serverOversize() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        let stream = WebSocketStream(accepting: pair.connection, peer: "socketpair")
        let request =
            "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(sampleKey)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        let header = WebSocketFrameHeader(opcode: .text, payloadLength: 64 * 1024 + 1, maskingKey: key).bytes
        let all = Array(request.utf8) + header
        #expect(write(pair.peer, all, all.count) == all.count)
        var framer = LineFramer()
        #expect {
            _ = try readLines(stream, &framer)
        } throws: { error in
            guard case WebSocketError.protocolViolation(_, let failure) = error else { return false }
            return failure.code == .messageTooBig && "\(error)".contains("a message of more than 65536 bytes")
        }
        _ = readHead(pair.peer)
        let close = readExactly(pair.peer, 4)
        #expect(close.count == 4 && close[0] == 0x88 && close[2] == 0x03 && close[3] == 0xF1, "close 1009")
    }

    @Test("client side: a close frame from the server is answered with a masked close and ends the stream")
    func clientAnswersClose() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        let stream = WebSocketStream(open: pair.connection, role: .client, peer: "socketpair")
        let frames =
            frame(.text, Array(":tmi.twitch.tv PING\r\n".utf8))
            + frame(.close, WebSocketFrame.closePayload(.goingAway, reason: "bye"))
        #expect(write(pair.peer, frames, frames.count) == frames.count)
        var framer = LineFramer()
        let (lines, outcome) = try readLines(stream, &framer)
        #expect(lines == [":tmi.twitch.tv PING"])
        #expect(outcome == .endOfStream)
        #expect(stream.receivedCloseCode == .goingAway && !stream.isOpen)
        let answer = readExactly(pair.peer, 8)
        #expect(answer.count == 8 && answer[0] == 0x88 && answer[1] == 0x82, "a masked close with a code")
        var decoder = WebSocketDecoder(role: .server)
        #expect(decode(answer, with: &decoder).events == [.close(.goingAway)])
    }

    @Test("client side: connect checks the accept value, keeps bytes after the answer, masks what it sends")
    func clientSide() throws {
        let listener = try SocketLoopbackListener()
        defer { listener.close() }
        nonisolated(unsafe) var received: [UInt8] = []
        nonisolated(unsafe) var requestHead = ""
        let server = Thread {
            let fd = listener.accept()
            defer { close(fd) }
            requestHead = readHead(fd)
            let key = requestHead.split(separator: "\r\n").first { $0.hasPrefix("Sec-WebSocket-Key: ") }.map {
                String($0.dropFirst("Sec-WebSocket-Key: ".count))
            }
            let answer =
                Array(WebSocketHandshake.response(accept: WebSocketKeys.accept(forKey: key ?? ""), protocol: nil).utf8)
                + frame(.text, Array(":tmi.twitch.tv 001 justinfan1 :Welcome, GLHF!\r\n".utf8))
            _ = write(fd, answer, answer.count)
            received = readExactly(fd, 2 + 4 + "NICK justinfan1\r\n".utf8.count)
            _ = readExactly(fd, 1)  // until the client closes
        }
        server.start()
        let tcp = try TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        let stream = try WebSocketStream.connect(
            over: tcp, host: "127.0.0.1", port: listener.port, secure: false, peer: "test server")
        var framer = LineFramer()
        var lines: [String] = []
        for _ in 0..<100 where lines.isEmpty {
            lines += try readLines(stream, &framer).0
            usleep(10_000)
        }
        #expect(lines == [":tmi.twitch.tv 001 justinfan1 :Welcome, GLHF!"])
        try stream.enqueue(OutgoingMessage(verb: "NICK", params: ["justinfan1"]))
        #expect(try stream.flush())
        while !server.isFinished && received.isEmpty { usleep(10_000) }
        #expect(requestHead.hasPrefix("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(listener.port)\r\n"))
        #expect(received.count == 23 && received[0] == 0x81 && received[1] == 0x80 | 17, "masked, one frame")
        var server2 = WebSocketDecoder(role: .server)
        #expect(decode(received, with: &server2).text == "NICK justinfan1\r\n")
    }

    @Test("client side: an answer other than 101 is a handshake error naming the status")
    func clientRejected() throws {
        let listener = try SocketLoopbackListener()
        defer { listener.close() }
        let server = Thread {
            let fd = listener.accept()
            _ = readHead(fd)
            let answer = Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".utf8)
            _ = write(fd, answer, answer.count)
            close(fd)
        }
        server.start()
        let tcp = try TCPConnection.connect(host: "127.0.0.1", port: listener.port)
        #expect {
            _ = try WebSocketStream.connect(
                over: tcp, host: "127.0.0.1", port: listener.port, secure: false, peer: "test server")
        } throws: { error in
            "\(error)" == "WebSocket handshake with test server failed: the server answered 'HTTP/1.1 404 Not Found', "
                + "not 101 Switching Protocols"
        }
    }
}
