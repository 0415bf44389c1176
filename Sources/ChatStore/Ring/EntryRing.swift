import Synchronization
import IRCWire

/// A fixed-capacity ring of chat lines: each line's bytes stored once, with its parse offsets,
/// receive time and moderation mark, under a monotonically increasing sequence number.
///
/// ```
///  slot:  0 ........ head ............. capacity-1
///        [ newest …  | oldest … … … …          ]   full ring: live seqs = tail - capacity ..< tail
/// ```
/// Invariants: live entries are exactly `head ..< tail`; `tail - head <= capacity`; entry `seq` lives
/// in slot `seq % capacity`; `lowestLive == head` and `published == tail` once an append returns;
/// an entry's bytes are contiguous in the current ``ByteStorage``.
///
/// Threads: one owner (the ingest loop) calls ``append(_:meta:)``, ``evictOldest()`` and
/// ``setTombstone(_:_:)``; any thread holding a ``Reader`` may call the `with…` readers at the same
/// time. Readers pin what they borrow (``ReaderPins``), so an entry is never overwritten under them;
/// an evicted sequence answers "gone", never stale bytes. No lock is taken per appended line.
@safe
public final class EntryRing: @unchecked Sendable {  // single writer + reader pins + atomics: see above
    public let capacity: Int

    // Owner-only state.
    private var head: UInt64 = 0
    private var tail: UInt64 = 0
    private var writePosition: UInt64 = 0
    private var storage: ByteStorage

    // Shared state.
    private let lowestLive = Atomic<UInt64>(0)
    private let published = Atomic<UInt64>(0)
    private let currentStorage: Atomic<UInt>
    let pins: ReaderPins
    private let metas: UnsafeMutablePointer<EntryMeta>
    private let tombstones: UnsafeMutablePointer<Atomic<UInt64>>

    /// Byte-storage growth factor over the live bytes when a line does not fit.
    static let growth = 1.1

    /// - Parameters:
    ///   - capacity: entries kept (default 2,500).
    ///   - initialBytes: first byte-storage size; it grows (rarely, during warm-up) to about
    ///     1.1 × the live bytes.
    /// - Allocations: the slot arrays and the first byte storage, once.
    public convenience init(capacity: Int = 2_500, initialBytes: Int = 64 * 1024, readers: Int = ReaderRegistry.maximumReaders) {
        self.init(capacity: capacity, initialBytes: initialBytes, readers: readers, firstSeq: 0)
    }

    /// A ring whose first entry gets sequence `firstSeq` (and so lives in slot `firstSeq % capacity`):
    /// lets tests start at every wrap position.
    package init(capacity: Int, initialBytes: Int = 64 * 1024, readers: Int = ReaderRegistry.maximumReaders, firstSeq: UInt64) {
        precondition(capacity > 0, "capacity must be positive")
        self.capacity = capacity
        head = firstSeq
        tail = firstSeq
        lowestLive.store(firstSeq, ordering: .relaxed)
        published.store(firstSeq, ordering: .relaxed)
        storage = ByteStorage(capacity: max(initialBytes, Int(UInt16.max) + 1), origin: 0)
        currentStorage = Atomic(UInt(bitPattern: unsafe Unmanaged.passUnretained(storage).toOpaque()))
        pins = ReaderPins(count: readers)
        unsafe metas = .allocate(capacity: capacity)
        unsafe tombstones = .allocate(capacity: capacity)
        for i in 0..<capacity { unsafe (tombstones + i).initialize(to: Atomic(0)) }
    }

    deinit {
        // Slots in `head ..< tail` hold initialised metas (trivial values: nothing to deinitialise).
        unsafe metas.deallocate()
        unsafe tombstones.deinitialize(count: capacity)
        unsafe tombstones.deallocate()
    }

    // MARK: Owner

