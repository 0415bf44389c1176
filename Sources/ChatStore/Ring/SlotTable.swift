import ChatMemory
import Synchronization

/// A ring's slot arrays, one generation: metadata, moderation's id links and the atomic tombstone of
/// `count` slots, entry `seq` in slot `seq % count`, and moderation's bucket heads. A trivial
/// descriptor kept in raw memory, like ``ByteStorage``, at the head of its metadata's block; the ring
/// grows it (by a quarter, by half once large, towards its capacity) while it fills.
///
/// ```
///  metas block:  [ descriptor | EntryMeta × count ]
///  ids block:    [ IdLinks × count | message heads × buckets | user heads × buckets ]
///  tombstones:   [ Atomic<UInt32> × count ]          senders (a store that interns them): [ SenderTokens × count ]
/// ```
/// A small table (below 1,637 slots, ``isSmall(_:)``) is one block, the columns one after another
/// (one allocation and one free a growth: with 10,000 quiet channels, a dozen growths each); a larger
/// one has its columns in blocks of their own: one block of every column was 6 MB more peak RSS at
/// 10,000 channels (channels_bench) when the heap could not reuse the large blocks.
///
/// A column of ``mappedBlockBytes`` or more comes from the ring's ``PageMapping`` when it has one:
/// freed, it goes back to the system whatever the allocator's thresholds, and the slots not yet
/// written cost no memory. From the heap, the blocks of one channel's growing table of 300,000
/// slots were kept or given back depending on their exact sizes: a bucket count of an eighth of
/// the slots instead of a quarter made its peak RSS 6 MB higher (channels_bench, "1 all").
@safe
struct SlotTable {
    let count: Int
    let metas: UnsafeMutablePointer<EntryMeta>
    let tombstones: UnsafeMutablePointer<Atomic<UInt32>>
    /// The entries' id fingerprints and chain links (owner-only: moderation's index, ``IdLinks``),
    /// followed in the same block by the bucket ``heads``.
    let ids: UnsafeMutablePointer<IdLinks>
    /// The senders' interned tokens, in rings of a store that interns them; `nil` otherwise (replay
    /// and dump), so that those pay no 16 bytes per slot for tokens that would all be empty.
    let senders: UnsafeMutablePointer<SenderTokens>?

    /// The bucket heads, message buckets then user buckets (``buckets`` each): right after the
    /// links, so that they cost no allocation and no field of their own.
    var heads: UnsafeMutablePointer<UInt32> {
        // SAFETY: `make` allocated `count` links and then the heads in one block, and bound them.
        unsafe UnsafeMutableRawPointer(ids + count).assumingMemoryBound(to: UInt32.self)
    }

    /// - Allocations: one for a small table (every column in one block, ``isSmall(_:)``); three for a
    ///   larger one (descriptor with the metadata, id links with the bucket heads, tombstones), four
    ///   with senders. The descriptor shares the metadata's block: a block of its own cost every
    ///   channel a heap block (48 bytes). Blocks of ``mappedBlockBytes`` or more are mapped from
    ///   `pages` when there are pages (and the system grants them).
    static func make(count: Int, keepsSenders: Bool, pages: PageMapping? = nil) -> UnsafeMutablePointer<SlotTable> {
        if isSmall(count) { return unsafe makeSmall(count: count, keepsSenders: keepsSenders) }
        var mapped: UInt8 = 0
        let tombstones = unsafe block(Self.tombstoneBytes(count), 1, &mapped, pages).bindMemory(
            to: Atomic<UInt32>.self, capacity: count)
        for i in 0..<count { unsafe (tombstones + i).initialize(to: Atomic(0)) }
        let heads = 2 << bucketBits(count)
        let links = unsafe block(Self.idBytes(count), 2, &mapped, pages)
        let ids = unsafe links.bindMemory(to: IdLinks.self, capacity: count)
        // SAFETY: the heads start right after the `count` links, inside the block.
        unsafe (links + count * MemoryLayout<IdLinks>.stride).bindMemory(to: UInt32.self, capacity: heads)
            .initialize(repeating: 0, count: heads)
        let sendersBlock = keepsSenders ? unsafe block(Self.senderBytes(count), 4, &mapped, pages) : nil
        let head = unsafe block(Self.metaBytes(count), 8, &mapped, pages)
        let p = unsafe head.bindMemory(to: SlotTable.self, capacity: 1)
        // SAFETY: the metadata starts `headerBytes` (a multiple of 16) into the block, after the
        // descriptor; which blocks are mapped is kept in the header's padding, after the descriptor.
        let metas = unsafe (head + headerBytes).bindMemory(to: EntryMeta.self, capacity: count)
        unsafe (head + MemoryLayout<SlotTable>.stride).storeBytes(of: mapped, as: UInt8.self)
        unsafe p.initialize(
            to: SlotTable(
                count: count, metas: metas, tombstones: tombstones, ids: ids,
                senders: sendersBlock.map { unsafe $0.bindMemory(to: SenderTokens.self, capacity: count) }))
        return unsafe p
    }

