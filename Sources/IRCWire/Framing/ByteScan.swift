/// Word-at-a-time byte search over a `Span`, the one hot loop the framer and parser share.
///
/// Scans 32 bytes per step with one vector compare gathered into a bit mask (``ByteMask``), whose
/// lowest bit is the match, and the last bytes eight per step with the classic "has zero byte" bit
/// trick (SWAR), which keeps the framer and parser close to `memchr` without leaving Swift.
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
        // SAFETY: every load reads bytes `i ..< i + 32` or `i ..< i + 8` below `end <= span.count`,
        // checked by its loop's condition; unaligned loads have no alignment requirement.
        let found: Int? = unsafe span.withUnsafeBytes { raw -> Int? in
            // 32 bytes per step: one vector compare gathered into a bit mask (``ByteMask``), whose
            // lowest bit is the first match; the word loop below takes the last bytes.
            guard let base = raw.baseAddress else { return nil }  // no bytes: `from == end == 0`
            while i &+ 32 <= end {
                let hits = unsafe ByteMask.equal32(base + i, byte)
                if hits != 0 { return i &+ hits.trailingZeroBitCount }
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
    /// One unsigned compare per 32 bytes gathered into a bit mask (``ByteMask/below32(_:_:)``), whose
    /// lowest bit is the answer; the last bytes (fewer than 32) with the "has a byte less than n" bit
    /// trick eight bytes at a time.
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
        // `i <= last`, not `i + 32 <= end`: one add and one compare a step.
        let last = end &- 32
        while i <= last {
            // The block's bytes below 14 as bits: the lowest is the first (one compare and two
            // movemasks, where the word loop below takes up to four steps to place it).
            let hits = unsafe ByteMask.below32(base + i, 0x0E)
            if hits != 0 { return i &+ hits.trailingZeroBitCount }
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
