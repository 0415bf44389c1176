import ChatNet
import Foundation
import Testing
import WebSocketWire

/// What decoding some frame bytes produced: the message bytes and the events, in order.
struct Decoded: Equatable {
    var bytes: [UInt8] = []
    var events: [WebSocketEvent] = []
    /// The payload of each control frame, in order.
    var controlPayloads: [[UInt8]] = []
    var text: String { String(decoding: bytes, as: UTF8.self) }
}

/// Feeds `frames` to `decoder` in chunks of the given sizes (the rest as one chunk), each chunk in its
/// own buffer with one spare byte, as a stream does with its reads.
func decode(_ frames: [UInt8], with decoder: inout WebSocketDecoder, chunks: [Int] = []) -> Decoded {
    var result = Decoded()
    var offset = 0
    var sizes = chunks
    while offset < frames.count {
        let size = sizes.isEmpty ? frames.count - offset : min(sizes.removeFirst(), frames.count - offset)
        var buffer = Array(frames[offset..<offset + size]) + [0]
        offset += size
        buffer.withUnsafeMutableBytes { raw in
            var input = 0
            var output = 0
            while let event = decoder.decode(raw, input: &input, end: size, output: &output) {
                result.events.append(event)
                result.controlPayloads.append(decoder.withControlPayload { p in (0..<p.count).map { p[$0] } })
            }
            result.bytes += raw[..<output]
        }
    }
    return result
}

func frame(
    _ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, key: WebSocketMaskingKey? = nil
) -> [UInt8] {
    var out: [UInt8] = []
    WebSocketFrame.append(opcode: opcode, payload: payload.span, maskingKey: key, fin: fin, to: &out)
    return out
}

func failure(_ decoded: Decoded) -> WebSocketFailure? {
    for case .failure(let f) in decoded.events { return f }
    return nil
}

let key = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)

@Suite struct WebSocketCodecTests {
    @Test("Sec-WebSocket-Accept for RFC 6455's example key, by OpenSSL's SHA-1 and base64")
    func acceptValue() {
        #expect(WebSocketKeys.accept(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(WebSocketHandshake.acceptSource(forKey: "k") == "k258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
        let a = WebSocketKeys.newKey()
        let b = WebSocketKeys.newKey()
        #expect(a.utf8.count == 24 && a.hasSuffix("==") && a != b)
    }

    @Test("RFC 6455 5.7's examples: a masked and an unmasked 'Hello', and a fragmented one")
    func rfcExamples() {
        let masked: [UInt8] = [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        #expect(frame(.text, Array("Hello".utf8), key: key) == masked)
        var server = WebSocketDecoder(role: .server)
        #expect(decode(masked, with: &server) == Decoded(bytes: Array("Hello\n".utf8)))

        let unmasked: [UInt8] = [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
        #expect(frame(.text, Array("Hello".utf8)) == unmasked)
        var client = WebSocketDecoder(role: .client)
        #expect(decode(unmasked, with: &client).bytes == Array("Hello\n".utf8))

        let fragmented: [UInt8] = [0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F]
        client = WebSocketDecoder(role: .client)
        let decoded = decode(fragmented, with: &client)
        #expect(decoded.bytes == Array("Hello\n".utf8))
        #expect(client.frameCount == 2 && client.messageCount == 1)
    }

    @Test("lines in frames come out byte for byte: several lines a frame, CR LF kept, no LF added after one")
    func linesPassThrough() {
        let lines = "@id=1 :a!a@a PRIVMSG #c :one\r\n:tmi.twitch.tv PING\r\n"
        var client = WebSocketDecoder(role: .client)
        let decoded = decode(frame(.text, Array(lines.utf8)) + frame(.binary, Array("PONG\r\n".utf8)), with: &client)
        #expect(decoded.text == lines + "PONG\r\n")
        #expect(decoded.events.isEmpty)
        #expect(client.messageCount == 2)
    }

    @Test("a line split over three fragments with a ping and a pong between them: one line, two events")
    func controlFramesBetweenFragments() {
        var server = WebSocketDecoder(role: .server)
        let frames =
            frame(.text, Array("NICK ju".utf8), fin: false, key: key)
            + frame(.ping, Array("are you there".utf8), key: key)
            + frame(.continuation, Array("stinfan".utf8), fin: false, key: WebSocketMaskingKey(1, 2, 3, 4))
            + frame(.pong, [], key: key)
            + frame(.continuation, Array("123".utf8), key: key)
            + frame(.text, Array("JOIN #c".utf8), key: key)
        for chunks in [[], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [3, 7, 2, 11, 5, 13]] {
            var decoder = server
            let decoded = decode(frames, with: &decoder, chunks: chunks)
            #expect(decoded.text == "NICK justinfan123\nJOIN #c\n", "chunks \(chunks)")
            #expect(decoded.events == [.ping, .pong], "chunks \(chunks)")
            #expect(decoded.controlPayloads == [Array("are you there".utf8), []])
            #expect(decoder.frameCount == 6 && decoder.messageCount == 2)
        }
        _ = decode([], with: &server)
    }

    @Test("16-bit and 64-bit payload lengths: minimal headers, decoded whole in any chunking")
    func extendedLengths() {
        #expect(WebSocketFrameHeader(opcode: .text, payloadLength: 125).bytes == [0x81, 125])
        #expect(WebSocketFrameHeader(opcode: .text, payloadLength: 126).bytes == [0x81, 126, 0x00, 126])
        #expect(WebSocketFrameHeader(opcode: .text, payloadLength: 65_535).bytes == [0x81, 126, 0xFF, 0xFF])
        #expect(
            WebSocketFrameHeader(opcode: .binary, payloadLength: 65_536).bytes == [0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0])
        #expect(
            WebSocketFrameHeader(fin: false, opcode: .text, payloadLength: 300, maskingKey: key).bytes
                == [0x01, 0xFE, 0x01, 0x2C, 0x37, 0xFA, 0x21, 0x3D])

        var text = ""
        var n = 0
        while text.utf8.count < 70_000 {
            text += "@id=\(n) :u!u@u PRIVMSG #c :line \(n)\r\n"
            n += 1
        }
        // 1,000 bytes ending mid-line: the message gets an LF.
        let medium = Array(text.utf8.prefix(1_000))
        let large = Array(text.utf8)
        for role in [WebSocketRole.client, .server] {
            let mask = role == .server ? key : nil
            var decoder = WebSocketDecoder(role: role)
            let frames = frame(.text, medium, key: mask) + frame(.text, large, key: mask)
            #expect(frames.count == 4 + medium.count + 10 + large.count + (mask == nil ? 0 : 8))
            let decoded = decode(frames, with: &decoder, chunks: [2, 1, 500, 4095, 3, 65_536, 17])
            #expect(decoded.bytes.count == medium.count + 1 + large.count)
            #expect(decoded.bytes == medium + [0x0A] + large, "(compared as a whole)")
            #expect(decoder.messageCount == 2)
        }
    }

