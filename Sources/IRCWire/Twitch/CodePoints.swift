/// Unicode code point arithmetic over UTF-8 bytes, as Twitch's emote indices need.
///
/// A code point is counted at every byte that is not a continuation byte (`10xxxxxx`). For valid
/// UTF-8 that is exact; invalid bytes count as one code point each, which is what repairing them
/// to U+FFFD at output yields for stray lead and continuation-free bytes.
public enum CodePoints: Sendable {
    /// The number of code points in `bytes[range]`.
    ///
    /// Eight bytes per step: a continuation byte has its top bit set and the next one clear, so
    /// `w & ~(w << 1)` keeps bit 7 of exactly those bytes, and a population count counts them.
    ///
    /// - Complexity: O(`range.count`). - Allocations: none.
    public static func count(in bytes: Span<UInt8>, _ range: ByteRange) -> Int {
        let lower = Int(range.lower)
        let upper = Int(range.upper)
        precondition(lower <= upper && upper <= bytes.count, "range outside the span")
        // SAFETY: every word load reads `i ..< i + 8` with `i + 8 <= upper <= bytes.count`, and every
        // byte read is below `upper`.
        let continuations = unsafe bytes.withUnsafeBytes { raw -> Int in
            var i = lower
            var n = 0
            while i &+ 8 <= upper {
                let w = unsafe raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                n &+= (w & ~(w &<< 1) & ByteScan.highs).nonzeroBitCount
                i &+= 8
            }
            while i < upper {
                if unsafe raw[i] & 0xC0 == 0x80 { n &+= 1 }
                i &+= 1
            }
            return n
        }
        return upper - lower - continuations
    }

    /// The byte offset (absolute, in `bytes`) of code point number `index` of `bytes[range]`, or
    /// `range.upper` when `index` is at or past the end.
    ///
    /// Whole words before the one that holds the code point are counted as ``count(in:_:)`` counts
    /// (eight bytes, one population count); that word and the rest are walked byte by byte.
    ///
    /// - Complexity: O(bytes up to that code point). - Allocations: none.
    public static func byteOffset(ofCodePoint index: Int, in bytes: Span<UInt8>, _ range: ByteRange) -> Int {
        let lower = Int(range.lower)
        let upper = Int(range.upper)
        precondition(lower <= upper && upper <= bytes.count, "range outside the span")
        // SAFETY: every word load reads `i ..< i + 8` with `i + 8 <= upper <= bytes.count`, and every
        // byte read is below `upper`.
        return unsafe bytes.withUnsafeBytes { raw -> Int in
            // Code points that start before byte `i`.
            var seen = 0
            var i = lower
            while i &+ 8 <= upper {
                let w = unsafe raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let starts = 8 &- (w & ~(w &<< 1) & ByteScan.highs).nonzeroBitCount
                if seen &+ starts > index { break }  // code point `index` starts in this word
                seen &+= starts
                i &+= 8
            }
            while i < upper {
                if unsafe raw[i] & 0xC0 != 0x80 {
                    if seen == index { return i }
                    seen &+= 1
                }
                i &+= 1
            }
            return upper
        }
    }
}
