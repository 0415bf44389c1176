/// The bytes of a ring's entries, one generation of storage: a trivial descriptor of raw memory,
/// itself kept in raw memory (``make(capacity:origin:)``) so that the ring's owner and its readers
/// reach it without reference counting.
///
/// Lines are placed back to back at increasing *virtual* positions; a virtual position `v` lives at
/// `(v - origin) % capacity`. A line never wraps: when it does not fit before the end, the writer
/// skips to the start. Growing makes a new generation holding the live bytes linearly from `origin`.
///
/// ```
///  physical: 0 ………………………………………………………… capacity
///            [ newest lines … | free | oldest lines … | skipped ]
/// ```
@safe
struct ByteStorage {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    let origin: UInt64

    /// A new generation in raw memory; free it with ``free(_:)`` once no reader can hold it.
    ///
    /// - Allocations: two (descriptor and bytes).
    static func make(capacity: Int, origin: UInt64) -> UnsafeMutablePointer<ByteStorage> {
        let p = UnsafeMutablePointer<ByteStorage>.allocate(capacity: 1)
        unsafe p.initialize(
            to: ByteStorage(base: .allocate(byteCount: capacity, alignment: 16), capacity: capacity, origin: origin))
        return unsafe p
    }

    /// Frees a generation made by ``make(capacity:origin:)``.
    @unsafe
    static func free(_ p: UnsafeMutablePointer<ByteStorage>) {
        unsafe p.pointee.base.deallocate()
        unsafe p.deallocate()
    }

    @inline(__always)
    func physical(_ virtual: UInt64) -> Int { Int((virtual &- origin) % UInt64(capacity)) }

    /// Lends the `count` bytes at virtual position `virtual` to `body`.
    ///
    /// Unsafe: valid only while the entry is pinned (or owned) and this storage is not retired.
    @unsafe
    @inline(__always)
    func withBytes<R: ~Copyable, E: Error>(
        at virtual: UInt64, count: Int, _ body: (Span<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        let start = physical(virtual)
        precondition(start + count <= capacity, "a line never wraps")
        let p = unsafe (base + start).assumingMemoryBound(to: UInt8.self)
        return try body(unsafe Span(_unsafeElements: UnsafeBufferPointer(start: p, count: count)))
    }
}
