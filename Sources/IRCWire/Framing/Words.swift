/// Eight-byte word reads for the tag-key table's hash and comparisons.
///
/// All loads are unaligned little-endian reads; callers prove that `offset + 8` is in bounds.
enum Words {
    /// The eight bytes at `p + offset`, little-endian.
    @unsafe
    @inline(__always)
    static func load(_ p: UnsafePointer<UInt8>, _ offset: Int) -> UInt64 {
        unsafe UnsafeRawPointer(p + offset).loadUnaligned(as: UInt64.self)
    }
}
