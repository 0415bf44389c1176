import ChatMemory
import Synchronization

/// Growth and compaction: the byte storage and the slot table grow while the ring fills (and the
/// bytes when its live bytes do), and give memory back when the budget trims the ring; each makes
/// a new generation, publishes it, and frees the old one once no reader can still hold it. Owner only.
extension EntryRing {
    // SAFETY (owner methods, as in EntryRing.swift): the storage and the table live from init to
    // deinit (a replaced generation is freed only by its replacer); slot indexes come from
    // `SlotTable.slot`, below the table's count.

    /// Makes room for `count` more bytes: extends a mapped storage in place when the live bytes sit
    /// in one lap of it, and otherwise moves the live bytes into a larger storage (mapped once it is
    /// ``mappedBytes`` or more). Publishes the new generation and retires the old one once no reader
    /// can still be reading it.
    ///
    /// - Complexity: O(1) in place; O(live bytes) for a move (amortised O(1) per byte appended).
    /// - Allocations: a descriptor; for a move, the new bytes too.
    func grow(live: Range<UInt64>, adding count: Int) {
        let old = unsafe storageAddress
        // The owner's copy of `old.pointee`: the descriptor itself (at a region's head, or a heap
        // block's) is a cache miss with thousands of channels (at 10,000, 88% of this method's time
        // was that load).
        let oldStorage = self.storage
        let oldCapacity = oldStorage.capacity
        let entries = self.count
        let needed: Int
        if entries < capacity {
            // While the ring fills: grow by a step (a quarter of allocated memory, at least
            // ``minimumStepBytes`` and at most doubling: amortised O(1) copying, at most a fifth
            // unused once past 4 KB; by half, 10,000 channels of a few kilobytes each
            // reserved 2 MB more (channels_bench); by an eighth, peak RSS there was 0.7 MB lower but
            // replay took 1 to 1.5% more instructions a line, copying each byte twice as often while
            // small; an eighth of mapped memory, which grows in place and
            // whose pages cost nothing until touched), but not past the full ring at the average
            // line length seen so far. In `Double` and clamped: `capacity` may be as large as
            // `Int.max` (it only bounds the ring).
            let projected =
                entries > 64
                ? Int(min(Double(live.count / entries) * Double(capacity) * Self.growth, Double(Int.max / 2))) : .max
            // In a region as on the heap: its growth is cheap, but each is a new generation.
            let step =
                oldStorage.reserved > 0 && !oldStorage.isInRegion
                ? oldCapacity / 8 : max(oldCapacity / 4, min(oldCapacity, Self.minimumStepBytes))
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
                let next = unsafe oldStorage.extended(to: size, lap: lap, replacing: old)
                unsafe publish(next)
                // Readers that loaded `old` read the same bytes through it; only the descriptor goes.
                pins.waitUntilAllObservedFree()
                unsafe ByteStorage.freeDescriptor(old, of: oldStorage)
                return
            }
        }
        move(live: live, toSize: size)
    }

    /// The least allocated byte storage grows by while the ring fills (a quarter of it from 4 KB): 512,
    /// 1,024, 2,048, 3,072, 4,096, then 5,120, 6,400… A channel of 30 lines of real chat (11 KB) moves
    /// its bytes 9 times instead of 12, each a heap allocation, a copy and a free on memory that the
    /// other channels have long pushed out of the caches. With 300,000 such lines over 10,000
    /// channels (realchat_channels_bench, even), replay took 6.7% less CPU a line (best of 5), peak
    /// RSS unchanged; at 1,000 channels nothing changed; in channels_bench (10,000 Zipf-spread
    /// channels, the median of ten lines) peak RSS was unchanged and rings reserved 2 MB more.
    /// Doubling up to 4 KB took about as little CPU but cost 3.5 MB more peak RSS in both benches
    /// with Zipf-spread channels; slot tables doubling below 16 slots saved instructions (2.4% a
    /// line) but no measurable CPU, for 2.5 MB more peak RSS in channels_bench.
    static let minimumStepBytes = 1_024

    /// A store's ring moves its bytes into a region (``EntryRing/regionBytes``) when they grow to this
    /// size, not before: a quiet channel's page would be most of what it holds. Peak RSS of 10,000
    /// Zipf-spread channels (realchat_channels_bench, skew) against heap storage: 11.5 MB higher
    /// from the first growth (1 KB), 8.7 MB from 2 KB, 2.5 MB from 4 KB (and 5 MB lower with 10,000
    /// evenly spread channels).
    static let regionEntryBytes = 4_096

    /// Moves the live bytes `live` (at most two physical segments) linearly to the start of a new
    /// storage of `size` bytes (mapped once it is ``mappedBytes`` or more; below that in a region of
    /// the store's ``PageRegions`` when the ring has one and `size` fits, so that it then grows in
    /// place), publishes it, and frees the old one once no reader can still be reading it.
    ///
    /// - Precondition: `size >= live.count`.
    /// - Complexity: O(live bytes). - Allocations: the new storage and its descriptor; none in a region.
    private func move(live: Range<UInt64>, toSize size: Int) {
        precondition(size >= live.count, "the live bytes fit in the new storage")
        let old = unsafe storageAddress
        let oldStorage = self.storage  // `old.pointee`, without loading it (see `grow`)
        let oldCapacity = oldStorage.capacity
        var mapped: UnsafeMutablePointer<ByteStorage>? = nil
        if let pages, size >= mappedBytes {
            unsafe mapped = ByteStorage.makeMapped(
                capacity: size, origin: live.lowerBound, reserving: reservation(for: size), from: pages)
        } else if let memory, size >= Self.regionEntryBytes, size <= memory.regionBytes - ByteStorage.regionHeaderBytes,
            let region = unsafe memory.take()
        {
            unsafe mapped = ByteStorage.makeInRegion(
                region, regionBytes: memory.regionBytes, capacity: size, origin: live.lowerBound)
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
        unsafe ByteStorage.free(old, of: oldStorage, pages: pages)
        // After `free`, which reads the descriptor in the region: recycling discards its pages.
        if oldStorage.isInRegion { unsafe memory!.recycle(oldStorage.region) }
    }

    /// Makes `next` the current storage, for the owner and for readers.
    @unsafe
    private func publish(_ next: UnsafeMutablePointer<ByteStorage>) {
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

    /// Grows the slot table by a quarter (at least ``minimumStepSlots``) while it has fewer than
    /// ``quarterStepSlots`` slots, by half from there (up to `capacity`), moving each live entry to its slot in the new one, publishes it,
    /// and frees the old one once no reader can still be reading it.
    ///
    /// A small table by a quarter, not by half: it is at least four fifths full (metadata is most of
    /// what a channel of short lines reserves besides its bytes: at 10,000 channels, by half cost
    /// 1.1 MB more peak RSS in channels_bench; by an eighth, no less, and replay took 2.5% more
    /// instructions a line), and the copies stay amortised O(1) (four per entry).
    /// A large one by half: a ring of 300,000 entries grown by a quarter made twice as many tables of
    /// megabytes, and peak RSS was 17 MB higher (the heap kept the ones it freed).
    func growTable() {
        let count = self.table.count
        let step = count < Self.quarterStepSlots ? count / 4 : count / 2
        resizeTable(to: min(capacity, count + max(Self.minimumStepSlots, step)))
    }

    /// Slot tables below this size grow by a quarter, larger ones by half (``growTable()``): every
    /// ring of the default capacity of 2,500 grows by a quarter.
    static let quarterStepSlots = 4_096

    /// The fewest slots a table grows by: 4, 8, 12, 16, 20, 25, 31, 38… instead of 4, 5, 6, 7, 8,
    /// 10, 12, 15… A channel of 30 lines grows its table 6 times instead of 10, each a heap
    /// allocation, a copy and a free on memory the other channels have pushed out of the caches.
    /// realchat_channels_bench, even spread over 10,000 channels (with the channel name no longer
    /// built by appends): heap allocations of a replay 178,309 → 132,122 (1,000 channels: 29,424 →
    /// 24,737), CPU 4 to 6% lower, peak RSS 0.5 MB higher (skew: 0.6 MB). At least 8 slots (and 8
    /// to start with): 102,665 allocations and 5 to 7% less CPU, but peak RSS 2.4 MB higher at
    /// 10,000 channels (skew 1.9 MB).
    static let minimumStepSlots = 4

    /// Moves the live entries into a slot table of `slots` slots (entry `seq` to slot
    /// `seq % slots`), publishes it, and frees the old one once no reader can still be reading it.
    ///
    /// The live entries lie in at most two runs of slots in each table, so they move in at most
    /// three runs a column (``SlotTable/copySlots(_:from:at:to:links:)``), not an entry at a time.
    /// Moderation's chains move with them as they are while both tables have as many buckets (their
    /// links count back in sequence numbers, their heads are sequence numbers: neither names a
    /// slot), and are built again, oldest entry first, when the bucket count changes (about one
    /// growth in three). An entry at a time, a replay of 1,000 channels of real chat spent 339
    /// instructions a line here (cachegrind).
    ///
    /// - Precondition: `slots >= count` (every live entry has a slot).
    /// - Complexity: O(live entries). - Allocations: the new table.
    private func resizeTable(to slots: Int) {
        precondition(slots >= count && slots <= capacity, "the live entries fit in the new table")
        let old = unsafe tableAddress
        let next = unsafe SlotTable.make(count: slots, keepsSenders: keepsSenders, pages: pages)
        let from = unsafe old.pointee
        let to = unsafe next.pointee
        let sameBuckets = SlotTable.bucketBits(from.count) == SlotTable.bucketBits(to.count)
        // Entry `seq`'s slots in both tables, stepped (and wrapped) a run at a time.
        var seq = head
        var a = from.slot(seq)
        var b = to.slot(seq)
        while seq < self.tail {
            let n = min(Int(self.tail - seq), from.count - a, to.count - b)
            // SAFETY: `a + n <= from.count` and `b + n <= to.count`; the `n` entries are live, so the
            // old table's slots hold them.
            unsafe to.copySlots(n, from: from, at: a, to: b, links: sameBuckets)
            seq += UInt64(n)
            a = a + n == from.count ? 0 : a + n
            b = b + n == to.count ? 0 : b + n
        }
        if sameBuckets {
            // SAFETY: both tables have `2 << bits` heads.
            unsafe to.heads.update(from: from.heads, count: 2 << SlotTable.bucketBits(to.count))
        } else {
            seq = head
            a = from.slot(seq)
            b = to.slot(seq)
            while seq < self.tail {
                // SAFETY: `a < from.count` and `b < to.count`; `seq` is live, so its links are set.
                let links = unsafe from.ids[a]
                to.link(seq, message: links.message, user: links.user, slot: b)
                seq += 1
                a = a + 1 == from.count ? 0 : a + 1
                b = b + 1 == to.count ? 0 : b + 1
            }
        }
        self.table = unsafe next.pointee
        // Readers that see a sequence published after this load at least this table.
        currentTable.store(UInt(bitPattern: next), ordering: .sequentiallyConsistent)
        pins.waitUntilAllObservedFree()
        unsafe SlotTable.free(old, pages: pages)
    }
}
