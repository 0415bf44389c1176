import IRCWire
import Synchronization

/// A ring of up to `capacity` chat lines: each line's bytes stored once, with its parse offsets,
/// receive time and moderation mark, under a monotonically increasing sequence number.
///
/// ```
///  slot:  0 ........ head ............. slots-1
///        [ newest …  | oldest … … … …          ]   full ring: live seqs = tail - capacity ..< tail
/// ```
/// Memory follows the chat: the slot arrays (a ``SlotTable``) start small and grow by a quarter (by
/// half once large) while the ring fills, until they hold `capacity` slots; the bytes (a ``ByteStorage``) grow the same way
/// while small, and once they reach ``mappedBytes`` move into a mapping that grows in place. Growing
/// makes a new generation (copying the live entries, unless the bytes grow in place; entry `seq`
/// moves to slot `seq % newSlots`), publishes it, and frees what the old one alone held once no
/// reader can still hold it. The slot table also holds moderation's index of the entries by message
/// id and by user id (``IdLinks``): chains through the slots, which eviction leaves alone and growth
/// builds again.
///
/// Invariants: live entries are exactly `head ..< tail`; `tail - head <= slots <= capacity`; entry
/// `seq` lives in slot `seq % slots` of the current table; `lowestLive == head` and
/// `published == tail` once an append returns; an entry's bytes are contiguous in the current
/// ``ByteStorage``.
///
/// Threads: one owner (the ingest loop) calls ``append(_:meta:sender:)``, ``evictOldest(_:)`` and
/// ``setTombstone(_:_:)``; any thread holding a ``Reader`` may call the `with…` readers at the same
/// time. Readers pin what they borrow (``ReaderPins``), so an entry is never overwritten under them
/// and a generation they loaded is never freed under them; an evicted sequence answers "gone",
/// never stale bytes. No lock is taken per appended line. The owner's state is plain stored
/// properties of the ring (release builds skip the dynamic exclusivity checks: Package.swift).
@safe
public final class EntryRing: @unchecked Sendable {  // single writer + reader pins + atomics: see above
    public let capacity: Int
    /// Whether entries keep their ``SenderTokens`` (a store that interns senders).
    public let keepsSenders: Bool
    /// ``mappedBytes``, stored beside ``keepsSenders`` in one word (the object stays a word smaller).
    /// With the owner's state inline below, a ring object is one 224-byte heap block (malloc's usable
    /// size 216), where it was a 112-byte object and a 128-byte block for its state.
    private let mappedBytesThreshold: UInt32

    // Owner-only state (one writer, no overlapping access), stored inline in the object: an append
    // reaches it at the ring's own address. It holds copies of the current (immutable) storage and
    // table descriptors next to their addresses, so that an append reaches the slot and the bytes
    // without first loading two descriptors from elsewhere in memory (with thousands of channels,
    // each is a cache miss).
    private var head: UInt64
    private var tail: UInt64
    private var writePosition: UInt64 = 0
    /// Where the oldest live entry's bytes start (`writePosition` when the ring is empty).
    private var oldestByte: UInt64 = 0
    private var storageAddress: UnsafeMutablePointer<ByteStorage>
    private var tableAddress: UnsafeMutablePointer<SlotTable>
    private var storage: ByteStorage
    private var table: SlotTable

    // Shared state.
    private let lowestLive = Atomic<UInt64>(0)
    private let published = Atomic<UInt64>(0)
    /// Addresses of the current ``ByteStorage`` and ``SlotTable`` descriptors, for readers.
    private let currentStorage: Atomic<UInt>
    private let currentTable: Atomic<UInt>
    let pins: ReaderPins

