/// The `=` and `;` of a line's tag section as bit masks, 64 bytes at a time: the tag pass jumps from
/// one delimiter to the next with a trailing-zero count instead of scanning every key and value.
///
/// ```
///  bytes:  b a d g e s = ; c o l o r = # F F 0 0 F F ; …
///  stops:  0 0 0 0 0 0 1 1 0 0 0 0 0 1 0 0 0 0 0 0 0 1   ("=" or ";"; bit k = byte base + k)
///  semis:  0 0 0 0 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0 1
/// ```
///
/// A chunk's masks come from four 16-byte vector compares per delimiter (the standard library's
/// `SIMD16`); each compare's lanes are gathered into 16 bits with two multiplications (a "movemask"
/// in portable Swift). Bits at or past the section's end are clear.
///
/// Owner: one tag pass, on the stack. Reads only `p[lower ..< count]`.
@safe
struct TagStops {
    private let p: UnsafePointer<UInt8>
    private let count: Int
    private let upper: Int
    /// Start of the current chunk.
    private var base: Int
    /// `=` or `;` in the current chunk.
    private var stops: UInt64 = 0
    /// `;` in the current chunk.
    private var semis: UInt64 = 0

    /// - Precondition: `p[0 ..< count]` is readable and `lower <= upper <= count`.
    @unsafe
    @inline(__always)
    init(_ p: UnsafePointer<UInt8>, count: Int, lower: Int, upper: Int) {
        unsafe self.p = p
        self.count = count
        self.upper = upper
        base = lower
        if lower < upper { unsafe load() }
    }

    /// The first `=` or `;` at or after `i` (in the section), or the section's end.
    ///
    /// - Precondition: `i` is not below a position asked for before. - Complexity: O(1) amortised.
    @inline(__always)
    mutating func nextStop(from i: Int) -> Int { next(from: i, semicolonsOnly: false) }

    /// The first `;` at or after `i` (in the section), or the section's end.
    @inline(__always)
    mutating func nextSemicolon(from i: Int) -> Int { next(from: i, semicolonsOnly: true) }

    @inline(__always)
    private mutating func next(from i: Int, semicolonsOnly: Bool) -> Int {
        guard i < upper else { return upper }
        while i >= base &+ 64 {
            base &+= 64
            unsafe load()
        }
        var bits = (semicolonsOnly ? semis : stops) & (~0 &<< UInt64(i &- base))
        while bits == 0 {
            base &+= 64
            guard base < upper else { return upper }
            unsafe load()
            bits = semicolonsOnly ? semis : stops
        }
        return base &+ bits.trailingZeroBitCount
    }

    /// Computes the masks of the chunk at `base` (`base < upper`).
    @unsafe
    private mutating func load() {
        var equals: UInt64 = 0
        var semicolons: UInt64 = 0
        if base &+ 64 <= count {
            for k in 0..<4 {
                // SAFETY: `base + 64 <= count`: every 16-byte load is inside the bytes.
                let (e, s) = unsafe Self.masks16(UnsafeRawPointer(p + (base &+ 16 &* k)))
                equals |= e &<< UInt64(16 &* k)
                semicolons |= s &<< UInt64(16 &* k)
            }
        } else {
            // The last bytes: one at a time (they are fewer than 64).
            var k = 0
            while base &+ k < count && k < 64 {
                // SAFETY: `base + k < count`.
                let byte = unsafe p[base &+ k]
                if byte == UInt8(ascii: "=") { equals |= 1 &<< UInt64(k) }
                if byte == UInt8(ascii: ";") { semicolons |= 1 &<< UInt64(k) }
                k &+= 1
            }
        }
        let inside = upper &- base >= 64 ? UInt64.max : (1 &<< UInt64(upper &- base)) &- 1
        semis = semicolons & inside
        stops = (equals | semicolons) & inside
    }

    /// Bit `k` set where byte `k` of the 16 at `p` is `=` (first mask) or `;` (second).
    @unsafe
    @inline(__always)
    private static func masks16(_ p: UnsafeRawPointer) -> (UInt64, UInt64) {
        let block = unsafe p.loadUnaligned(as: SIMD16<UInt8>.self)
        return (
            gather(block .== SIMD16(repeating: UInt8(ascii: "="))),
            gather(block .== SIMD16(repeating: UInt8(ascii: ";")))
        )
    }

    /// The lanes of `mask` as 16 bits: each lane keeps one bit of its byte's weight, and a
    /// multiplication sums (ORs: the bits are distinct) the eight bytes of each half into its top byte.
    @inline(__always)
    private static func gather(_ mask: SIMDMask<SIMD16<Int8>>) -> UInt64 {
        let weights = SIMD16<UInt8>(1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128)
        let lanes = unsafe unsafeBitCast(mask, to: SIMD16<UInt8>.self) & weights
        let halves = unsafe unsafeBitCast(lanes, to: SIMD2<UInt64>.self)
        let spread: UInt64 = 0x0101_0101_0101_0101
        return (halves[0] &* spread) >> 56 | ((halves[1] &* spread) >> 56) << 8
    }
}
