public import ChatMemory
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
/// half once large) while the ring fills, until they hold `capacity` slots; the bytes (a
/// ``ByteStorage``) grow the same way while small (by at least 1 KB), and once they reach
/// ``mappedBytes`` move into a mapping that grows in place (in a store, from 4 KB into a region of
/// ``regionBytes`` that grows in place, and past it into a mapping). Growing
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
    /// With the owner's state and the reader pins inline below, a ring object is one 240-byte
    /// object in a 256-byte heap block (248 bytes while it held the mapping's two function pointers
    /// instead of ``memory``), where it was a 112-byte object and a 128-byte block for its state,
    /// then a 216-byte object and an 80-byte block for the pins.
    private let mappedBytesThreshold: UInt32

    // Owner-only state (one writer, no overlapping access), stored inline in the object: an append
    // reaches it at the ring's own address. It holds copies of the current (immutable) storage and
    // table descriptors (their addresses are in `currentStorage` and `currentTable`), so that an
    // append reaches the slot and the bytes without first loading two descriptors from elsewhere in
    // memory (with thousands of channels, each is a cache miss).
    // This state and the shared state below are internal rather than private only because the ring's
    // concerns are split over files (`EntryRing+Growth.swift`, `+Moderation`, `+Memory`, `+Readers`):
    // nothing outside the ring touches them; the rest of the module goes through its methods.
    var head: UInt64
    var tail: UInt64
    var writePosition: UInt64 = 0
    /// Where the oldest live entry's bytes start (`writePosition` when the ring is empty).
    var oldestByte: UInt64 = 0
    var storage: ByteStorage
    var table: SlotTable

    // Shared state.
    let lowestLive = Atomic<UInt64>(0)
    let published = Atomic<UInt64>(0)
    /// Addresses of the current ``ByteStorage`` and ``SlotTable`` descriptors, for readers.
    let currentStorage: Atomic<UInt>
    let currentTable: Atomic<UInt>
    let pins: ReaderPins

    /// The current storage's descriptor, as the owner published it in ``currentStorage`` (the
    /// owner's own store: a relaxed load sees it). Read at growth and deinit only, so it is not kept
    /// twice in the object (a stored copy cost every channel 8 bytes).
    var storageAddress: UnsafeMutablePointer<ByteStorage> {
        unsafe UnsafeMutablePointer(bitPattern: currentStorage.load(ordering: .relaxed))!
    }
    /// The current slot table's descriptor, as the owner published it in ``currentTable``.
    var tableAddress: UnsafeMutablePointer<SlotTable> {
        unsafe UnsafeMutablePointer(bitPattern: currentTable.load(ordering: .relaxed))!
    }

    /// Byte-storage growth factor over the live bytes when a line does not fit in a full ring.
    static let growth = 1.1
    /// Slots a new ring starts with (fewer when its capacity is smaller). Small: with thousands of
    /// channels most say a handful of lines; growing by a quarter reaches a busy channel's capacity in
    /// about twenty steps.
    public static let initialSlots = 4
    /// Entries kept per channel unless told otherwise: the moderation look-ahead of every command
    /// (`--capacity`) and the recent-messages history of capture and tail (`--http-history`). The one
    /// place the number is written.
    public static let defaultCapacity = 2_500

    /// Bytes a new ring's storage starts with (about one line of chat with its tags); it grows by a
    /// quarter, at least ``minimumStepBytes``, while the ring fills. 512, not 1,024: with 10,000
    /// channels of a handful of lines each, peak RSS was 2.7 MB lower (channels_bench), and nothing
    /// changed at 1 or 1,000 channels.
    public static let initialBytes = 512
    /// Byte storage of this size or more is mapped and grows in place (see ``ByteStorage``).
    public static let mappedBytesDefault = 16 * 1_024
    /// Bytes of the regions (``PageRegions``) a store's rings move their bytes into once they reach
    /// 4 KB, to grow in place up to the region's end, then into a mapping of their own. Only written
    /// pages cost memory: a ring's region holds at most a page more than it wrote. 128 KB, not
    /// 16 KB: a channel of 300 lines of real chat (1,000 channels) stays in its region instead of
    /// moving again at 16 KB (a copy, and the region's pages discarded: with 16 KB, replay of 1,000
    /// channels took 3 to 9% more CPU than with heap storage; realchat_channels_bench).
    public static let regionBytes = 128 * 1_024
    /// The longest line a ring expects (8,191 bytes of tags and a 512-byte message): sizes the
    /// address space a mapped storage reserves.
    static let longestLine = 8_704
    /// Where mapped byte storage comes from, and the regions a small ring's bytes grow in (a store's;
    /// a ring of its own gets none); `nil`: always allocated (and moved when it grows). One reference,
    /// a word less than the mapping's two function pointers it replaces in the object.
    let memory: PageRegions?
    /// Where mapped byte storage and large slot-table columns come from (``memory``'s mapping).
    var pages: PageMapping? { memory?.pages }
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
        capacity: Int = EntryRing.defaultCapacity, initialBytes: Int = EntryRing.initialBytes,
        keepsSenders: Bool = true,
        pages: PageMapping? = nil
    ) {
        self.init(
            capacity: capacity, initialBytes: initialBytes, keepsSenders: keepsSenders, firstSeq: 0, pages: pages)
    }

    /// A ring whose first entry gets sequence `firstSeq`, starting with `initialSlots` slots: lets
    /// tests start at every wrap position and grow at every position. `regions` (a store's, which
    /// outlives none of its rings: each holds it) replaces `pages` with its own mapping.
    package init(
        capacity: Int, initialBytes: Int = EntryRing.initialBytes, initialSlots: Int = EntryRing.initialSlots,
        keepsSenders: Bool = true, firstSeq: UInt64,
        pages: PageMapping? = nil, regions: PageRegions? = nil, mappedBytes: Int = EntryRing.mappedBytesDefault
    ) {
        precondition(capacity > 0, "capacity must be positive")
        precondition(initialSlots > 0, "a ring starts with at least one slot")
        self.capacity = capacity
        self.keepsSenders = keepsSenders
        memory = regions ?? pages.map { PageRegions(pages: $0, regionBytes: 0) }
        precondition(mappedBytes >= 0 && mappedBytes <= Int(UInt32.max), "mapping threshold out of range")
        mappedBytesThreshold = UInt32(mappedBytes)
        lowestLive.store(firstSeq, ordering: .relaxed)
        published.store(firstSeq, ordering: .relaxed)
        let storage = unsafe ByteStorage.make(capacity: max(initialBytes, 64), origin: 0)
        let table = unsafe SlotTable.make(
            count: min(capacity, initialSlots), keepsSenders: keepsSenders, pages: memory?.pages)
        currentStorage = Atomic(UInt(bitPattern: storage))
        currentTable = Atomic(UInt(bitPattern: table))
        pins = ReaderPins()
        head = firstSeq
        tail = firstSeq
        unsafe self.storage = storage.pointee
        unsafe self.table = table.pointee
    }

    deinit {
        unsafe ByteStorage.free(storageAddress, pages: pages)
        unsafe SlotTable.free(tableAddress, pages: pages)
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

    /// Adds to `lines` what the next ``append(_:meta:ids:sender:)`` will write first: the next slot's
    /// metadata, id links and tombstone, and the first two cache lines at the write position
    /// (``ChatStore/lookahead(_:in:_:)``); and, when the bytes live in a region and fewer than
    /// ``growthHintBytes`` are left before its storage's end, the region's head, where growing in
    /// place writes the next generation's descriptor. Addresses only: nothing is read behind them.
    /// Owner only.
    ///
    /// - Complexity: O(1). - Allocations: none.
    func appendTargets(into lines: inout CacheLineList) {
        let table = self.table
        let s = table.slot(self.tail)
        // SAFETY: `s < table.count`: addresses inside the table's columns, and inside the storage
        // (`physical` is below its capacity); none is read here.
        unsafe lines.add(table.metas + s)
        unsafe lines.add(UnsafeRawPointer(table.metas + s) + (MemoryLayout<EntryMeta>.size - 1))
        unsafe lines.add(table.ids + s)
        unsafe lines.add(table.tombstones + s)
        let storage = self.storage
        let p = storage.physical(self.writePosition)
        unsafe lines.add(storage.base + p)
        unsafe lines.add(storage.base + min(p + 64, storage.capacity - 1))
        // SAFETY: a region's head is the page its storage starts in (``ByteStorage/region``).
        if storage.capacity &- p < Self.growthHintBytes && storage.isInRegion { unsafe lines.add(storage.region) }
    }

    /// Room left before the byte storage's end under which ``appendTargets(into:)`` names the region's
    /// head: about three lines of chat, so that the append that grows the storage (or wraps it) finds
    /// that line near. A growth in place writes the new descriptor there, then publishes it with a
    /// store that waits for every earlier store: with 10,000 channels that head was a miss at each of
    /// the five growths a channel of 30 lines makes in its region (perf: 77% of `grow`'s samples on
    /// the load just after), and naming it took 2% off the CPU of a replay of 10,000 evenly spread
    /// channels of real chat (median of 16 alternated runs; 1,000 channels: no change).
    static let growthHintBytes = 1_024

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

    /// Asserts the invariants (free in release); every mutating method calls it.
    func checkInvariants() {
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
}
