import ChatFormat
import ChatStore
import ChatTestSupport
import IRCWire
import Testing

/// ``JSONWriter``'s string writers copy what needs no work with word loads (a fast path with tails
/// of its own) and hand the rest to a byte-by-byte slow path. These tests hold the result to the
/// definition — the bytes decoded as `String(decoding:as:)` does (each maximal invalid subpart to
/// U+FFFD), then escaped — at every start and length of random bytes, so that every path and every
/// hand-over between them is compared.
@Suite("JSON strings")
struct JSONStringTests {
    /// The definition: repaired, then escaped as the writer escapes (short forms, else `\u00XX`).
    static func reference(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            switch scalar {
            case "\"": out += Array("\\\"".utf8)
            case "\\": out += Array("\\\\".utf8)
            case "\n": out += Array("\\n".utf8)
            case "\r": out += Array("\\r".utf8)
            case "\t": out += Array("\\t".utf8)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8) + [hex[Int(scalar.value >> 4)], hex[Int(scalar.value & 0xF)]]
            default: out += Array(String(scalar).utf8)
            }
        }
        return out + [UInt8(ascii: "\"")]
    }

    static func written(_ bytes: [UInt8], _ range: Range<Int>) -> [UInt8] {
        var out = JSONWriter(capacity: 64)
        out.string(bytes.span, ByteRange(range))
        return out.bytes
    }

    @Test("raw strings match the definition at every start and length", arguments: [1, 2, 3, 4])
    func everyRange(seed: UInt64) {
        var random = SplitMix64(seed: 0x5EED_0000 + seed)
        // Weighted towards plain ASCII (the fast path) with every kind of byte that stops it.
        let pool: [UInt8] =
            Array("abcdefghijKLMNOP 0123".utf8) + [0x22, 0x5C, 0x0A, 0x09, 0x00, 0x1F, 0x7F, 0x7E, 0x20]
            + [0xC3, 0xA9, 0xE2, 0x9C, 0x93, 0xF0, 0x9F, 0x8E, 0x89, 0x80, 0xBF, 0xC0, 0xED, 0xA0, 0xF4, 0x90, 0xFF]
        for _ in 0..<30 {
            let length = Int(random.next() % 48)
            // Runs of plain text, so that block and word loads and their tails are exercised, not
            // only stops; and plain text with one byte that stops them, so that every range ends at
            // it, starts at it or holds it at every place in a block or a word.
            let mode = random.next() % 3
            var bytes = (0..<length).map { _ in pool[Int(random.next() % UInt64(mode == 1 ? pool.count : 21))] }
            if mode == 2 && length > 0 {
                bytes[Int(random.next() % UInt64(length))] = pool[21 + Int(random.next() % UInt64(pool.count - 21))]
            }
            for lower in 0...length {
                for upper in lower...length {
                    let written = Self.written(bytes, lower..<upper)
                    let expected = Self.reference(bytes[lower..<upper])
                    #expect(written == expected, "bytes \(bytes), range \(lower)..<\(upper)")
                }
            }
        }
    }

    @Test("timestamps match Timestamp.rfc3339 in runs of the same second, across days, and out of range")
    func timestamps() {
        var random = SplitMix64(seed: 0x7135)
        var out = JSONWriter()
        var ms: Int64 = 1_763_700_013_960
        var times: [Int64] = [
            0, -1, -1_000, -999, 999, 1_000, Timestamp.earliest.milliseconds, Timestamp.latest.milliseconds,
            Timestamp.earliest.milliseconds - 1, Timestamp.latest.milliseconds + 1, .min, .max, 86_399_999, 86_400_000,
        ]
        for _ in 0..<3_000 {
            // Mostly small steps (the same second again), sometimes a jump forward or back.
            switch random.next() % 10 {
            case 0: ms = Int64(bitPattern: random.next()) % 300_000_000_000_000
            case 1: ms -= Int64(random.next() % 5_000)
            default: ms += Int64(random.next() % 400)
            }
            times.append(ms)
        }
        for t in times {
            out.reset()
            out.timestamp(Timestamp(milliseconds: t))
            let expected = "\"\(Timestamp(milliseconds: t).rfc3339)\""
            #expect(String(decoding: out.bytes, as: UTF8.self) == expected, "\(t)")
        }
    }

    @Test("strings one after another in an array: separators, and the buffer growing at every length")
    func stringsInAnArray() {
        var random = SplitMix64(seed: 0xA77A)
        let pool: [UInt8] = Array("abcdefghijKLMNOP 0123".utf8) + [0x22, 0x5C, 0x0A, 0x00, 0x7F, 0xC3, 0xA9, 0xFF]
        for _ in 0..<200 {
            // A fresh writer at its smallest capacity (64 bytes), so that strings of every length
            // meet the end of the buffer at every offset; raw strings and tag values alternate.
            var out = JSONWriter(capacity: 1)
            var expected: [UInt8] = [UInt8(ascii: "[")]
            out.beginArray()
            for k in 0..<Int(random.next() % 12) {
                let length = Int(random.next() % 40)
                let plain = random.next() % 3 != 0
                let bytes = (0..<length).map { _ in pool[Int(random.next() % UInt64(plain ? 21 : pool.count))] }
                if k > 0 { expected.append(UInt8(ascii: ",")) }
                if k % 2 == 0 || bytes.contains(UInt8(ascii: "\\")) {
                    out.string(bytes.span, ByteRange(0..<length))
                } else {
                    // A tag value without backslashes unescapes to itself.
                    out.string(bytes.span, tag: TagValue(raw: ByteRange(0..<length)))
                }
                expected += Self.reference(bytes[...])
            }
            out.endArray()
            expected.append(UInt8(ascii: "]"))
            #expect(out.bytes == expected, "\(String(decoding: expected, as: UTF8.self))")
        }
    }

    @Test("a plain string followed by bytes that need escaping: only the string is written")
    func stopsAtTheEnd() {
        let bytes = Array("short\"\\\u{1}tail".utf8)
        #expect(Self.written(bytes, 0..<5) == Array("\"short\"".utf8))
        #expect(Self.written(bytes, 0..<3) == Array("\"sho\"".utf8))
        let long = Array("a plain sentence\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}".utf8)
        #expect(Self.written(long, 0..<16) == Array("\"a plain sentence\"".utf8))
        #expect(Self.written(long, 2..<13) == Array("\"plain sente\"".utf8))
    }
}
