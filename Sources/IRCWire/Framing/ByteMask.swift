import Builtin

/// Which bytes of a block equal a given byte, one bit a byte: the "movemask" of a vector compare
/// (`pmovmskb` on SSE2, a mask register on AVX-512), which the standard library's `SIMD` types do
/// not spell. Their `.==` gives a `SIMDMask` of whole bytes, and gathering those into bits took two
/// multiplications per 8 bytes (``TagStops``'s tag scan spent about a quarter of a line's parse on
/// it). Written with the compiler's vector builtins (`import Builtin`, the `BuiltinModule` feature
/// of this target only), as the standard library writes its own `SIMD` operations: the compare's
/// `<64 x i1>` result is the bit mask itself, and LLVM lowers its `bitcast` to the target's
/// movemask. Pure Swift: no C, nothing the target machine lacks (on a machine without vector
/// compares LLVM spells the same bits with scalar code).
///
/// Bit `k` of a result is byte `k` of the block (little-endian order of the loads).
@usableFromInline
enum ByteMask: Sendable {
    /// Bit `k` set where byte `k` of the 64 at `p` is `a`, `b` or `c`.
    ///
    /// - Precondition: `p[0 ..< 64]` is readable.
    /// - Complexity: O(1): four 16-byte loads, three compares and two ORs each, four movemasks on
    ///   SSE2. - Allocations: none.
    @unsafe
    @inlinable
    @inline(__always)
    static func equal64(_ p: UnsafeRawPointer, _ a: UInt8, _ b: UInt8, _ c: UInt8) -> UInt64 {
        let block = unsafe p.loadUnaligned(as: SIMD64<UInt8>.self)._storage._value
        let hits = Builtin.or_Vec64xInt1(
            Builtin.or_Vec64xInt1(
                Builtin.cmp_eq_Vec64xInt8(block, SIMD64<UInt8>(repeating: a)._storage._value),
                Builtin.cmp_eq_Vec64xInt8(block, SIMD64<UInt8>(repeating: b)._storage._value)),
            Builtin.cmp_eq_Vec64xInt8(block, SIMD64<UInt8>(repeating: c)._storage._value))
        return UInt64(Builtin.bitcast_Vec64xInt1_Int64(hits))
    }

    /// Bit `k` set where byte `k` of the 64 at `p` is `byte`.
    ///
    /// - Precondition: `p[0 ..< 64]` is readable.
    /// - Complexity: O(1): four 16-byte loads, compares and movemasks on SSE2 (several masks of the
    ///   same 64 bytes share the loads). - Allocations: none.
    @unsafe
    @inlinable
    @inline(__always)
    static func equal64(_ p: UnsafeRawPointer, _ byte: UInt8) -> UInt64 {
        // SAFETY: `p[0 ..< 64]` is readable: both halves are.
        unsafe UInt64(equal32(p, byte)) | UInt64(equal32(p + 32, byte)) &<< 32
    }

    /// Bit `k` set where byte `k` of the 32 at `p` is `byte`.
    ///
    /// - Precondition: `p[0 ..< 32]` is readable.
    /// - Complexity: O(1): two 16-byte loads, compares and movemasks on SSE2. - Allocations: none.
    @unsafe
    @inlinable
    @inline(__always)
    static func equal32(_ p: UnsafeRawPointer, _ byte: UInt8) -> UInt32 {
        let block = unsafe p.loadUnaligned(as: SIMD32<UInt8>.self)._storage._value
        let hits = Builtin.cmp_eq_Vec32xInt8(block, SIMD32<UInt8>(repeating: byte)._storage._value)
        return UInt32(Builtin.bitcast_Vec32xInt1_Int32(hits))
    }

    /// Bit `k` set where byte `k` of the 32 at `p` is below `bound`.
    ///
    /// - Precondition: `p[0 ..< 32]` is readable.
    /// - Complexity: O(1): two 16-byte loads, compares and movemasks on SSE2. - Allocations: none.
    @unsafe
    @inlinable
    @inline(__always)
    static func below32(_ p: UnsafeRawPointer, _ bound: UInt8) -> UInt32 {
        let block = unsafe p.loadUnaligned(as: SIMD32<UInt8>.self)._storage._value
        let hits = Builtin.cmp_ult_Vec32xInt8(block, SIMD32<UInt8>(repeating: bound)._storage._value)
        return UInt32(Builtin.bitcast_Vec32xInt1_Int32(hits))
    }
}
