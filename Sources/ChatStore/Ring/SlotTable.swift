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
/// Columns in blocks of their own, not one block per table: one block of every column was 6 MB more
/// peak RSS at 10,000 channels (channels_bench): the heap reuses the small blocks a growing table
/// frees for other small blocks, and could not reuse the large ones.
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

    /// - Allocations: three (descriptor with the metadata, id links with the bucket heads,
    ///   tombstones), four with senders. The descriptor shares the metadata's block: a block of its
    ///   own cost every channel a heap block (48 bytes).
    static func make(count: Int, keepsSenders: Bool) -> UnsafeMutablePointer<SlotTable> {
        let tombstones = UnsafeMutablePointer<Atomic<UInt32>>.allocate(capacity: count)
        for i in 0..<count { unsafe (tombstones + i).initialize(to: Atomic(0)) }
        let heads = 2 << bucketBits(count)
        let block = UnsafeMutableRawPointer.allocate(
            byteCount: count * MemoryLayout<IdLinks>.stride + heads * MemoryLayout<UInt32>.stride,
            alignment: MemoryLayout<IdLinks>.alignment)
        let ids = unsafe block.bindMemory(to: IdLinks.self, capacity: count)
        // SAFETY: the heads start right after the `count` links, inside the block.
        unsafe (block + count * MemoryLayout<IdLinks>.stride).bindMemory(to: UInt32.self, capacity: heads)
            .initialize(repeating: 0, count: heads)
        let head = UnsafeMutableRawPointer.allocate(
            byteCount: headerBytes + count * MemoryLayout<EntryMeta>.stride, alignment: 16)
        let p = unsafe head.bindMemory(to: SlotTable.self, capacity: 1)
        // SAFETY: the metadata starts `headerBytes` (a multiple of 16) into the block, after the descriptor.
        let metas = unsafe (head + headerBytes).bindMemory(to: EntryMeta.self, capacity: count)
        unsafe p.initialize(
            to: SlotTable(
                count: count, metas: metas, tombstones: tombstones, ids: ids,
                senders: keepsSenders ? .allocate(capacity: count) : nil))
        return unsafe p
    }

    /// Frees a table made by ``make(count:keepsSenders:)`` (metas and senders are trivial values:
    /// nothing to deinitialise).
    @unsafe
    static func free(_ p: UnsafeMutablePointer<SlotTable>) {
        unsafe p.pointee.tombstones.deinitialize(count: p.pointee.count)
        unsafe p.pointee.tombstones.deallocate()
        unsafe UnsafeMutableRawPointer(p.pointee.ids).deallocate()  // the links' block, heads included
        unsafe p.pointee.senders?.deallocate()
        unsafe p.deinitialize(count: 1)
        unsafe UnsafeMutableRawPointer(p).deallocate()  // the descriptor's block, metadata included
    }

    /// Bytes of the descriptor at the head of the metadata's block (rounded up to 16).
    static var headerBytes: Int { (MemoryLayout<SlotTable>.stride + 15) & ~15 }

    @inline(__always)
    func slot(_ seq: UInt64) -> Int { Int(seq % UInt64(count)) }

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
