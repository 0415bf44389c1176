import Testing

@testable import IRCWire

/// ``ByteScan`` (32 bytes per step, then words, then bytes) against a plain loop: every start and
/// end around the 8-, 16-, 32- and 64-byte boundaries, matches at every offset, bytes that differ
/// from the one sought in a single bit, and ranges that end at the last readable byte.
@Suite struct ByteScanTests {
    /// The plain loop.
    static func reference(_ bytes: [UInt8], _ byte: UInt8, from: Int, to end: Int) -> Int? {
        (from..<end).first { bytes[$0] == byte }
    }

    @Test("every start, end and match position up to 200 bytes, for LF, space, NUL and 0xFF")
    func everyOffset() {
        for byte: UInt8 in [0x0A, 0x20, 0x00, 0xFF] {
            // Neighbours that a word or vector trick could take for the byte.
            let decoys: [UInt8] = [byte ^ 0x80, byte ^ 0x01, byte &+ 1, byte &- 1, 0x00, 0xFF].filter { $0 != byte }
            for length in [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200] {
                var bytes = (0..<length).map { decoys[$0 % decoys.count] }
                for position in [nil] + Array(0..<length) {
                    if let position { bytes[position] = byte }
                    defer { if let position { bytes[position] = decoys[position % decoys.count] } }
                    for from in Set([0, 1, 7, 8, 15, 16, 17, 63, 64, 65, length / 2, length].filter { $0 <= length }) {
                        for end in Set([
                            from, length, max(from, length - 1), min(length, from + 16), min(length, from + 64),
                        ]) {
                            #expect(
                                ByteScan.firstIndex(of: byte, in: bytes.span, from: from, to: end)
                                    == Self.reference(bytes, byte, from: from, to: end),
                                "byte \(byte), length \(length), match \(String(describing: position)), \(from)..<\(end)"
                            )
                        }
                    }
                }
            }
        }
    }

    @Test("firstControlByte: the first byte below 14, every start, end and position up to 200 bytes")
    func controlBytes() {
        // Every byte below 14 is a match; 14, 0x7F, 0x80 and 0xFF (just past it, and bytes a signed or
        // word trick could take for small ones) are not.
        let decoys: [UInt8] = [0x0E, 0x41, 0x7F, 0x80, 0x8D, 0xFF, 0x20]
        for byte: UInt8 in [0x00, 0x01, 0x09, 0x0A, 0x0C, 0x0D] {
            for length in [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200] {
                var bytes = (0..<length).map { decoys[$0 % decoys.count] }
                for position in [nil] + Array(0..<length) {
                    if let position { bytes[position] = byte }
                    defer { if let position { bytes[position] = decoys[position % decoys.count] } }
                    for from in Set(
                        [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, length / 2, length].filter {
                            $0 <= length
                        })
                    {
                        for end in Set([
                            from, length, max(from, length - 1), min(length, from + 32), min(length, from + 64),
                        ]) {
                            let expected = (from..<end).first { bytes[$0] < 0x0E }
                            #expect(
                                ByteScan.firstControlByte(in: bytes.span, from: from, to: end) == expected,
                                "byte \(byte), length \(length), match \(String(describing: position)), \(from)..<\(end)"
                            )
                        }
                    }
                }
            }
        }
    }

    @Test("the first of several matches, the second one at every distance after it")
    func firstOfSeveral() {
        for first in 0..<80 {
            for gap in 1..<70 {
                var bytes = [UInt8](repeating: 0x41, count: 160)
                bytes[first] = 0x0A
                if first + gap < bytes.count { bytes[first + gap] = 0x0A }
                #expect(ByteScan.firstIndex(of: 0x0A, in: bytes.span) == first, "\(first), \(gap)")
                #expect(
                    ByteScan.firstIndex(of: 0x0A, in: bytes.span, from: first + 1, to: bytes.count)
                        == (first + gap < bytes.count ? first + gap : nil))
            }
        }
    }

    @Test("a range that ends at the last readable byte: no read past it")
    func noOverRead() throws {
        for length in 0..<150 {
            var bytes = [UInt8](repeating: 0x41, count: length)
            try TagScanTests.withBytesAtPageEnd(bytes) { span in
                #expect(ByteScan.firstIndex(of: 0x0A, in: span) == nil, "\(length)")
            }
            if length > 0 {
                bytes[length - 1] = 0x0A
                try TagScanTests.withBytesAtPageEnd(bytes) { span in
                    #expect(ByteScan.firstIndex(of: 0x0A, in: span) == length - 1, "\(length)")
                }
            }
        }
    }
}
