/// Turns UTF-8 bytes into scalars safe to put on a terminal, one byte at a time.
///
/// Invalid UTF-8 is repaired to U+FFFD (one per maximal invalid subpart, as `String(decoding:)`
/// does). Control characters — C0 but tab, DEL and C1, which could drive the terminal (U+009B is a
/// CSI) — come out as `?`; a tab as a space, so that columns stay countable.
public struct UTF8Scalars: Sendable {
    private var value: UInt32 = 0
    private var needed = 0
    private var seen = 0
    private var low: UInt8 = 0x80
    private var high: UInt8 = 0xBF

    public init() {}

    /// Feeds one byte; calls `emit` with each scalar it completes (none, one or two).
    ///
    /// - Complexity: O(1). - Allocations: none.
    public mutating func feed(_ b: UInt8, _ emit: (Unicode.Scalar) -> Void) {
        if needed > 0 {
            let lo: UInt8 = seen == 1 ? low : 0x80
            let hi: UInt8 = seen == 1 ? high : 0xBF
            if b >= lo && b <= hi {
                value = value << 6 | UInt32(b & 0x3F)
                seen += 1
                if seen == needed {
                    needed = 0
                    emit(Self.safe(value))
                }
                return
            }
            needed = 0
            emit(Self.replacement)
        }
        switch b {
        case 0x00...0x7F: emit(Self.safe(UInt32(b)))
        case 0xC2...0xDF: start(UInt32(b & 0x1F), 2, 0x80, 0xBF)
        case 0xE0: start(UInt32(b & 0x0F), 3, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: start(UInt32(b & 0x0F), 3, 0x80, 0xBF)
        case 0xED: start(UInt32(b & 0x0F), 3, 0x80, 0x9F)
        case 0xF0: start(UInt32(b & 0x07), 4, 0x90, 0xBF)
        case 0xF1...0xF3: start(UInt32(b & 0x07), 4, 0x80, 0xBF)
        case 0xF4: start(UInt32(b & 0x07), 4, 0x80, 0x8F)
        default: emit(Self.replacement)
        }
    }

    /// Ends the input: an unfinished sequence becomes U+FFFD.
    public mutating func finish(_ emit: (Unicode.Scalar) -> Void) {
        if needed > 0 {
            needed = 0
            emit(Self.replacement)
        }
    }

    private mutating func start(_ bits: UInt32, _ length: Int, _ low: UInt8, _ high: UInt8) {
        value = bits
        needed = length
        seen = 1
        self.low = low
        self.high = high
    }

    static let replacement: Unicode.Scalar = "\u{FFFD}"

    @inline(__always)
    private static func safe(_ v: UInt32) -> Unicode.Scalar {
        if v == 0x09 { return " " }
        if v < 0x20 || (v >= 0x7F && v < 0xA0) { return "?" }
        // Valid by construction: the decoder rejects surrogates and values past U+10FFFF.
        return Unicode.Scalar(v) ?? replacement
    }
}
