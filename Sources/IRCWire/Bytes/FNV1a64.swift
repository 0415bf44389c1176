/// The 64-bit FNV-1a hash, one byte at a time: the same on every run and machine, so a key built
/// with it (a ClickHouse row key, a remembered message id) can be computed by other tools too.
///
/// - Complexity: O(bytes added). - Allocations: none.
public struct FNV1a64: Sendable {
    /// The hash of the bytes added so far (the offset basis before any).
    public var value: UInt64

    /// A hash starting at FNV's offset basis, or at another `basis` (two bases give two independent
    /// hashes of the same bytes).
    public init(basis: UInt64 = 0xCBF2_9CE4_8422_2325) { value = basis }

    @inlinable
    public mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x100_0000_01B3
    }

    @inlinable
    public mutating func add(_ bytes: Span<UInt8>, _ range: Range<Int>) {
        for i in range { add(bytes[i]) }
    }
}
