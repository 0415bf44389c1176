import ChatTestSupport
import IRCWire
import Testing

/// ``CodePoints/count(in:_:)`` reads eight bytes a step; these tests hold it to the definition (one
/// code point per byte that is not `10xxxxxx`), byte by byte, at every start and length.
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

    @Test("count of real text: ASCII, two-, three- and four-byte sequences")
    func realText() {
        let text = Array("héllo ✓ 🎉 Kappa".utf8)
        #expect(CodePoints.count(in: text.span, ByteRange(0..<text.count)) == 15)
        #expect(CodePoints.count(in: text.span, ByteRange(0..<2)) == 2)  // "h" and the lead of "é"
        let all = Array(repeating: UInt8(0x80), count: 17)
        #expect(CodePoints.count(in: all.span, ByteRange(0..<17)) == 0)
    }
}
