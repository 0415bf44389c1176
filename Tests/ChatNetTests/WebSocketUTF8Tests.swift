import ChatNet
import Foundation
import Glibc
import IRCWire
import Testing
import WebSocketWire

/// RFC 6455 §8.1: text messages and close reasons must be UTF-8; a connection that gets other bytes
/// fails with 1007. Checked by ``UTF8Validator`` as the decoder unmasks.
@Suite(.timeLimit(.minutes(20))) struct WebSocketUTF8Tests {
    /// Valid and invalid byte strings: overlong forms, surrogates, past U+10FFFF, lone and missing
    /// continuation bytes, each also behind 8 and 13 ASCII bytes (the word-at-a-time path).
    static let samples: [[UInt8]] = {
        let cores: [[UInt8]] = [
            Array("plain ascii".utf8), Array("é, €, 𝄞, 日本".utf8), [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80],
            [0xED, 0x9F, 0xBF], [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF],
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
            [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80],
            [0xC2], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xC2, 0x41], [0xE2, 0x28, 0xA1], Array("ok".utf8) + [0xCE],
        ]
        return cores.flatMap { [$0, Array("12345678".utf8) + $0, Array("abcdefghijklm".utf8) + $0 + [0x41]] }
    }()

    static func stdlibValid(_ bytes: [UInt8]) -> Bool { String(validating: bytes, as: UTF8.self) != nil }

    @Test("the validator agrees with the standard library on every sample, split at every point")
    func agreesWithStandardLibrary() {
        for bytes in Self.samples {
            for split in 0...bytes.count {
                var validator = UTF8Validator()
                var buffer = bytes
                let bad = buffer.withUnsafeMutableBytes { raw in
                    validator.check(raw, start: 0, count: split)
                        ?? validator.check(raw, start: split, count: bytes.count - split).map { $0 + split }
                }
                let valid = bad == nil && validator.isAtBoundary
                #expect(valid == Self.stdlibValid(bytes), "\(bytes) split at \(split)")
                if let bad { #expect(bad < bytes.count, "\(bytes) split at \(split)") }
            }
            #expect(UTF8Validator.isValid(bytes.span) == Self.stdlibValid(bytes), "\(bytes)")
        }
    }

    @Test("the byte found invalid: after the valid prefix, ASCII words skipped whole")
    func offsetOfFailure() {
        var buffer = Array("0123456789abcdef".utf8) + [0xC3, 0xA9, 0xFF] + Array("tail".utf8)
        var validator = UTF8Validator()
        #expect(buffer.withUnsafeMutableBytes { validator.check($0, start: 0, count: $0.count) } == 18)
    }

    @Test("a text message that is not UTF-8 fails with 1007; the bytes before it are still output")
    func invalidText() {
        var decoder = WebSocketDecoder(role: .client)
        let decoded = decode(
            frame(.text, Array("good line\r\nbad ".utf8) + [0xC3, 0x28] + Array("\r\n".utf8)), with: &decoder)
        #expect(
            failure(decoded)
                == WebSocketFailure(code: .invalidPayload, reason: "a text message that is not UTF-8 (RFC 6455 8.1)"))
        #expect(failure(decoded)?.code.rawValue == 1007)
        #expect(decoded.bytes == Array("good line\r\nbad ".utf8) + [0xC3], "up to the byte found invalid")
        #expect(decoder.isClosed)

        var server = WebSocketDecoder(role: .server)
        let masked = decode(frame(.text, [0x41, 0xED, 0xA0, 0x80], key: key), with: &server)
        #expect(failure(masked)?.code == .invalidPayload, "a surrogate, unmasked first")
        #expect(masked.bytes == [0x41, 0xED])
    }

    @Test("a code point split across fragments and reads is whole; a message ending inside one fails with 1007")
    func splitCodePoints() {
        let clef: [UInt8] = Array("𝄞".utf8)
        let fragments =
            frame(.text, Array("a".utf8) + clef[..<1], fin: false, key: key)
            + frame(.continuation, Array(clef[1..<3]), fin: false, key: key)
            + frame(.continuation, Array(clef[3...]) + Array("\r\n".utf8), key: key)
        for chunks in [[], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [7, 3, 9]] {
            var decoder = WebSocketDecoder(role: .server)
            let decoded = decode(fragments, with: &decoder, chunks: chunks)
            #expect(decoded.events.isEmpty, "chunks \(chunks)")
            #expect(decoded.text == "a𝄞\r\n")
        }
        var decoder = WebSocketDecoder(role: .server)
        let cut = decode(frame(.text, Array("b".utf8) + clef[..<2], key: key), with: &decoder)
        #expect(
            failure(cut)
                == WebSocketFailure(
                    code: .invalidPayload, reason: "a text message that ends inside a UTF-8 sequence (RFC 6455 8.1)"))
    }

    @Test("binary messages are not checked; a close reason that is not UTF-8 fails with 1007")
    func binaryAndCloseReason() {
        var decoder = WebSocketDecoder(role: .client)
        #expect(decode(frame(.binary, [0x41, 0xFF, 0x0A]), with: &decoder).events.isEmpty)
        let close = decode(frame(.close, [0x03, 0xE8, 0x41, 0xFF]), with: &decoder)
        #expect(
            failure(close)
                == WebSocketFailure(code: .invalidPayload, reason: "a close reason that is not UTF-8 (RFC 6455 8.1)"))
        var fine = WebSocketDecoder(role: .client)
        #expect(decode(frame(.close, [0x03, 0xE8] + Array("bientôt".utf8)), with: &fine).events == [.close(.normal)])
    }

    @Test(
        "server side: a client's text that is not UTF-8 gets close 1007 and a thrown error, after the lines before it")
    func serverFailsWith1007() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        let stream = WebSocketStream(open: pair.connection, role: .server, peer: "socketpair")
        let bad = frame(.text, Array("NICK justinfan1\r\nJOIN #caf".utf8) + [0xC3, 0x28] + [0x0D, 0x0A], key: key)
        #expect(write(pair.peer, bad, bad.count) == bad.count)
        var framer = LineFramer()
        #expect(try stream.read(into: &framer) == .bytes(27), "the bytes before the bad one")
        var lines: [String] = []
        while case .line(let line)? = framer.nextLine() {
            lines.append(
                framer.withBytes(of: line) { b in String(decoding: (0..<b.count).map { b[$0] }, as: UTF8.self) })
        }
        #expect {
            _ = try stream.read(into: &framer)
        } throws: { error in
            guard case WebSocketError.protocolViolation(_, let failure) = error else { return false }
            return failure.code == .invalidPayload
        }
        #expect(lines == ["NICK justinfan1"], "the line before the bad byte is kept")
        #expect(framer.pendingByteCount == "JOIN #caf".utf8.count + 1, "the cut line waits, reported at the close")
        let close = readExactly(pair.peer, 4)
        #expect(close.count == 4 && close[0] == 0x88 && close[2] == 0x03 && close[3] == 0xEF, "close 1007: \(close)")
    }

    @Test("server side: lines that are not UTF-8 go out as a binary frame, byte for byte; UTF-8 ones as text")
    func serverSendsBinaryForInvalidText() throws {
        let pair = try SocketPairFixture()
        defer { pair.closePeer() }
        let stream = WebSocketStream(open: pair.connection, role: .server, peer: "socketpair")
        let bad: [UInt8] = Array(":a PRIVMSG #c :caf".utf8) + [0xFF]
        stream.enqueue(line: bad.span)
        #expect(try stream.flush())
        #expect(readExactly(pair.peer, 2 + bad.count + 2) == [0x82, UInt8(bad.count + 2)] + bad + [0x0D, 0x0A])
        let good: [UInt8] = Array(":a PRIVMSG #c :café".utf8)
        stream.enqueue(line: good.span)
        #expect(try stream.flush())
        #expect(readExactly(pair.peer, 2 + good.count + 2) == [0x81, UInt8(good.count + 2)] + good + [0x0D, 0x0A])
    }
}