    @Test("a message over the limit is refused with 1009, whole or fragmented, before its payload comes")
    func oversize() {
        var decoder = WebSocketDecoder(role: .client, maxMessageLength: 100)
        #expect(decode(frame(.text, [UInt8](repeating: 0x41, count: 100)), with: &decoder).events.isEmpty)
        let header = WebSocketFrameHeader(opcode: .text, payloadLength: 101).bytes
        let refused = decode(header, with: &decoder)
        #expect(failure(refused)?.code == .messageTooBig)
        #expect(failure(refused)?.code.rawValue == 1009)
        #expect(decoder.isClosed)
        #expect(decode(Array("more".utf8), with: &decoder) == Decoded(), "nothing is taken after a failure")

        decoder = WebSocketDecoder(role: .client, maxMessageLength: 100)
        let fragments =
            frame(.text, [UInt8](repeating: 0x41, count: 60), fin: false)
            + frame(.continuation, [UInt8](repeating: 0x42, count: 41))
        let decoded = decode(fragments, with: &decoder)
        #expect(decoded.bytes == [UInt8](repeating: 0x41, count: 60))
        #expect(
            failure(decoded)
                == WebSocketFailure(
                    code: .messageTooBig, reason: "a message of more than 100 bytes (a frame of 41 bytes after 60)"))
    }

    @Test("an unmasked frame from a client and a masked one from a server are refused with 1002")
    func maskingRequired() {
        var server = WebSocketDecoder(role: .server)
        let unmasked = decode(frame(.text, Array("NICK a\r\n".utf8)), with: &server)
        #expect(unmasked.bytes.isEmpty)
        #expect(failure(unmasked)?.code == .protocolError)
        #expect(failure(unmasked)?.reason.contains("unmasked frame from the client") == true)

        var client = WebSocketDecoder(role: .client)
        let masked = decode(frame(.text, Array("PING\r\n".utf8), key: key), with: &client)
        #expect(failure(masked)?.code == .protocolError)
        #expect(failure(masked)?.reason.contains("masked frame from the server") == true)
    }

    @Test("broken frames are refused with 1002, each with its reason")
    func protocolErrors() {
        let cases: [([UInt8], String)] = [
            ([0xC1, 0x00], "reserved bits"),
            ([0x83, 0x00], "unknown opcode 3"),
            ([0x09, 0x00], "fragmented control frame"),
            ([0x89, 0x7E, 0x00, 0x7E], "control frame of 126 bytes"),
            ([0x80, 0x00], "continuation frame without a message"),
            ([0x01, 0x01, 0x41, 0x81, 0x00], "new message began before the fragmented one ended"),
            ([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], "most significant bit"),
            ([0x88, 0x01, 0x03], "1-byte payload"),
            ([0x88, 0x02, 0x03, 0xED], "close code 1005 is not allowed"),
        ]
        for (bytes, reason) in cases {
            var decoder = WebSocketDecoder(role: .client)
            let f = failure(decode(bytes, with: &decoder))
            #expect(f?.code == .protocolError, "\(bytes)")
            #expect(f?.reason.contains(reason) == true, "\(bytes): \(f?.reason ?? "no failure")")
        }
    }

    @Test("a close frame's code and reason; nothing is decoded after it")
    func closeFrame() {
        var decoder = WebSocketDecoder(role: .client)
        let close = frame(.close, WebSocketFrame.closePayload(.goingAway, reason: "server restart"))
        let decoded = decode(
            frame(.text, Array("a\r\n".utf8)) + close + frame(.text, Array("b\r\n".utf8)), with: &decoder)
        #expect(decoded.text == "a\r\n")
        #expect(decoded.events == [.close(.goingAway)])
        #expect(decoder.closeReason == "server restart")
        #expect(decoder.isClosed)

        var empty = WebSocketDecoder(role: .client)
        #expect(decode([0x88, 0x00], with: &empty).events == [.close(nil)])
        // A reason is cut to 123 bytes, never inside a UTF-8 sequence.
        let long = WebSocketFrame.closePayload(.normal, reason: String(repeating: "é", count: 100))
        #expect(long.count == 124 && String(decoding: long[2...], as: UTF8.self) == String(repeating: "é", count: 61))
    }

    @Test("the upgrade request: built as tmi.js sends it, parsed, answered; bad ones refused with a status")
    func handshake() throws {
        let request = WebSocketHandshake.request(
            host: "irc-ws.chat.twitch.tv", port: 443, secure: true, path: "/", key: "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(
            request
                == "GET / HTTP/1.1\r\nHost: irc-ws.chat.twitch.tv\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        #expect(
            WebSocketHandshake.request(host: "127.0.0.1", port: 8080, secure: false, path: "/", key: "k").contains(
                "Host: 127.0.0.1:8080\r\n"))
        let head = Array(request.utf8)
        #expect(WebSocketHandshake.headEnd(in: (head + Array("rest".utf8)).span) == head.count)
        let parsed = try WebSocketHandshake.parseRequest(head.span)
        #expect(parsed == WebSocketUpgradeRequest(path: "/", key: "dGhlIHNhbXBsZSBub25jZQ==", protocols: []))
        #expect(parsed.chosenProtocol == nil)

        let withIRC = request.replacingOccurrences(
            of: "\r\n\r\n", with: "\r\nSec-WebSocket-Protocol: chat, IRC\r\n\r\n")
        #expect(try WebSocketHandshake.parseRequest(Array(withIRC.utf8).span).chosenProtocol == "IRC")

        let response = WebSocketHandshake.response(accept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", protocol: "irc")
        #expect(
            response
                == "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: irc\r\n\r\n")
        #expect(
            try WebSocketHandshake.checkResponse(
                Array(response.utf8).span, expectedAccept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", offered: ["irc"]) == "irc")
        #expect(throws: WebSocketHandshakeError.wrongAccept(got: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", expected: "x")) {
            try WebSocketHandshake.checkResponse(Array(response.utf8).span, expectedAccept: "x", offered: ["irc"])
        }
        #expect(throws: WebSocketHandshakeError.rejected(status: "HTTP/1.1 404 Not Found")) {
            try WebSocketHandshake.checkResponse(Array("HTTP/1.1 404 Not Found\r\n\r\n".utf8).span, expectedAccept: "x")
        }

        let version8 = request.replacingOccurrences(of: "Version: 13", with: "Version: 8")
        #expect(throws: WebSocketHandshakeError.unsupportedVersion("8")) {
            try WebSocketHandshake.parseRequest(Array(version8.utf8).span)
        }
        #expect(WebSocketHandshake.rejection(.unsupportedVersion("8")).hasPrefix("HTTP/1.1 426 Upgrade Required\r\n"))
        let noKey = request.replacingOccurrences(of: "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n", with: "")
        #expect(throws: WebSocketHandshakeError.badRequest("no Sec-WebSocket-Key of 16 bytes in base64")) {
            try WebSocketHandshake.parseRequest(Array(noKey.utf8).span)
        }
    }
}
