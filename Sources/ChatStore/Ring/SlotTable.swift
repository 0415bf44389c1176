import Synchronization

/// A ring's slot arrays, one generation: metadata, id hashes and the atomic tombstone of `count` slots, entry
/// `seq` in slot `seq % count`. A trivial descriptor kept in raw memory, like ``ByteStorage``; the
/// ring grows it (by half, towards its capacity) while it fills.
@safe
struct SlotTable {
    let count: Int
    let metas: UnsafeMutablePointer<EntryMeta>
    let tombstones: UnsafeMutablePointer<Atomic<UInt64>>
    /// The entries' id hashes (owner-only: moderation's column).
    let ids: UnsafeMutablePointer<IdHashes>
    /// The senders' interned tokens, in rings of a store that interns them; `nil` otherwise (replay
    /// and dump), so that those pay no 16 bytes per slot for tokens that would all be empty.
    let senders: UnsafeMutablePointer<SenderTokens>?

    /// - Allocations: four (descriptor, metadata, id hashes, tombstones), five with senders.
    static func make(count: Int, keepsSenders: Bool) -> UnsafeMutablePointer<SlotTable> {
        let tombstones = UnsafeMutablePointer<Atomic<UInt64>>.allocate(capacity: count)
        for i in 0..<count { unsafe (tombstones + i).initialize(to: Atomic(0)) }
        let p = UnsafeMutablePointer<SlotTable>.allocate(capacity: 1)
        unsafe p.initialize(
            to: SlotTable(
                count: count, metas: .allocate(capacity: count), tombstones: tombstones,
                ids: .allocate(capacity: count),
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
        unsafe p.pointee.ids.deallocate()
        unsafe p.pointee.senders?.deallocate()
        unsafe p.deallocate()
    }

    @inline(__always)
    func slot(_ seq: UInt64) -> Int { Int(seq % UInt64(count)) }

    /// Bytes this table reserves.
    var reservedBytes: Int {
        count
            * (MemoryLayout<EntryMeta>.stride + MemoryLayout<IdHashes>.stride + MemoryLayout<Atomic<UInt64>>.stride
                + (unsafe senders == nil ? 0 : MemoryLayout<SenderTokens>.stride))
    }
}
