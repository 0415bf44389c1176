/// Word-at-a-time byte search over a `Span`, the one hot loop the framer and parser share.
///
/// Scans 32 bytes per step with one vector compare (the standard library's `SIMD32`) until a block
/// holds a match, then eight bytes per step with the classic "has zero byte" bit trick (SWAR), which
/// keeps the framer and parser close to `memchr` without leaving the standard library.
#if _endian(big)
    #error("ByteScan assumes little-endian word loads")
#endif

public enum ByteScan: Sendable {
    @usableFromInline static let lows: UInt64 = 0x0101_0101_0101_0101
    @usableFromInline static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The index of the first `byte` in `span[from..<end]`, or `nil`.
    ///
    /// - Precondition: `0 <= from <= end <= span.count`.
    /// - Complexity: O(`end - from`), 32 bytes per step.
    /// - Allocations: none.
    @inlinable
    public static func firstIndex(of byte: UInt8, in span: Span<UInt8>, from: Int, to end: Int) -> Int? {
        precondition(from >= 0 && from <= end && end <= span.count, "scan range out of bounds")
        var i = from
        let pattern = lows &* UInt64(byte)
        // SAFETY: every load reads bytes `i ..< i + 8` with `i + 8 <= end <= span.count`, checked by
        // the loop condition; `unsafeLoadUnaligned` has no alignment requirement.
        let found: Int? = unsafe span.withUnsafeBytes { raw -> Int? in
            // 32 bytes per step while no byte matches (one vector compare; the word loop below then
            // finds the match within those 32 bytes).
            let vector = SIMD32<UInt8>(repeating: byte)
            while i &+ 32 <= end {
                let block = unsafe raw.loadUnaligned(fromByteOffset: i, as: SIMD32<UInt8>.self)
                // Not `any(_:)`: it is an outlined call per block; OR-ing the mask's words compiles to
                // two compares, an OR and a mask test.
                let hits = unsafe unsafeBitCast(block .== vector, to: SIMD4<UInt64>.self)
                if hits[0] | hits[1] | hits[2] | hits[3] != 0 { break }
                i &+= 32
            }
            while i &+ 8 <= end {
                let word = unsafe raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ pattern
                let hit = (word &- lows) & ~word & highs
                if hit != 0 {
                    // The lowest flagged byte is the first match (bytes load little-endian; a false
                    // positive can only appear above a true match, never below it).
                    return i &+ (hit.trailingZeroBitCount >> 3)
                }
                i &+= 8
            }
            return nil
        }
        if let found { return found }
        while i < end {
            if span[i] == byte { return i }
            i &+= 1
        }
        return nil
    }

    /// The index of the first `byte` in `span[from...]`, or `nil`.
    ///
    /// - Complexity: O(`span.count - from`). - Allocations: none.
    @inlinable
    public static func firstIndex(of byte: UInt8, in span: Span<UInt8>, from: Int = 0) -> Int? {
        firstIndex(of: byte, in: span, from: from, to: span.count)
    }
}
