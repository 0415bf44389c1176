import IRCWire
import Testing

/// `Span<UInt8>.equals(_: StaticString)` compares words; every length from 0 to 20 bytes, with a
/// difference at each position, inside a larger buffer (bytes around the range must not count).
@Suite("Span equals a literal")
struct SpanEqualsTests {
    static let literals: [StaticString] = [
        "", "P", "PI", "CAP", "PING", "NOTICE", "PRIVMSG", "CLEARMSG", "CLEARCHAT", "USERNOTICE", "abcdefghijk",
        "abcdefghijkl", "abcdefghijklm", "abcdefghijklmn", "GLOBALUSERSTATE", "abcdefghijklmnop",
        "abcdefghijklmnopq", "abcdefghijklmnopqr", "abcdefghijklmnopqrs", "abcdefghijklmnopqrst", "ab",
        "abcde", "abcdef", "emotesv2_0123456789abcdef",
    ]

    @Test("equal bytes are equal; a byte changed anywhere, or one more or fewer, is not")
    func everyPosition() {
        var failures: [String] = []
        for literal in Self.literals {
            let text = literal.withUTF8Buffer { Array($0) }
            let n = text.count
            // The literal inside a buffer with bytes before and after it.
            let buffer = Array("xx".utf8) + text + Array("yy".utf8)
            let range = ByteRange(2..<(2 + n))
            if !buffer.span.equals(literal, at: range) { failures.append("\(literal): equal bytes") }
            if !text.span.equals(literal) { failures.append("\(literal): the bytes alone") }
            for i in 0..<n {
                var changed = buffer
                changed[2 + i] ^= 0x20
                if changed.span.equals(literal, at: range) { failures.append("\(literal): byte \(i) changed") }
                changed[2 + i] ^= 0x20 ^ 0x01
                if changed.span.equals(literal, at: range) { failures.append("\(literal): byte \(i) low bit") }
            }
            if n > 0, buffer.span.equals(literal, at: ByteRange(2..<(1 + n))) { failures.append("\(literal): shorter") }
            if buffer.span.equals(literal, at: ByteRange(2..<(3 + n))) { failures.append("\(literal): longer") }
            if n > 0, buffer.span.equals(literal, at: ByteRange(1..<(1 + n))) { failures.append("\(literal): shifted") }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }
}
