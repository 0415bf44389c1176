/// The `=`, `;` and spaces of a line's tag section as one bit mask, 64 bytes at a time, found in the
/// same pass that finds where the section ends: the tag passes (``TwitchTags``, ``TagCursor``) jump
/// from one delimiter to the next with a trailing-zero count, read the byte there to tell which it
/// is, and learn the section's end (its first space) when they get there. The section is read once,
/// whether or not the parser already knew its end.
///
/// ```
///  bytes:  b a d g e s = ; c o l o r = # F F ; i d   : n i c k …   (limit: the bytes' end)
///  stops:  0 0 0 0 0 0 1 1 0 0 0 0 0 1 0 0 0 1 0 0 1 0 …          ("=", ";" or " "; bit k = byte base + k)
/// ```
///
/// A chunk's mask comes from three 16-byte vector compares per 16 bytes (the standard library's
/// `SIMD16`), OR-ed and gathered into 16 bits with two multiplications (a "movemask" in portable
/// Swift). One mask, not one per delimiter: halving the gathers is worth an extra step over the
/// rare `=` inside a value (``nextEnd(from:)``). Delimiters after the first space are in the mask
/// but never reached: every walk stops at the first space. `limit` is always a stop (its bit is set
/// when the chunk holds it, and bits past it are clear), so a walk ends even where the bytes hold
/// no space at all.
///
/// Owner: one tag pass, on the stack. Reads only `p[lower ..< limit]` (`limit <= count`).
@safe
struct TagStops {
    private let p: UnsafePointer<UInt8>
    private let count: Int
    /// Where the section ends at the latest: the parser's section end when it is known, else `count`.
    private let limit: Int
    /// Start of the current chunk.
    private(set) var base: Int
    /// `=`, `;`, space, and `limit`, in the current chunk (bit `k` is byte `base + k`).
    private(set) var stops: UInt64 = 0

    /// A walk from `lower`.
    ///
    /// - Precondition: `p[0 ..< count]` is readable and `lower <= limit <= count`.
    @unsafe
    @inline(__always)
    init(_ p: UnsafePointer<UInt8>, count: Int, lower: Int, limit: Int) {
        assert(lower <= limit && limit <= count)
        unsafe self.p = p
        self.count = count
        self.limit = limit
        base = lower
        unsafe load()
    }

    /// A walk resumed in the chunk at `base`, whose mask was `stops` (``TagCursor`` keeps them
    /// between tags).
    ///
    /// - Precondition: as for a fresh walk, and `base`, `stops` were read from a walk over the same
    ///   bytes and `limit`.
    @unsafe
    @inline(__always)
    init(_ p: UnsafePointer<UInt8>, count: Int, limit: Int, base: Int, stops: UInt64) {
        assert(base <= limit && limit <= count)
        unsafe self.p = p
        self.count = count
        self.limit = limit
        self.base = base
        self.stops = stops
    }

    /// The first `=`, `;` or space at or after `i`, or `limit`.
    ///
    /// - Precondition: `base <= i <= limit` (a walk only goes forward).
    /// - Complexity: O(1) amortised.
    @inline(__always)
    mutating func nextStop(from i: Int) -> Int {
        assert(base <= i && i <= limit)
        while i >= base &+ 64 {
            base &+= 64
            unsafe load()
        }
        var bits = stops & (~0 &<< UInt64(truncatingIfNeeded: i &- base))
        // Ends: `limit` is a stop and `i <= limit`, so a chunk at or before it holds a bit.
        while bits == 0 {
            base &+= 64
            unsafe load()
            bits = stops
        }
        return base &+ bits.trailingZeroBitCount
    }

    /// The first `;` or space at or after `i`, or `limit`: the end of a value (an `=` inside it is
    /// stepped over).
    ///
    /// - Precondition: as ``nextStop(from:)``.
    @inline(__always)
    mutating func nextEnd(from i: Int) -> Int {
        var at = nextStop(from: i)
        // SAFETY: `at < limit <= count` is checked before the read.
        while at < limit, unsafe p[at] == UInt8(ascii: "=") { at = nextStop(from: at &+ 1) }
        return at
    }

    /// Computes the mask of the chunk at `base` (`base <= limit`).
    @unsafe
    private mutating func load() { stops = unsafe Self.mask(p, count: count, base: base, limit: limit) }

    /// The stops of the 64 bytes from `base`: bit `k` set where byte `base + k` is `=`, `;` or a
    /// space, bits at or past `limit` clear, and `limit`'s own bit set.
    ///
    /// - Precondition: `p[0 ..< count]` is readable and `base <= limit <= count`.
    @unsafe
    static func mask(_ p: UnsafePointer<UInt8>, count: Int, base: Int, limit: Int) -> UInt64 {
        var bits: UInt64 = 0
        if base &+ 64 <= count {
            for k in 0..<4 {
                // SAFETY: `base + 64 <= count`: every 16-byte load is inside the bytes.
                bits |= unsafe mask16(UnsafeRawPointer(p + (base &+ 16 &* k))) &<< UInt64(16 &* k)
            }
        } else {
            // The last bytes (fewer than 64): one at a time, up to the limit.
            var k = 0
            while k < 64 && base &+ k < limit {
                // SAFETY: `base + k < limit <= count`.
                let byte = unsafe p[base &+ k]
                if byte == UInt8(ascii: ";") || byte == UInt8(ascii: "=") || byte == UInt8(ascii: " ") {
                    bits |= 1 &<< UInt64(k)
                }
                k &+= 1
            }
        }
        let room = limit &- base
        return room >= 64 ? bits : (bits & ((1 &<< UInt64(room)) &- 1)) | (1 &<< UInt64(room))
    }

    /// Bit `k` set where byte `k` of the 16 at `p` is `=`, `;` or a space.
    @unsafe
    @inline(__always)
    private static func mask16(_ p: UnsafeRawPointer) -> UInt64 {
        let block = unsafe p.loadUnaligned(as: SIMD16<UInt8>.self)
        // The compares as bytes (0xFF or 0), OR-ed as plain vectors: `SIMDMask`'s own `.|` is not
        // lowered to one vector instruction (it cost ten times the whole pass).
        let hits =
            lanes(block .== SIMD16(repeating: UInt8(ascii: ";"))) | lanes(block .== SIMD16(repeating: 0x20))
            | lanes(block .== SIMD16(repeating: UInt8(ascii: "=")))
        // Each lane keeps one bit of its byte's weight, and a multiplication sums (ORs: the bits are
        // distinct) the eight bytes of each half into its top byte.
        let weights = SIMD16<UInt8>(1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128)
        let halves = unsafe unsafeBitCast(hits & weights, to: SIMD2<UInt64>.self)
        let spread: UInt64 = 0x0101_0101_0101_0101
        return (halves[0] &* spread) >> 56 | ((halves[1] &* spread) >> 56) << 8
    }

    @inline(__always)
    private static func lanes(_ mask: SIMDMask<SIMD16<Int8>>) -> SIMD16<UInt8> {
        unsafe unsafeBitCast(mask, to: SIMD16<UInt8>.self)
    }
}
