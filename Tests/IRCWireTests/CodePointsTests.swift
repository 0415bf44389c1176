import ChatTestSupport
import IRCWire
import Testing

/// ``CodePoints/count(in:_:)`` and ``CodePoints/byteOffset(ofCodePoint:in:_:)`` read eight bytes a
/// step; these tests hold them to the definition (one code point per byte that is not `10xxxxxx`),
/// byte by byte, at every start and length.
@Suite("Code points")
struct CodePointsTests {
    /// The definition, one byte at a time.
    static func reference(_ bytes: [UInt8], _ range: Range<Int>) -> Int {
        bytes[range].filter { $0 & 0xC0 != 0x80 }.count
    }

    @Test("count agrees with the byte-by-byte definition at every start and length")
    func everyRange() {
        var random = SplitMix64(seed: 0xC0DE_9017)
        // Bytes weighted towards the cases that matter: ASCII, continuation bytes, lead bytes.
        let pool: [UInt8] = [0x41, 0x7A, 0x20, 0x80, 0xBF, 0x9F, 0xC3, 0xE2, 0xF0, 0xFF, 0xC0, 0x7F]
        for _ in 0..<40 {
            let length = Int(random.next() % 70)
            let bytes = (0..<length).map { _ in pool[Int(random.next() % UInt64(pool.count))] }
            for lower in 0...length {
                for upper in lower...length {
                    let range = ByteRange(lower..<upper)
                    #expect(
                        CodePoints.count(in: bytes.span, range) == Self.reference(bytes, lower..<upper),
                        "bytes \(bytes), range \(lower)..<\(upper)")
                }
            }
        }
    }

    /// The definition of a code point's byte offset, one byte at a time (the walk before words).
    static func referenceOffset(_ bytes: [UInt8], _ index: Int, _ range: Range<Int>) -> Int {
        var seen = -1
        for i in range where bytes[i] & 0xC0 != 0x80 {
            seen += 1
            if seen == index { return i }
        }
        return range.upperBound
    }

    @Test("byteOffset agrees with the byte-by-byte definition at every start, length and index")
    func everyOffset() {
        var random = SplitMix64(seed: 0x0FF5_E7)
        let pool: [UInt8] = [0x41, 0x7A, 0x20, 0x80, 0xBF, 0x9F, 0xC3, 0xE2, 0xF0, 0xFF, 0xC0, 0x7F]
        for _ in 0..<30 {
            let length = Int(random.next() % 40)
            // Half the inputs plain ASCII with a few continuation bytes: long runs of whole words.
            let plain = random.next() % 2 == 0
            let bytes = (0..<length).map { _ in
                pool[Int(random.next() % UInt64(plain && random.next() % 8 != 0 ? 3 : pool.count))]
            }
            for lower in 0...length {
                for upper in lower...length {
                    for index in -1...(upper - lower + 1) {
                        #expect(
                            CodePoints.byteOffset(ofCodePoint: index, in: bytes.span, ByteRange(lower..<upper))
                                == Self.referenceOffset(bytes, index, lower..<upper),
                            "bytes \(bytes), range \(lower)..<\(upper), index \(index)")
                    }
                }
            }
        }
    }

    @Test("byteOffset in real text: each code point's first byte, the end past the last")
    func offsetsInRealText() {
        let text = Array("héllo ✓ 🎉 Kappa and more text past a word".utf8)
        let range = ByteRange(0..<text.count)
        #expect(CodePoints.byteOffset(ofCodePoint: 0, in: text.span, range) == 0)
        #expect(CodePoints.byteOffset(ofCodePoint: 2, in: text.span, range) == 3)  // after the 2 bytes of é
        #expect(CodePoints.byteOffset(ofCodePoint: 8, in: text.span, range) == 11)  // 🎉, after ✓'s 3 bytes
        #expect(CodePoints.byteOffset(ofCodePoint: 10, in: text.span, range) == 16)  // K, after 🎉's 4 bytes
        #expect(CodePoints.byteOffset(ofCodePoint: 40, in: text.span, range) == text.count - 1)
        #expect(CodePoints.byteOffset(ofCodePoint: 41, in: text.span, range) == text.count)
    }

    @Test("count of real text: ASCII, two-, three- and four-byte sequences")
    func realText() {
        let text = Array("héllo ✓ 🎉 Kappa".utf8)
        #expect(CodePoints.count(in: text.span, ByteRange(0..<text.count)) == 15)
        #expect(CodePoints.count(in: text.span, ByteRange(0..<2)) == 2)  // "h" and the lead of "é"
        let all = Array(repeating: UInt8(0x80), count: 17)
        #expect(CodePoints.count(in: all.span, ByteRange(0..<17)) == 0)
    }
}