    /// Byte-storage growth factor over the live bytes when a line does not fit in a full ring.
    static let growth = 1.1
    /// Slots a new ring starts with (fewer when its capacity is smaller). Small: with thousands of
    /// channels most say a handful of lines; growing by a quarter reaches a busy channel's capacity in
    /// about twenty steps.
    public static let initialSlots = 4
    /// Bytes a new ring's storage starts with (about one line of chat with its tags); it grows by a
    /// quarter while the ring fills. 512, not 1,024: with 10,000 channels of a handful of lines each, peak RSS
    /// was 2.7 MB lower (channels_bench), and nothing changed at 1 or 1,000 channels.
    public static let initialBytes = 512
    /// Byte storage of this size or more is mapped and grows in place (see ``ByteStorage``).
    public static let mappedBytesDefault = 16 * 1_024
    /// The longest line a ring expects (8,191 bytes of tags and a 512-byte message): sizes the
    /// address space a mapped storage reserves.
    static let longestLine = 8_704
    /// Where mapped byte storage comes from; `nil`: always allocated (and moved when it grows).
    let pages: PageMapping?
    /// Byte storage of this size or more is mapped (``mappedBytesDefault`` unless a test lowers it).
    var mappedBytes: Int { Int(mappedBytesThreshold) }

    /// - Parameters:
    ///   - capacity: entries kept (default 2,500).
    ///   - initialBytes: first byte-storage size; it grows while the ring fills, then (rarely) to
    ///     about 1.1 × the live bytes.
    ///   - keepsSenders: keep each entry's ``SenderTokens`` (16 bytes a slot); without, entries read
    ///     back with empty tokens.
    ///   - pages: where byte storage of ``mappedBytesDefault`` or more comes from (it then grows in
    ///     place); `nil`: always allocated, moved when it grows.
    /// - Allocations: the first slot table and byte storage, once; then one of each per growth.
    public convenience init(
        capacity: Int = 2_500, initialBytes: Int = EntryRing.initialBytes, readers: Int = ReaderRegistry.maximumReaders,
        keepsSenders: Bool = true, pages: PageMapping? = nil
    ) {
        self.init(
            capacity: capacity, initialBytes: initialBytes, readers: readers, keepsSenders: keepsSenders, firstSeq: 0,
            pages: pages)
    }

    /// A ring whose first entry gets sequence `firstSeq`, starting with `initialSlots` slots: lets
    /// tests start at every wrap position and grow at every position.
    package init(
        capacity: Int, initialBytes: Int = EntryRing.initialBytes, initialSlots: Int = EntryRing.initialSlots,
        readers: Int = ReaderRegistry.maximumReaders, keepsSenders: Bool = true, firstSeq: UInt64,
        pages: PageMapping? = nil, mappedBytes: Int = EntryRing.mappedBytesDefault
    ) {
        precondition(capacity > 0, "capacity must be positive")
        precondition(initialSlots > 0, "a ring starts with at least one slot")
        self.capacity = capacity
        self.keepsSenders = keepsSenders
        self.pages = pages
        precondition(mappedBytes >= 0 && mappedBytes <= Int(UInt32.max), "mapping threshold out of range")
        mappedBytesThreshold = UInt32(mappedBytes)
        lowestLive.store(firstSeq, ordering: .relaxed)
        published.store(firstSeq, ordering: .relaxed)
        let storage = unsafe ByteStorage.make(capacity: max(initialBytes, 64), origin: 0)
        let table = unsafe SlotTable.make(count: min(capacity, initialSlots), keepsSenders: keepsSenders)
        currentStorage = Atomic(UInt(bitPattern: storage))
        currentTable = Atomic(UInt(bitPattern: table))
        pins = ReaderPins(count: readers)
        head = firstSeq
        tail = firstSeq
        unsafe storageAddress = storage
        unsafe tableAddress = table
        unsafe self.storage = storage.pointee
        unsafe self.table = table.pointee
    }

    deinit {
        unsafe ByteStorage.free(storageAddress, pages: pages)
        unsafe SlotTable.free(tableAddress)
    }

    // SAFETY (owner methods): the storage and the table live from init to deinit (a
    // replaced generation is freed only by its replacer); slot indexes come from `SlotTable.slot`,
    // below the table's count.

    // MARK: Owner