    /// Whether a table of `count` slots is made in one block: while its largest column (the
    /// metadata) is below ``mappedBlockBytes``, so that no column would be mapped (1,636 slots).
    /// A ring of thousands of quiet channels grows its small table a dozen times on the way to a
    /// few dozen slots: one allocation and one free a growth instead of three (four with senders),
    /// each on heap memory the other channels have pushed out of the caches (issue #39).
    @inline(__always)
    static func isSmall(_ count: Int) -> Bool { metaBytes(count) < mappedBlockBytes }

    /// A small table: `[descriptor | metadata | id links | bucket heads | tombstones | senders]`
    /// in one heap block (each column's offset a multiple of 4, the metadata's of 16), the same
    /// bytes as the columns in blocks of their own. ``mappedColumns(_:)`` is ``oneBlock``.
    ///
    /// - Allocations: one.
    @unsafe
    private static func makeSmall(count: Int, keepsSenders: Bool) -> UnsafeMutablePointer<SlotTable> {
        let heads = 2 << bucketBits(count)
        let idsAt = metaBytes(count)
        let tombstonesAt = idsAt + idBytes(count)
        let sendersAt = tombstonesAt + tombstoneBytes(count)
        let total = sendersAt + (keepsSenders ? senderBytes(count) : 0)
        let head = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 16)
        // SAFETY: every column lies inside the `total` bytes, at offsets aligned for its type
        // (`headerBytes` and the 40-byte metadata keep 8; links, heads and tombstones are 4-byte values).
        let metas = unsafe (head + headerBytes).bindMemory(to: EntryMeta.self, capacity: count)
        let ids = unsafe (head + idsAt).bindMemory(to: IdLinks.self, capacity: count)
        unsafe (head + idsAt + count * MemoryLayout<IdLinks>.stride).bindMemory(to: UInt32.self, capacity: heads)
            .initialize(repeating: 0, count: heads)
        let tombstones = unsafe (head + tombstonesAt).bindMemory(to: Atomic<UInt32>.self, capacity: count)
        for i in 0..<count { unsafe (tombstones + i).initialize(to: Atomic(0)) }
        let senders =
            keepsSenders ? unsafe (head + sendersAt).bindMemory(to: SenderTokens.self, capacity: count) : nil
        unsafe (head + MemoryLayout<SlotTable>.stride).storeBytes(of: oneBlock, as: UInt8.self)
        let p = unsafe head.bindMemory(to: SlotTable.self, capacity: 1)
        unsafe p.initialize(
            to: SlotTable(count: count, metas: metas, tombstones: tombstones, ids: ids, senders: senders))
        return unsafe p
    }

    /// ``mappedColumns(_:)`` of a small table: every column in the descriptor's heap block.
    static let oneBlock: UInt8 = 16

    /// Frees a table made by ``make(count:keepsSenders:pages:)``, with the `pages` it was made with
    /// (metas and senders are trivial values: nothing to deinitialise).
    @unsafe
    static func free(_ p: UnsafeMutablePointer<SlotTable>, pages: PageMapping? = nil) {
        let count = unsafe p.pointee.count
        let mapped = unsafe mappedColumns(p)
        unsafe p.pointee.tombstones.deinitialize(count: count)
        if mapped == oneBlock {
            unsafe p.deinitialize(count: 1)
            unsafe UnsafeMutableRawPointer(p).deallocate()
            return
        }
        unsafe release(UnsafeMutableRawPointer(p.pointee.tombstones), tombstoneBytes(count), mapped & 1, pages)
        unsafe release(UnsafeMutableRawPointer(p.pointee.ids), idBytes(count), mapped & 2, pages)  // heads included
        if let senders = unsafe p.pointee.senders {
            unsafe release(UnsafeMutableRawPointer(senders), senderBytes(count), mapped & 4, pages)
        }
        unsafe p.deinitialize(count: 1)
        unsafe release(UnsafeMutableRawPointer(p), metaBytes(count), mapped & 8, pages)  // metadata included
    }

    /// Which columns of table `p` are mapped: 1 tombstones, 2 links and heads, 4 senders, 8 metadata;
    /// ``oneBlock`` for a small table (all in one heap block).
    @unsafe
    static func mappedColumns(_ p: UnsafeMutablePointer<SlotTable>) -> UInt8 {
        unsafe UnsafeRawPointer(p).load(fromByteOffset: MemoryLayout<SlotTable>.stride, as: UInt8.self)
    }

    /// Columns of this size or more are mapped when the ring has pages (a 40-byte metadata column
    /// from 1,639 slots, the 16-byte links from 4,096): a page's rounding is then at most a
    /// sixteenth of the block.
    static let mappedBlockBytes = 64 * 1_024

    /// A block of `bytes` (16-byte aligned): mapped from `pages` when it is ``mappedBlockBytes`` or
    /// more and the system grants it (then `bit` is set in `mapped`), from the heap otherwise.
    @unsafe
    private static func block(_ bytes: Int, _ bit: UInt8, _ mapped: inout UInt8, _ pages: PageMapping?)
        -> UnsafeMutableRawPointer
    {
        if bytes >= mappedBlockBytes, let pages, let p = unsafe pages.map(pageRounded(bytes)) {
            mapped |= bit
            return unsafe p
        }
        return UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
    }

    /// Gives back a block made by ``block(_:_:_:_:)`` (`isMapped`: its bit was set).
    @unsafe
    private static func release(_ p: UnsafeMutableRawPointer, _ bytes: Int, _ isMapped: UInt8, _ pages: PageMapping?) {
        if isMapped != 0 { unsafe pages!.unmap(p, pageRounded(bytes)) } else { unsafe p.deallocate() }
    }

    /// `bytes` rounded up to whole pages (4 KiB).
    static func pageRounded(_ bytes: Int) -> Int { (bytes + 4_095) & ~4_095 }
    private static func tombstoneBytes(_ count: Int) -> Int { count * MemoryLayout<Atomic<UInt32>>.stride }
    private static func idBytes(_ count: Int) -> Int {
        count * MemoryLayout<IdLinks>.stride + (2 << bucketBits(count)) * MemoryLayout<UInt32>.stride
    }
    private static func senderBytes(_ count: Int) -> Int { count * MemoryLayout<SenderTokens>.stride }
    private static func metaBytes(_ count: Int) -> Int { headerBytes + count * MemoryLayout<EntryMeta>.stride }

    /// Bytes of the descriptor at the head of the metadata's block (rounded up to 16, with at least
    /// a byte to spare: which blocks are mapped).
    static var headerBytes: Int { (MemoryLayout<SlotTable>.stride + 1 + 15) & ~15 }

    @inline(__always)
    func slot(_ seq: UInt64) -> Int { Int(seq % UInt64(count)) }

    /// Copies the `n` slots from `a` in `source` to `b` in this table, a column at a time: metadata,
    /// tombstones, senders (when both keep them) and, with `links`, the id links as they are (the
    /// caller copies the bucket heads with them, or links the entries again).
    ///
    /// Owner only: this table is not published yet, and only the owner writes the old tombstones.
    ///
    /// - Precondition: `a + n <= source.count`, `b + n <= count`, and the source slots hold live
    ///   entries.
    /// - Complexity: O(`n`). - Allocations: none.
    @unsafe
    func copySlots(_ n: Int, from source: SlotTable, at a: Int, to b: Int, links: Bool) {
        precondition(n >= 0 && a + n <= source.count && b + n <= count, "the runs lie in both tables")
        unsafe (metas + b).initialize(from: source.metas + a, count: n)
        // Plain 32-bit values under the atomics: no other thread writes the old ones or reads these.
        unsafe UnsafeMutableRawPointer(tombstones + b).copyMemory(
            from: UnsafeRawPointer(source.tombstones + a), byteCount: n * MemoryLayout<Atomic<UInt32>>.stride)
        if let x = unsafe source.senders, let y = unsafe senders { unsafe (y + b).initialize(from: x + a, count: n) }
        if links { unsafe (ids + b).initialize(from: source.ids + a, count: n) }
    }

    /// Bytes this table reserves: its descriptor, its slots and its bucket heads.
    var reservedBytes: Int {
        Self.headerBytes + count
            * (MemoryLayout<EntryMeta>.stride + MemoryLayout<IdLinks>.stride + MemoryLayout<Atomic<UInt32>>.stride
                + (unsafe senders == nil ? 0 : MemoryLayout<SenderTokens>.stride))
            + Self.headBytes(count)
    }

    /// Bytes of the bucket heads of a table of `count` slots (both chains).
    static func headBytes(_ count: Int) -> Int { (2 << bucketBits(count)) * MemoryLayout<UInt32>.stride }
}