    /// Live entries (owner's view).
    public var count: Int { Int(tail &- head) }
    public var isFull: Bool { count == capacity }
    /// The sequence number the next append gets.
    public var nextSeq: UInt64 { tail }
    /// Bytes reserved for entry bytes right now.
    public var byteCapacity: Int { storage.capacity }
    /// Fixed bytes per slot besides the line itself (metadata and the atomic tombstone).
    public static var metadataBytesPerEntry: Int { MemoryLayout<EntryMeta>.stride + MemoryLayout<UInt64>.stride }

    @inline(__always)
    private func slot(_ seq: UInt64) -> Int { Int(seq % UInt64(capacity)) }

    /// Evicts the oldest entry and returns its sequence number and metadata (for the caller's
    /// indexes). Waits, without a lock, for readers still borrowing it.
    ///
    /// - Precondition: the ring is not empty.
    /// - Complexity: O(readers). - Allocations: none.
    @discardableResult
    func evictOldest() -> (seq: UInt64, meta: EntryMeta) {
        precondition(tail > head, "evictOldest on an empty ring")
        let seq = head
        // SAFETY: `slot(seq) < capacity`; live slots hold initialised metas.
        let meta = unsafe metas[slot(seq)]
        head += 1
        lowestLive.store(head, ordering: .sequentiallyConsistent)
        pins.waitUntilReleased(atOrBelow: seq)
        checkInvariants()
        return (seq, meta)
    }

    /// Appends a line and publishes it.
    ///
    /// - Precondition: the ring is not full (the caller evicts first, to update its indexes) and
    ///   `bytes.count == meta.parsed.length`.
    /// - Complexity: O(`bytes.count`) for the one copy in; amortised O(1) otherwise.
    /// - Allocations: none in steady state (the byte storage grows only when live bytes do).
    @discardableResult
    func append(_ bytes: Span<UInt8>, meta: EntryMeta) -> UInt64 {
        precondition(tail &- head < UInt64(capacity), "append to a full ring: evict first")
        precondition(bytes.count == Int(meta.parsed.length), "bytes and parse offsets disagree")
        let start = reserve(bytes.count)
        let seq = tail
        var stored = meta
        stored.byteStart = start
        let s = slot(seq)
        // SAFETY: `s < capacity`; the slot is free (its previous entry was evicted and released).
        unsafe (metas + s).initialize(to: stored)
        unsafe tombstones[s].store(0, ordering: .relaxed)
        let dst = storage.physical(start)
        // SAFETY: `reserve` guarantees `dst + count <= storage.capacity` and that no live entry
        // uses these bytes; `bytes` is a separate buffer.
        unsafe bytes.withUnsafeBytes { src in
            unsafe (storage.base + dst).copyMemory(from: src.baseAddress!, byteCount: src.count)
        }
        tail += 1
        published.store(tail, ordering: .releasing)
        checkInvariants()
        return seq
    }

    /// Marks entry `seq` (if live) with `tombstone`, unless it carries a stronger one already.
    ///
    /// - Returns: whether the mark changed. - Complexity: O(1). - Allocations: none.
    @discardableResult
    func setTombstone(_ seq: UInt64, _ tombstone: Tombstone) -> Bool {
        guard seq >= head && seq < tail else { return false }
        // SAFETY: `slot(seq) < capacity`.
        let current = Tombstone(packed: unsafe tombstones[slot(seq)].load(ordering: .relaxed))
        guard current.isWeaker(than: tombstone) else { return false }
        unsafe tombstones[slot(seq)].store(tombstone.packed, ordering: .releasing)
        return true
    }

    /// The owner's view of entry `seq`'s metadata, or `nil` when it is not live.
    func meta(_ seq: UInt64) -> EntryMeta? {
        guard seq >= head && seq < tail else { return nil }
        // SAFETY: live slot.
        return unsafe metas[slot(seq)]
    }

    /// Owner-side borrow of a live entry's parse offsets and bytes (no pin needed: only the owner
    /// overwrites).
    func ownerBytes<R>(_ seq: UInt64, _ body: (ParsedLine, Span<UInt8>) -> R) -> R? {
        guard let m = meta(seq) else { return nil }
        return unsafe storage.withBytes(at: m.byteStart, count: Int(m.parsed.length)) { body(m.parsed, $0) }
    }