    /// Live entries (owner's view).
    public var count: Int { Int(self.tail &- head) }
    public var isFull: Bool { count == capacity }
    /// The sequence number the next append gets.
    public var nextSeq: UInt64 { self.tail }
    /// Bytes reserved for entry bytes right now.
    public var byteCapacity: Int { self.storage.capacity }
    /// Slots allocated right now (grows towards ``capacity`` while the ring fills).
    public var slotCapacity: Int { self.table.count }
    /// Bytes this ring reserves now: slot arrays, byte storage (with its descriptor) and reader pins.
    public var reservedBytes: Int {
        self.table.reservedBytes + byteCapacity + ByteStorage.headerBytes + pins.count * MemoryLayout<UInt64>.stride
    }
    /// Bytes of the live entries' lines (owner's view): what the ring holds, against what it reserves.
    ///
    /// - Complexity: O(live entries). - Allocations: none.
    public var heldBytes: Int {
        var total = 0
        var seq = head
        while seq < self.tail {
            total += Int(meta(seq)!.parsed.length)
            seq += 1
        }
        return total
    }
    /// Whether the byte storage is mapped (it has grown to ``mappedBytes``) and grows in place.
    public var byteStorageIsMapped: Bool { self.storage.reserved > 0 }
    /// Where the byte storage starts: moves only when the storage does (tests).
    package var byteStorageAddress: UInt { unsafe UInt(bitPattern: self.storage.base) }
    /// Bytes of the slot table right now: metadata, tombstones, moderation's links and bucket heads,
    /// and the table's descriptor (``slotTableHeaderBytes``), all in one block.
    public var slotBytes: Int { self.table.reservedBytes }
    /// Bytes of a slot table's descriptor, at the start of its block.
    public static var slotTableHeaderBytes: Int { SlotTable.headerBytes }
    /// Bytes per slot for the sender tokens, in a ring that ``keepsSenders``.
    public static var senderBytesPerEntry: Int { MemoryLayout<SenderTokens>.stride }
    /// Fixed bytes per slot besides the line itself (metadata, moderation's id links and the atomic
    /// tombstone: 40 + 16 + 4), plus ``senderBytesPerEntry`` in a ring that ``keepsSenders``; the
    /// table adds moderation's bucket heads, 2 to 4 bytes a slot (``bucketHeadBytes(slots:)``), and
    /// its descriptor (``slotTableHeaderBytes``).
    public static var metadataBytesPerEntry: Int {
        MemoryLayout<EntryMeta>.stride + MemoryLayout<IdLinks>.stride + MemoryLayout<UInt32>.stride
    }
    /// Bytes of moderation's bucket heads in a slot table of `slots` slots.
    public static func bucketHeadBytes(slots: Int) -> Int { SlotTable.headBytes(slots) }

    /// What ``evictOldest(_:)`` removed, as the owner stored it.
    struct Eviction {
        var seq: UInt64
        var meta: EntryMeta
        var tombstone: Tombstone
        /// Empty in a ring that does not keep senders.
        var sender: SenderTokens
    }

    /// Evicts the oldest entry, waits (without a lock) for readers still borrowing it, then lends it
    /// to `body`: everything its slot held, and its bytes. No reader can reach it any more; the
    /// bytes stay as they are until the owner's next append.
    ///
    /// - Precondition: the ring is not empty.
    /// - Complexity: O(readers) plus `body`; one slot lookup. - Allocations: none.
    @discardableResult
    @inline(__always)
    func evictOldest<R>(_ body: (Eviction, Span<UInt8>) -> R) -> R {
        let seq = head
        precondition(self.tail > seq, "evictOldest on an empty ring")
        let table = self.table
        let s = table.slot(seq)
        // SAFETY: live slots hold initialised columns.
        let eviction = unsafe Eviction(
            seq: seq, meta: table.metas[s], tombstone: Tombstone(packed: table.tombstones[s].load(ordering: .relaxed)),
            sender: table.senders.map { unsafe $0[s] } ?? SenderTokens())
        head = seq + 1
        if seq + 1 < self.tail {
            // SAFETY: `seq + 1` is live.
            oldestByte = unsafe table.metas[table.slot(seq + 1)].byteStart
        }
        lowestLive.store(seq + 1, ordering: .sequentiallyConsistent)
        pins.waitUntilReleased(atOrBelow: seq)
        checkInvariants()
        // SAFETY: only the owner writes the storage, and it has not written since the entry was live.
        return unsafe self.storage.withBytes(
            at: eviction.meta.byteStart, count: Int(eviction.meta.parsed.length)
        ) { body(eviction, $0) }
    }

    /// Evicts the oldest entry (see ``evictOldest(_:)``) and returns its sequence number.
    @discardableResult
    func evictOldest() -> UInt64 { evictOldest { eviction, _ in eviction.seq } }

