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

    /// The index of the first byte below 14 (`0x0E`) in `span[from..<end]`, or `nil`: every `\n`
    /// and `\r` (0x0A, 0x0D), and the rarer control bytes below them (NUL, tab, CTCP's 0x01), which
    /// the caller steps over. The framer's one pass over a line: its end and the CRs inside it, where
    /// a newline scan and then a CR scan read each line twice.
    ///
    /// One unsigned minimum of the two 16-byte halves and one compare per 32 bytes (a newline scan
    /// alone takes two compares and an OR), then the "has a byte less than n" bit trick eight bytes
    /// at a time.
    ///
    /// - Precondition: `0 <= from <= end <= span.count`.
    /// - Complexity: O(`end - from`), 32 bytes per step.
    /// - Allocations: none.
    @inlinable
    public static func firstControlByte(in span: Span<UInt8>, from: Int, to end: Int) -> Int? {
        precondition(from >= 0 && from <= end && end <= span.count, "scan range out of bounds")
        // SAFETY: `[from, end)` lies within the span's bytes (checked above), which stay valid for the call.
        return unsafe span.withUnsafeBytes { raw -> Int? in
            guard let base = raw.baseAddress else { return nil }  // no bytes: `from == end == 0`
            return unsafe firstControlByte(at: base, from: from, to: end)
        }
    }

    /// ``firstControlByte(in:from:to:)`` over the bytes at `base`, for a caller that holds them
    /// (the framer scans its own buffer): no closure between the caller's loop and this one.
    ///
    /// - Precondition: `base[from ..< end]` is readable (`from <= end`).
    /// - Complexity: O(`end - from`), 32 bytes per step. - Allocations: none.
    @unsafe
    @inlinable
    @inline(__always)
    public static func firstControlByte(at base: UnsafeRawPointer, from: Int, to end: Int) -> Int? {
        var i = from
        let bound = SIMD16<UInt8>(repeating: 0x0D)
        // `i <= last`, not `i + 32 <= end`: one add and one compare a step.
        let last = end &- 32
        while i <= last {
            let low = unsafe base.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
            let high = unsafe base.loadUnaligned(fromByteOffset: i &+ 16, as: SIMD16<UInt8>.self)
            // A byte of either half is below 14 when the smaller of the two is. The minimum by hand
            // (a select LLVM makes one `pminub`): the standard library's `pointwiseMin` is an
            // outlined generic call per step.
            let lower = unsafe unsafeBitCast(low .< high, to: SIMD16<UInt8>.self)
            let least = high ^ ((low ^ high) & lower)
            let hits = unsafe unsafeBitCast(least .<= bound, to: SIMD2<UInt64>.self)
            if hits[0] | hits[1] != 0 { break }
            i &+= 32
        }
        while i &+ 8 <= end {
            let word = unsafe base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            // The lowest flagged byte is the first below 14 (a false positive can only appear above
            // a true one, never below it).
            let hit = (word &- lows &* 0x0E) & ~word & highs
            if hit != 0 { return i &+ (hit.trailingZeroBitCount >> 3) }
            i &+= 8
        }
        while i < end {
            if unsafe base.load(fromByteOffset: i, as: UInt8.self) < 0x0E { return i }
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