    /// Finds room for `count` contiguous bytes, growing the storage if the live bytes need it.
    private func reserve(_ count: Int) -> UInt64 {
        while true {
            var position = writePosition
            let physical = storage.physical(position)
            if physical + count > storage.capacity { position += UInt64(storage.capacity - physical) }
            // SAFETY (read): the oldest live slot holds an initialised meta.
            let oldest = tail > head ? unsafe metas[slot(head)].byteStart : position
            if position + UInt64(count) - oldest <= UInt64(storage.capacity) {
                writePosition = position + UInt64(count)
                return position
            }
            grow(live: oldest..<writePosition, adding: count)
        }
    }

    /// Moves the live bytes into a larger storage, publishes it, and retires the old one once no
    /// reader can still be reading it.
    private func grow(live: Range<UInt64>, adding count: Int) {
        // While the ring fills, size for the full ring at the average line length seen so far, so
        // that warm-up grows a couple of times instead of every 15 %.
        let entries = Int(tail &- head)
        let projected = entries > 16 && entries < capacity ? live.count / entries * capacity : 0
        let needed = Double(max(live.count + count, projected)) * Self.growth
        let next = ByteStorage(capacity: max(Int(needed) + 4096, storage.capacity + count), origin: live.lowerBound)
        // Copy `live` (at most two physical segments) linearly to the start of `next`.
        var copied = 0
        var v = live.lowerBound
        while v < live.upperBound {
            let p = storage.physical(v)
            let n = min(Int(live.upperBound - v), storage.capacity - p)
            // SAFETY: `p + n <= storage.capacity`; `copied + n <= live.count <= next.capacity`.
            unsafe (next.base + copied).copyMemory(from: storage.base + p, byteCount: n)
            copied += n
            v += UInt64(n)
        }
        let old = storage
        storage = next
        currentStorage.store(
            UInt(bitPattern: unsafe Unmanaged.passUnretained(next).toOpaque()), ordering: .sequentiallyConsistent)
        // Readers that loaded `old` are pinned; once each slot has been seen free, none can hold it.
        pins.waitUntilAllObservedFree()
        _ = old  // released here
    }

    private func checkInvariants() {
        assert(head <= tail && tail - head <= UInt64(capacity))
        assert(lowestLive.load(ordering: .relaxed) == head)
    }

    // MARK: Readers (any thread)

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
        return .found(try unsafe borrow(seq, from: loadStorage(), body))
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
        // One storage for the whole walk: it cannot be retired while we are pinned.
        let storage = unsafe loadStorage()
        var seq = lower
        while seq < upper {
            try unsafe borrow(seq, from: storage, body)
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
        return unsafe Unmanaged<ByteStorage>.fromOpaque(UnsafeRawPointer(bitPattern: raw)!).takeUnretainedValue()
    }

    /// Reads a pinned (or owned) entry.
    @unsafe
    private func borrow<R, E: Error>(
        _ seq: UInt64, from bytesStorage: ByteStorage, _ body: (EntryInfo, Span<UInt8>) throws(E) -> R
    ) throws(E) -> R {
        let s = slot(seq)
        // SAFETY: the caller pinned `seq` (or an earlier entry) after checking it is live, so the
        // slot's meta and bytes stay as published until it unpins; the storage it loads cannot be
        // retired while it is pinned.
        let meta = unsafe metas[s]
        let info = EntryInfo(
            seq: seq, parsed: meta.parsed, command: meta.command, receivedAt: meta.receivedAt,
            tombstone: Tombstone(packed: unsafe tombstones[s].load(ordering: .acquiring)), sender: meta.sender,
            isMirror: meta.isMirror)
        return try unsafe bytesStorage.withBytes(at: meta.byteStart, count: Int(meta.parsed.length)) { bytes throws(E) in
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
