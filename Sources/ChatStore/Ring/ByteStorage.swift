import ChatMemory

/// The bytes of a ring's entries, one generation of storage: a trivial descriptor of raw memory,
/// itself kept in raw memory (``make(capacity:origin:)``) so that the ring's owner and its readers
/// reach it without reference counting.
///
/// Lines are placed back to back at increasing *virtual* positions; a virtual position `v` lives at
/// `(v - origin) % capacity`. A line never wraps: when it does not fit before the end, the writer
/// skips to the start. Growing makes a new generation holding the live bytes linearly from `origin`.
///
/// ```
///  physical: 0 ………………………………………………………… capacity ……………… reserved (mapped only)
///            [ newest lines … | free | oldest lines … | skipped ]  untouched: no pages
/// ```
///
/// Two kinds of memory back a generation:
/// - **allocated** (``make(capacity:origin:)``): exactly `capacity` bytes from the allocator, in one
///   block after the descriptor; growing
///   copies the live bytes into a larger generation. Small rings use it: most of thousands of
///   channels hold a few kilobytes, and a page each would be most of what they hold.
/// - **mapped** (``makeMapped(capacity:origin:reserving:from:)``): `capacity` bytes at the start of a
///   larger reservation of address space, whose pages the kernel supplies on first touch. Growing
///   while the live bytes sit in one lap of the ring only makes a new descriptor over the same bytes
///   (``extended(to:)``): nothing is copied, nothing is freed, and a reader still holding the old
///   descriptor finds every entry it can see at the same address. Busy rings use it: copying on
///   growth was most of the memory traffic of a replay of 1,000 channels (cachegrind: about two
///   thirds of its last-level cache misses).
@safe
struct ByteStorage {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    let origin: UInt64
    /// Bytes of address space mapped at `base` (``capacity`` of them in use), or 0 for allocated memory.
    let reserved: Int

    /// A new allocated generation; free it with ``free(_:pages:)`` once no reader can hold it.
    ///
    /// - Allocations: one: the descriptor and the bytes in one block, descriptor first (a quiet
    ///   channel's storage is a few hundred bytes, and a block of its own for the descriptor cost a
    ///   heap block header and a hole in the heap at each growth).
    static func make(capacity: Int, origin: UInt64) -> UnsafeMutablePointer<ByteStorage> {
        let block = UnsafeMutableRawPointer.allocate(byteCount: headerBytes + capacity, alignment: 16)
        let p = unsafe block.bindMemory(to: ByteStorage.self, capacity: 1)
        // SAFETY: the bytes start `headerBytes` (a multiple of 16) into the block, after the descriptor.
        unsafe p.initialize(to: ByteStorage(base: block + headerBytes, capacity: capacity, origin: origin, reserved: 0))
        return unsafe p
    }

    /// Bytes of a descriptor, rounded up to 16: the header of an allocated generation's block.
    static var headerBytes: Int { (MemoryLayout<ByteStorage>.stride + 15) & ~15 }

    /// A new mapped generation of `capacity` bytes in a reservation of `reserving` bytes (rounded up
    /// to pages) from `pages`, or `nil` when the system refuses the mapping (no address space, too
    /// many mappings, strict overcommit): the caller falls back to ``make(capacity:origin:)``.
    ///
    /// - Complexity: one system call. Untouched pages cost no memory.
    /// - Allocations: one (the descriptor) and the mapping.
    static func makeMapped(
        capacity: Int, origin: UInt64, reserving: Int, from pages: PageMapping
    ) -> UnsafeMutablePointer<ByteStorage>? {
        let page = 4_096
        let length = (max(capacity, reserving) + page - 1) / page * page
        guard let p = unsafe pages.map(length) else { return nil }
        return unsafe describe(ByteStorage(base: p, capacity: capacity, origin: origin, reserved: length))
    }

    /// A descriptor of the same mapped bytes, grown to `capacity` (at most ``reserved``), with the
    /// same physical place for every virtual position in `lap ..< lap + self.capacity`. Free this
    /// one with ``freeDescriptor(_:)``: the bytes now belong to the new one.
    ///
    /// - Precondition: mapped; `capacity` in `self.capacity ... reserved`; `lap` is `origin` plus a
    ///   whole number of laps.
    /// - Allocations: one (the descriptor).
    func extended(to capacity: Int, lap: UInt64) -> UnsafeMutablePointer<ByteStorage> {
        precondition(reserved > 0 && capacity >= self.capacity && capacity <= reserved, "extend within the mapping")
        precondition((lap &- origin) % UInt64(self.capacity) == 0, "a new origin starts a lap")
        return unsafe Self.describe(ByteStorage(base: base, capacity: capacity, origin: lap, reserved: reserved))
    }

    private static func describe(_ storage: ByteStorage) -> UnsafeMutablePointer<ByteStorage> {
        let p = UnsafeMutablePointer<ByteStorage>.allocate(capacity: 1)
        unsafe p.initialize(to: storage)
        return unsafe p
    }

    /// Frees a generation and its bytes (a mapped one back to `pages`, which mapped it; an allocated
    /// one is one block with its descriptor).
    @unsafe
    static func free(_ p: UnsafeMutablePointer<ByteStorage>, pages: PageMapping?) {
        if unsafe p.pointee.reserved > 0 { unsafe pages!.unmap(p.pointee.base, p.pointee.reserved) }
        unsafe p.deinitialize(count: 1)
        unsafe UnsafeMutableRawPointer(p).deallocate()
    }

    /// Frees only a descriptor whose bytes an ``extended(to:lap:)`` generation took over.
    @unsafe
    static func freeDescriptor(_ p: UnsafeMutablePointer<ByteStorage>) {
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