    /// Appends a line and publishes it.
    ///
    /// - Precondition: the ring is not full (the caller evicts first, to release what the entry held) and
    ///   `bytes.count == meta.parsed.length`.
    /// - Complexity: O(`bytes.count`) for the one copy in; amortised O(1) otherwise.
    /// - Allocations: none in steady state (the slot table and the byte storage grow only while the
    ///   ring fills or its live bytes do).
    @discardableResult
    func append(
        _ bytes: Span<UInt8>, meta: EntryMeta, ids: IdHashes = IdHashes(message: 0, user: 0),
        sender: SenderTokens = SenderTokens()
    ) -> UInt64 {
        let seq = self.tail
        let live = seq &- head
        precondition(live < UInt64(capacity), "append to a full ring: evict first")
        precondition(bytes.count == Int(meta.parsed.length), "bytes and parse offsets disagree")
        if live == UInt64(self.table.count) { growTable() }
        let start = reserve(bytes.count)
        var stored = meta
        stored.byteStart = start
        let table = self.table
        let s = table.slot(seq)
        // SAFETY: `s < table.count`; the slot is free (its previous entry was evicted and released,
        // or the table is new).
        unsafe (table.metas + s).initialize(to: stored)
        unsafe table.tombstones[s].store(0, ordering: .relaxed)
        table.link(seq, message: IdLinks.fingerprint(ids.message), user: IdLinks.fingerprint(ids.user), slot: s)
        // SAFETY: `s < table.count`, the senders' count too.
        if let senders = unsafe table.senders { unsafe (senders + s).initialize(to: sender) }
        if live == 0 { oldestByte = start }
        let storage = self.storage
        let dst = storage.physical(start)
        // SAFETY: `reserve` guarantees `dst + count <= storage.capacity` and that no live entry
        // uses these bytes; `bytes` is a separate buffer.
        unsafe bytes.withUnsafeBytes { src in
            unsafe (storage.base + dst).copyMemory(from: src.baseAddress!, byteCount: src.count)
        }
        self.tail = seq + 1
        published.store(seq + 1, ordering: .releasing)
        checkInvariants()
        return seq
    }

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
    ///   `count / buckets`, 2 to 4 in a full ring), for tests of its cost.
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

    /// Finds room for `count` contiguous bytes, growing the storage if the live bytes need it.
    private func reserve(_ count: Int) -> UInt64 {
        while true {
            let storage = self.storage
            let writePosition = self.writePosition
            var position = writePosition
            let physical = storage.physical(position)
            if physical + count > storage.capacity { position += UInt64(storage.capacity - physical) }
            let oldest = self.tail > head ? oldestByte : position
            if position + UInt64(count) - oldest <= UInt64(storage.capacity) {
                self.writePosition = position + UInt64(count)
                return position
            }
            grow(live: min(oldest, writePosition)..<writePosition, adding: count)
        }
    }

    /// Makes room for `count` more bytes: extends a mapped storage in place when the live bytes sit
    /// in one lap of it, and otherwise moves the live bytes into a larger storage (mapped once it is
    /// ``mappedBytes`` or more). Publishes the new generation and retires the old one once no reader
    /// can still be reading it.
    ///
    /// - Complexity: O(1) in place; O(live bytes) for a move (amortised O(1) per byte appended).
    /// - Allocations: a descriptor; for a move, the new bytes too.
    private func grow(live: Range<UInt64>, adding count: Int) {
        let old = unsafe storageAddress
        let oldStorage = unsafe old.pointee
        let oldCapacity = oldStorage.capacity
        let entries = self.count
        let needed: Int
        if entries < capacity {
            // While the ring fills: grow by a step (a quarter of allocated memory: amortised O(1)
            // copying, at most a fifth unused; by half, 10,000 channels of a few kilobytes each
            // reserved 2 MB more (channels_bench); an eighth of mapped memory, which grows in place and
            // whose pages cost nothing until touched), but not past the full ring at the average
            // line length seen so far. In `Double` and clamped: `capacity` may be as large as
            // `Int.max` (it only bounds the ring).
            let projected =
                entries > 64
                ? Int(min(Double(live.count / entries) * Double(capacity) * Self.growth, Double(Int.max / 2))) : .max
            let step = oldStorage.reserved > 0 ? oldCapacity / 8 : oldCapacity / 4
            needed = max(live.count + count, min(oldCapacity + step, projected))
        } else {
            needed = Int(Double(live.count + count) * Self.growth)
        }
        // Rounded up to 64 bytes; no fixed padding: with thousands of channels of a few lines each, a
        // kilobyte per channel would be most of what they hold.
        let size = (max(needed, oldCapacity + count) + 63) & ~63
        if size <= oldStorage.reserved {
            // The lap that holds the oldest live byte; in place if it holds the newest too.
            let lap =
                oldStorage.origin + (live.lowerBound - oldStorage.origin) / UInt64(oldCapacity) * UInt64(oldCapacity)
            if live.upperBound - lap <= UInt64(oldCapacity) {
                let next = unsafe oldStorage.extended(to: size, lap: lap)
                unsafe publish(next)
                // Readers that loaded `old` read the same bytes through it; only the descriptor goes.
                pins.waitUntilAllObservedFree()
                unsafe ByteStorage.freeDescriptor(old)
                return
            }
        }
        move(live: live, toSize: size)
    }

