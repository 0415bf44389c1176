import IRCWire
import Synchronization

/// Reading a ring from any thread: the live range, and entries lent under a ``Reader``'s pin.
extension EntryRing {
    /// The live sequence numbers as readers see them: `lowest ..< next`.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public var liveRange: Range<UInt64> {
        let upper = published.load(ordering: .acquiring)
        let lower = lowestLive.load(ordering: .acquiring)
        return min(lower, upper)..<upper
    }

    /// Lends entry `seq` to `body`, or answers that it is gone (evicted) or not yet appended.
    ///
    /// - Complexity: O(1) plus `body`. - Allocations: none.
    public func withEntry<R, E: Error>(
        _ seq: UInt64, reader: Reader, _ body: (EntryInfo, Span<UInt8>) throws(E) -> R
    ) throws(E) -> EntryLookup<R> {
        pins.pin(reader.slot, seq)
        defer { pins.unpin(reader.slot) }
        guard seq >= lowestLive.load(ordering: .sequentiallyConsistent) else { return .gone }
        guard seq < published.load(ordering: .acquiring) else { return .notYet }
        return .found(try unsafe borrow(seq, from: loadStorage(), loadTable(), body))
    }

    /// Lends every live entry of `range`, in order, to `body`. Entries evicted before the walk
    /// starts are counted in the result's `missed`; the walk itself is protected by one pin on its
    /// lowest entry.
    ///
    /// - Complexity: O(`range.count`) plus `body`. - Allocations: none.
    @discardableResult
    public func withEntries<E: Error>(
        in range: Range<UInt64>, reader: Reader, _ body: (EntryInfo, Span<UInt8>) throws(E) -> Void
    ) throws(E) -> RangeRead {
        var lower = range.lowerBound
        while true {
            pins.pin(reader.slot, lower)
            let low = lowestLive.load(ordering: .sequentiallyConsistent)
            if low <= lower { break }
            lower = low  // the start was evicted: move up and pin again
        }
        defer { pins.unpin(reader.slot) }
        let upper = min(range.upperBound, published.load(ordering: .acquiring))
        // One storage and one table for the whole walk: neither can be retired while we are pinned,
        // and both were current when `upper` was published, or later (they hold every live entry).
        let storage = unsafe loadStorage()
        let table = unsafe loadTable()
        var seq = lower
        while seq < upper {
            try unsafe borrow(seq, from: storage, table, body)
            seq += 1
        }
        return RangeRead(
            visited: lower..<max(lower, upper), missed: min(lower, range.upperBound) - range.lowerBound)
    }

    /// The byte storage readers use. Unsafe: valid only while the caller is pinned.
    @unsafe
    @inline(__always)
    private func loadStorage() -> ByteStorage {
        let raw = currentStorage.load(ordering: .sequentiallyConsistent)
        return unsafe UnsafePointer<ByteStorage>(bitPattern: raw)!.pointee
    }

    /// The slot table readers use. Unsafe: valid only while the caller is pinned, and only for
    /// sequences it saw published before loading it.
    @unsafe
    @inline(__always)
    private func loadTable() -> SlotTable {
        let raw = currentTable.load(ordering: .sequentiallyConsistent)
        return unsafe UnsafePointer<SlotTable>(bitPattern: raw)!.pointee
    }

    /// Reads a pinned (or owned) entry.
    @unsafe
    private func borrow<R, E: Error>(
        _ seq: UInt64, from bytesStorage: ByteStorage, _ table: SlotTable,
        _ body: (EntryInfo, Span<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        let s = table.slot(seq)
        // SAFETY: the caller pinned `seq` (or an earlier entry) after checking it is live, so the
        // slot's meta and bytes stay as published until it unpins; the storage and table it loaded
        // (after seeing `seq` published) hold the entry and cannot be retired while it is pinned.
        let meta = unsafe table.metas[s]
        let info = EntryInfo(
            seq: seq, parsed: meta.parsed, command: meta.command, receivedAt: Timestamp(milliseconds: meta.receivedAt),
            tombstone: Tombstone(packed: unsafe table.tombstones[s].load(ordering: .acquiring)),
            sender: unsafe table.senders.map { unsafe $0[s] } ?? SenderTokens(),
            isMirror: meta.isMirror)
        return try unsafe bytesStorage.withBytes(at: meta.byteStart, count: Int(meta.parsed.length)) {
            bytes throws(E) in
            try body(info, bytes)
        }
    }
}

/// The answer of ``EntryRing/withEntry(_:reader:_:)``.
public enum EntryLookup<R> {
    case found(R)
    /// Evicted: the ring has moved past it.
    case gone
    /// Not appended yet.
    case notYet
}

extension EntryLookup: Sendable where R: Sendable {}

/// What ``EntryRing/withEntries(in:reader:_:)`` covered.
public struct RangeRead: Sendable, Equatable {
    /// The sequence numbers lent to the closure.
    public var visited: Range<UInt64>
    /// Entries of the requested range that had been evicted (the reader fell behind by this many).
    public var missed: UInt64
}
