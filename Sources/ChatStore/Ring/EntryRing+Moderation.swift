import IRCWire
import Synchronization

/// Moderation marks in place, the id index that finds their targets, and the owner's view of one
/// entry (its metadata, bytes and sender) that moderation confirms a hit with. Owner only.
extension EntryRing {
    // SAFETY (owner methods, as in EntryRing.swift): the storage and the table live from init to
    // deinit (a replaced generation is freed only by its replacer); slot indexes come from
    // `SlotTable.slot`, below the table's count.

    /// Marks entry `seq` (if live) with `tombstone`, unless it carries a stronger one already.
    ///
    /// - Returns: whether the mark changed. - Complexity: O(1). - Allocations: none.
    @discardableResult
    func setTombstone(_ seq: UInt64, _ tombstone: Tombstone) -> Bool {
        guard seq >= head && seq < self.tail else { return false }
        let table = self.table
        let current = Tombstone(packed: unsafe table.tombstones[table.slot(seq)].load(ordering: .relaxed))
        let merged = current.merging(tombstone)
        guard merged != current else { return false }
        unsafe table.tombstones[table.slot(seq)].store(merged.packed, ordering: .releasing)
        return true
    }

    /// Calls `body` with the sequence number of every live entry whose `id` hash (or, with `user`,
    /// `user-id` hash) is `hash`, newest first (owner's view), and of any other whose hash shares its
    /// 32-bit fingerprint (the caller confirms each on the bytes): a walk of the hash's bucket chain
    /// (``IdLinks``), not a pass over the ring.
    ///
    /// - Returns: the entries it visited: those found, and the bucket's other live entries (about
    ///   `count / buckets`, 4 to 8 in a full ring), for tests of its cost.
    /// - Complexity: O(entries visited), expected O(1 + entries found) whatever the ring holds.
    /// - Allocations: none.
    @discardableResult
    func forEachLive(withIdHash hash: UInt64, user: Bool = false, _ body: (UInt64) -> Void) -> Int {
        self.table.forEachLinked(hash, user: user, live: head..<self.tail, body)
    }

    /// The owner's view of entry `seq`'s sender tokens (empty when it is not live, or the ring does
    /// not keep them).
    func sender(_ seq: UInt64) -> SenderTokens {
        guard seq >= head && seq < self.tail,
            let senders = unsafe self.table.senders
        else { return SenderTokens() }
        // SAFETY: live slot.
        return unsafe senders[self.table.slot(seq)]
    }

    /// The owner's view of entry `seq`'s metadata, or `nil` when it is not live.
    func meta(_ seq: UInt64) -> EntryMeta? {
        guard seq >= head && seq < self.tail else { return nil }
        let table = self.table
        // SAFETY: live slot.
        return unsafe table.metas[table.slot(seq)]
    }

    /// Owner-side borrow of a live entry's parse offsets and bytes (no pin needed: only the owner
    /// overwrites).
    func ownerBytes<R>(_ seq: UInt64, _ body: (ParsedLine, Span<UInt8>) -> R) -> R? {
        guard let m = meta(seq) else { return nil }
        return unsafe self.storage.withBytes(at: m.byteStart, count: Int(m.parsed.length)) {
            body(m.parsed, $0)
        }
    }
}
