/// Eight-byte word helpers for the hot loops that ``ByteScan`` does not cover: a search for either of
/// two bytes, and the tag-key table's word reads (SWAR: SIMD within a register).
///
/// All loads are unaligned little-endian reads; callers prove that `offset + 8` is in bounds.
enum Words {
    static let sevens: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// The high bit of every byte of `word` equal to `byte`, exactly (no false positives).
    @inline(__always)
    static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (ByteScan.lows &* UInt64(byte))
        return ~(((x & sevens) &+ sevens) | x) & ByteScan.highs
    }

    /// The index of the first byte flagged in a ``matches(_:_:)`` mask.
    @inline(__always)
    static func firstFlagged(_ mask: UInt64) -> Int { mask.trailingZeroBitCount >> 3 }

    /// Reads 8 bytes at `p + offset`.
    @unsafe
    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>, _ offset: Int) -> UInt64 {
        unsafe UnsafeRawPointer(p + offset).loadUnaligned(as: UInt64.self)
    }

    /// The first index in `from ..< to` whose byte is `a` or `b`, or `to`.
    ///
    /// - Precondition (caller): `p[from ..< to]` is readable.
    @unsafe
    @inline(__always)
    static func firstOf(_ a: UInt8, _ b: UInt8, _ p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var i = from
        while i &+ 8 <= to {
            // SAFETY: `i + 8 <= to`.
            let w = unsafe load(p, i)
            let m = matches(w, a) | matches(w, b)
            if m != 0 { return i &+ firstFlagged(m) }
            i &+= 8
        }
        while i < to {
            let c = unsafe p[i]
            if c == a || c == b { return i }
            i &+= 1
        }
        return to
    }
}