    /// Moves the live bytes `live` (at most two physical segments) linearly to the start of a new
    /// storage of `size` bytes (mapped once it is ``mappedBytes`` or more), publishes it, and frees
    /// the old one once no reader can still be reading it.
    ///
    /// - Precondition: `size >= live.count`.
    /// - Complexity: O(live bytes). - Allocations: the new storage and its descriptor.
    private func move(live: Range<UInt64>, toSize size: Int) {
        precondition(size >= live.count, "the live bytes fit in the new storage")
        let old = unsafe storageAddress
        let oldStorage = unsafe old.pointee
        let oldCapacity = oldStorage.capacity
        var mapped: UnsafeMutablePointer<ByteStorage>? = nil
        if let pages, size >= mappedBytes {
            unsafe mapped = ByteStorage.makeMapped(
                capacity: size, origin: live.lowerBound, reserving: reservation(for: size), from: pages)
        }
        let next = unsafe mapped ?? ByteStorage.make(capacity: size, origin: live.lowerBound)
        // Copy `live` (at most two physical segments) linearly to the start of `next`.
        var copied = 0
        var v = live.lowerBound
        while v < live.upperBound {
            let p = oldStorage.physical(v)
            let n = min(Int(live.upperBound - v), oldCapacity - p)
            // SAFETY: `p + n <= old capacity`; `copied + n <= live.count <= next.capacity`.
            unsafe (next.pointee.base + copied).copyMemory(from: oldStorage.base + p, byteCount: n)
            copied += n
            v += UInt64(n)
        }
        unsafe publish(next)
        // Readers that loaded `old` are pinned; once each slot has been seen free, none can hold it.
        pins.waitUntilAllObservedFree()
        unsafe ByteStorage.free(old, pages: pages)
    }

    /// Makes `next` the current storage, for the owner and for readers.
    @unsafe
    private func publish(_ next: UnsafeMutablePointer<ByteStorage>) {
        unsafe storageAddress = unsafe next
        self.storage = unsafe next.pointee
        currentStorage.store(UInt(bitPattern: next), ordering: .sequentiallyConsistent)
    }

    /// Address space to reserve for a mapped storage of `size` bytes: enough for the full ring of
    /// the longest lines (so that it never moves again), at least twice `size`, at most 64 GiB.
    /// Only touched pages cost memory.
    private func reservation(for size: Int) -> Int {
        let full = min(Double(capacity) * Double(Self.longestLine) * Self.growth, Double(1 << 36))
        return max(2 * size, Int(full))
    }

