/// Unicode code point arithmetic over UTF-8 bytes, as Twitch's emote indices need.
///
/// A code point is counted at every byte that is not a continuation byte (`10xxxxxx`). For valid
/// UTF-8 that is exact; invalid bytes count as one code point each, which is what repairing them
/// to U+FFFD at output yields for stray lead and continuation-free bytes.
public enum CodePoints: Sendable {
    /// The number of code points in `bytes[range]`.
    ///
    /// - Complexity: O(`range.count`). - Allocations: none.
    public static func count(in bytes: Span<UInt8>, _ range: ByteRange) -> Int {
        var n = 0
        for i in range.range where bytes[i] & 0xC0 != 0x80 { n += 1 }
        return n
    }

    /// The byte offset (absolute, in `bytes`) of code point number `index` of `bytes[range]`, or
    /// `range.upper` when `index` is at or past the end.
    ///
    /// - Complexity: O(bytes up to that code point). - Allocations: none.
    public static func byteOffset(ofCodePoint index: Int, in bytes: Span<UInt8>, _ range: ByteRange) -> Int {
        var seen = -1
        for i in range.range where bytes[i] & 0xC0 != 0x80 {
            seen += 1
            if seen == index { return i }
        }
        return Int(range.upper)
    }
}
