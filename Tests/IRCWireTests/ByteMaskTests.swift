import Testing

@testable import IRCWire

/// ``ByteMask`` against a plain loop: bit `k` is byte `k`, for every byte value at every place of a
/// block, so a wrong lane order, a signed compare or a lost compare shows as a wrong bit.
@Suite struct ByteMaskTests {
    /// The mask a plain loop makes of `bytes[0 ..< n]`.
    static func reference(_ bytes: [UInt8], _ n: Int, _ hit: (UInt8) -> Bool) -> UInt64 {
        (0..<n).reduce(0) { hit(bytes[$1]) ? $0 | 1 << UInt64($1) : $0 }
    }

    @Test("equal64, equal32 and below32: every byte value at every place, over a background of each other value")
    func everyByteEverywhere() {
        let (a, b, c) = (UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "="))
        for background: UInt8 in [0x00, 0x0D, 0x0E, 0x3B ^ 0x80, 0x7F, 0x80, 0xFF] {
            for place in 0..<64 {
                for value in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: background, count: 64)
                    bytes[place] = value
                    bytes.withUnsafeBytes { raw in
                        let p = raw.baseAddress!
                        let any = unsafe ByteMask.equal64(p, a, b, c)
                        #expect(any == Self.reference(bytes, 64) { $0 == a || $0 == b || $0 == c })
                        guard place < 32 else { return }
                        let one = unsafe ByteMask.equal32(p, value)
                        #expect(UInt64(one) == Self.reference(bytes, 32) { $0 == value })
                        let low = unsafe ByteMask.below32(p, 0x0E)
                        #expect(UInt64(low) == Self.reference(bytes, 32) { $0 < 0x0E })
                    }
                }
            }
        }
    }
}