    /// Gives back what a ring trimmed well below its size no longer needs: moves the live bytes into
    /// a storage sized to them (with the growth margin) when that is at most three quarters of the
    /// current one, and the slots into a table half again the live count (at least
    /// ``initialSlots``) when that is at most three quarters of the current one. Called by the
    /// store's memory budget after it trims a ring, never per line.
    ///
    /// - Returns: the bytes of ``reservedBytes`` given back (0 when nothing moved).
    /// - Complexity: O(live entries + live bytes). - Allocations: the new storage and table, when they move.
    @discardableResult
    func compact() -> Int {
        let before = reservedBytes
        let live = (self.tail > head ? oldestByte : writePosition)..<writePosition
        let bytes = (max(Int(Double(live.count) * Self.growth), Self.initialBytes, 64) + 63) & ~63
        if bytes <= self.storage.capacity / 4 * 3 {
            move(live: live, toSize: bytes)
        }
        let slots = min(capacity, max(count + count / 2, Self.initialSlots, 1))
        if slots <= self.table.count / 4 * 3 { resizeTable(to: slots) }
        checkInvariants()
        return before - reservedBytes
    }

    /// The lowest sequence number a reader has pinned in this ring (`UInt64.max`: none). A reader
    /// may pin after this look: the budget trims below it and eviction still waits for pins.
    ///
    /// - Complexity: O(readers). - Allocations: none.
    var lowestPinned: UInt64 { pins.lowest }

    /// Grows the slot table by a quarter while it has fewer than ``quarterStepSlots`` slots, by half
    /// from there (up to `capacity`), moving each live entry to its slot in the new one, publishes it,
    /// and frees the old one once no reader can still be reading it.
    ///
    /// A small table by a quarter, not by half: it is at least four fifths full (metadata is most of
    /// what a channel of short lines reserves besides its bytes: at 10,000 channels, by half cost
    /// 1.1 MB more peak RSS in channels_bench), and the copies stay amortised O(1) (four per entry).
    /// A large one by half: a ring of 300,000 entries grown by a quarter made twice as many tables of
    /// megabytes, and peak RSS was 17 MB higher (the heap kept the ones it freed).
    private func growTable() {
        let count = self.table.count
        let step = count < Self.quarterStepSlots ? count / 4 : count / 2
        resizeTable(to: min(capacity, count + max(1, step)))
    }

    /// Slot tables below this size grow by a quarter, larger ones by half (``growTable()``): every
    /// ring of the default capacity of 2,500 grows by a quarter.
    static let quarterStepSlots = 4_096

    /// Moves the live entries into a slot table of `slots` slots (entry `seq` to slot
    /// `seq % slots`), publishes it, and frees the old one once no reader can still be reading it.
    ///
    /// - Precondition: `slots >= count` (every live entry has a slot).
    private func resizeTable(to slots: Int) {
        precondition(slots >= count && slots <= capacity, "the live entries fit in the new table")
        let old = unsafe tableAddress
        let next = unsafe SlotTable.make(count: slots, keepsSenders: keepsSenders)
        let from = unsafe old.pointee
        let to = unsafe next.pointee
        var seq = head
        while seq < self.tail {
            // SAFETY: both slots are below their table's count; `seq` is live, so its meta is initialised.
            unsafe (to.metas + to.slot(seq)).initialize(to: from.metas[from.slot(seq)])
            // Moderation's chains are built again (other buckets), oldest entry first.
            let links = unsafe from.ids[from.slot(seq)]
            to.link(seq, message: links.message, user: links.user, slot: to.slot(seq))
            unsafe to.tombstones[to.slot(seq)].store(
                from.tombstones[from.slot(seq)].load(ordering: .relaxed), ordering: .relaxed)
            if let a = unsafe from.senders, let b = unsafe to.senders {
                unsafe (b + to.slot(seq)).initialize(to: a[from.slot(seq)])
            }
            seq += 1
        }
        unsafe tableAddress = unsafe next
        self.table = unsafe next.pointee
        // Readers that see a sequence published after this load at least this table.
        currentTable.store(UInt(bitPattern: next), ordering: .sequentiallyConsistent)
        pins.waitUntilAllObservedFree()
        unsafe SlotTable.free(old)
    }

    private func checkInvariants() {
        assert(head <= self.tail)
        assert(self.tail - head <= UInt64(self.table.count))
        assert(self.table.count <= capacity)
        assert(lowestLive.load(ordering: .relaxed) == head)
        assert(
            head == self.tail
                || meta(head)!.byteStart == oldestByte)
        unsafe assert(self.storage.base == storageAddress.pointee.base)
        unsafe assert(self.table.metas == tableAddress.pointee.metas)
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
