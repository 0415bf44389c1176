import Synchronization

/// A ring's slot arrays, one generation: metadata, moderation's id links and the atomic tombstone of
/// `count` slots, entry `seq` in slot `seq % count`, and moderation's bucket heads. A trivial
/// descriptor kept in raw memory, like ``ByteStorage``; the ring grows it (by half, towards its
/// capacity) while it fills.
///
/// ```
///  ids block:  [ IdLinks × count | message heads × buckets | user heads × buckets ]   (one allocation)
/// ```
@safe
struct SlotTable {
    let count: Int
    let metas: UnsafeMutablePointer<EntryMeta>
    let tombstones: UnsafeMutablePointer<Atomic<UInt64>>
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

    /// - Allocations: four (descriptor, metadata, id links with the bucket heads, tombstones), five
    ///   with senders.
    static func make(count: Int, keepsSenders: Bool) -> UnsafeMutablePointer<SlotTable> {
        let tombstones = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: count)
        for i in 0..<count { unsafe (tombstones + i).initialize(to: Atomic(0)) }
        let heads = 2 << bucketBits(count)
        let block = UnsafeMutableRawPointer.allocate(
            byteCount: count * MemoryLayout<IdLinks>.stride + heads * MemoryLayout<UInt32>.stride,
            alignment: MemoryLayout<IdLinks>.alignment)
        let ids = unsafe block.bindMemory(to: IdLinks.self, capacity: count)
        // SAFETY: the heads start right after the `count` links, inside the block.
        unsafe (block + count * MemoryLayout<IdLinks>.stride).bindMemory(to: UInt32.self, capacity: heads)
            .initialize(repeating: 0, count: heads)
        let p = UnsafeMutablePointer<SlotTable>.allocate(capacity: 1)
        unsafe p.initialize(
            to: SlotTable(
                count: count, metas: .allocate(capacity: count), tombstones: tombstones, ids: ids,
                senders: keepsSenders ? .allocate(capacity: count) : nil))
        return unsafe p
    }

    /// Frees a table made by ``make(count:keepsSenders:)`` (metas and senders are trivial values:
    /// nothing to deinitialise).
    @unsafe
    static func free(_ p: UnsafeMutablePointer<SlotTable>) {
        unsafe p.pointee.tombstones.deinitialize(count: p.pointee.count)
        unsafe p.pointee.tombstones.deallocate()
        unsafe p.pointee.metas.deallocate()
        unsafe UnsafeMutableRawPointer(p.pointee.ids).deallocate()  // the links' block, heads included
        unsafe p.pointee.senders?.deallocate()
        unsafe p.deallocate()
    }

    @inline(__always)
    func slot(_ seq: UInt64) -> Int { Int(seq % UInt64(count)) }

    /// Bytes this table reserves: its slots and its bucket heads.
    var reservedBytes: Int {
        count
            * (MemoryLayout<EntryMeta>.stride + MemoryLayout<IdLinks>.stride + MemoryLayout<Atomic<UInt64>>.stride
                + (unsafe senders == nil ? 0 : MemoryLayout<SenderTokens>.stride))
            + Self.headBytes(count)
    }

    /// Bytes of the bucket heads of a table of `count` slots (both chains).
    static func headBytes(_ count: Int) -> Int { (2 << bucketBits(count)) * MemoryLayout<UInt32>.stride }
}
