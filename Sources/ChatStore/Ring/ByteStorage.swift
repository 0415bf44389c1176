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
/// Three kinds of memory back a generation:
/// - **allocated** (``make(capacity:origin:)``): exactly `capacity` bytes from the allocator, in one
///   block after the descriptor; growing
///   copies the live bytes into a larger generation. Small rings use it: most of thousands of
///   channels hold a few kilobytes, and a page each would be most of what they hold.
/// - **mapped** (``makeMapped(capacity:origin:reserving:from:)``): `capacity` bytes at the start of a
///   larger reservation of address space, whose pages the kernel supplies on first touch. Growing
///   while the live bytes sit in one lap of the ring only makes a new descriptor over the same bytes
///   (``extended(to:lap:replacing:)``): nothing is copied, nothing is freed, and a reader still holding
///   the old descriptor finds every entry it can see at the same address. Busy rings use it: copying
///   on growth was most of the memory traffic of a replay of 1,000 channels (cachegrind: about two
///   thirds of its last-level cache misses).
/// - **in a region** (``makeInRegion(_:regionBytes:capacity:origin:)``): mapped too, but a fixed-size
///   region of a store's ``PageRegions`` (one system call per thousands of rings), its two descriptors
///   at its head, so that growing in place allocates nothing. A store's small rings move their
///   bytes there at their first growth and grow in place up to the region's end (issue #39: with
///   10,000 channels of ~30 lines each, a ring's bytes moved 9 times, each a heap allocation, a copy
///   and a free on memory the other channels had pushed out of the caches).
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
    /// one with ``freeDescriptor(_:of:)``: the bytes now belong to the new one.
    ///
    /// In a region, the new descriptor takes the region's other descriptor slot (the one `current`,
    /// this generation's descriptor, is not in): the generation before this one, which its replacer
    /// freed once no reader could hold it.
    ///
    /// - Precondition: mapped; `capacity` in `self.capacity ... reserved`; `lap` is `origin` plus a
    ///   whole number of laps.
    /// - Allocations: one (the descriptor); none in a region.
    func extended(
        to capacity: Int, lap: UInt64, replacing current: UnsafeMutablePointer<ByteStorage>
    ) -> UnsafeMutablePointer<ByteStorage> {
        precondition(reserved > 0 && capacity >= self.capacity && capacity <= reserved, "extend within the mapping")
        precondition((lap &- origin) % UInt64(self.capacity) == 0, "a new origin starts a lap")
        let next = unsafe ByteStorage(base: base, capacity: capacity, origin: lap, reserved: reserved)
        guard isInRegion else { return unsafe Self.describe(next) }
        // SAFETY: a region's two descriptor slots are the `regionHeaderBytes` before `base`.
        let slots = unsafe (base - Self.regionHeaderBytes).assumingMemoryBound(to: ByteStorage.self)
        let p = unsafe slots == current ? slots + 1 : slots
        unsafe p.initialize(to: next)
        return unsafe p
    }

    /// A new generation of `capacity` bytes in `region` (``regionBytes(of:)`` of them, page-aligned,
    /// from ``PageRegions``): the descriptor in the first of the region's two descriptor slots, the
    /// bytes after both. It grows in place (``extended(to:lap:replacing:)``) up to the end of the
    /// region, its descriptors alternating between the two slots. The region goes back to its
    /// ``PageRegions`` (``EntryRing``'s growth recycles it), never through ``free(_:pages:)``.
    ///
    /// ```
    ///  region:  [ descriptor | descriptor | bytes: capacity … reserved ]
    /// ```
    ///
    /// - Precondition: `capacity <= regionBytes - regionHeaderBytes`.
    /// - Complexity: O(1). - Allocations: none.
    @unsafe
    static func makeInRegion(
        _ region: UnsafeMutableRawPointer, regionBytes: Int, capacity: Int, origin: UInt64
    ) -> UnsafeMutablePointer<ByteStorage> {
        let reserved = regionBytes - regionHeaderBytes
        precondition(capacity <= reserved, "the bytes fit in the region")
        let p = unsafe region.bindMemory(to: ByteStorage.self, capacity: 2)
        unsafe p.initialize(
            to: ByteStorage(base: region + regionHeaderBytes, capacity: capacity, origin: origin, reserved: reserved))
        return unsafe p
    }

    /// The region this generation lives in (``isInRegion``), as ``PageRegions`` handed it out.
    var region: UnsafeMutableRawPointer { unsafe base - Self.regionHeaderBytes }

    /// Bytes before a region's storage: two descriptors (a generation and its replacement).
    static var regionHeaderBytes: Int { 2 * MemoryLayout<ByteStorage>.stride }

    /// Whether this generation lives in a region (``makeInRegion(_:regionBytes:capacity:origin:)``):
    /// regions are page-aligned, so their bytes start ``regionHeaderBytes`` into a page, where a
    /// mapping of its own starts a page and allocated bytes are not mapped at all.
    var isInRegion: Bool { unsafe reserved > 0 && Int(bitPattern: base) & 4_095 == Self.regionHeaderBytes }

    private static func describe(_ storage: ByteStorage) -> UnsafeMutablePointer<ByteStorage> {
        let p = UnsafeMutablePointer<ByteStorage>.allocate(capacity: 1)
        unsafe p.initialize(to: storage)
        return unsafe p
    }

    /// Frees a generation and its bytes (a mapped one back to `pages`, which mapped it; an allocated
    /// one is one block with its descriptor). One in a region frees nothing: the region, descriptors
    /// included, is its ``PageRegions``'s (``region``), which unmaps it when it goes.
    @unsafe
    static func free(_ p: UnsafeMutablePointer<ByteStorage>, pages: PageMapping?) {
        unsafe free(p, of: p.pointee, pages: pages)
    }

    /// ``free(_:pages:)`` given `storage`, the value at `p` (the owner's copy: reading it at `p`
    /// again is a cache miss).
    @unsafe
    static func free(_ p: UnsafeMutablePointer<ByteStorage>, of storage: ByteStorage, pages: PageMapping?) {
        guard !storage.isInRegion else { return }
        if storage.reserved > 0 { unsafe pages!.unmap(storage.base, storage.reserved) }
        unsafe p.deinitialize(count: 1)
        unsafe UnsafeMutableRawPointer(p).deallocate()
    }

    /// Frees only a descriptor whose bytes an ``extended(to:lap:replacing:)`` generation took over
    /// (in a region, nothing: its slot is taken again by the next extension).
    /// `storage` is the value at `p` (the owner's copy: reading it at `p` is a cache miss).
    @unsafe
    static func freeDescriptor(_ p: UnsafeMutablePointer<ByteStorage>, of storage: ByteStorage) {
        guard !storage.isInRegion else { return }
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
