public import Synchronization

/// A process-wide bound on resident memory, kept by trimming channel rings, shared by every
/// `ChatStore` given it, and the count of what it trimmed.
///
/// What it counts (``countedBytes``) is what the rings reserve (their byte storage, slot tables and
/// reader pins: `EntryRing.reservedBytes`), exact and updated as they grow, plus the resident
/// memory of the rest of the process (``outsideBytes``: code, buffers, indexes, the allocator's free
/// blocks), when the budget has a ``ResidentMemory`` to sample: at the start of each pass and each
/// time the rings have grown by a sixty-fourth of the limit, never per line. Without one, only the
/// rings count (the store's own tests).
///
/// A store adds what its rings reserve as they grow. When the count passes ``passStart`` (the limit,
/// or a little under it when resident memory counts) after an append,
/// that store releases the oldest entries of its least recently active channels (never below its
/// floor, never a pinned entry or one a reader still needs), and gives their memory back
/// (`EntryRing.compact()`), until the count is at most ``lowWater``. When the floors and the rest of
/// the process alone hold more than the limit, the next pass waits until the count has grown by
/// another ``slack``: a pass is never tried per line.
///
/// Threads: the stores' owner (one ingest thread for every store given the budget) updates it;
/// any thread reads the figures (relaxed atomics: each is exact, a set of them need not be one
/// instant's).
public final class MemoryBudget: Sendable {
    /// The bound in bytes.
    public let limit: Int
    /// Where the process's resident memory is read (`nil`: only the rings count).
    @usableFromInline let resident: ResidentMemory?
    /// What a pass trims down to: `limit - slack`.
    public var lowWater: Int { limit - slack }
    /// Where a pass starts: ``limit``, less half a ``slack`` when resident memory counts. The rings'
    /// sum is exact at every append, but the rest of the process is read between passes and grows
    /// between readings (the allocator's free blocks, a ring's old storage while a move fills the
    /// new one): starting early keeps the process under the limit (a `tail` of 100 busy channels
    /// with 56M peaked 0.1 MB over it when passes started at the limit itself).
    public var passStart: Int { resident == nil ? limit : limit - slack / 2 }
    /// The gap between ``limit`` and ``lowWater``: a sixteenth of the limit.
    public var slack: Int { limit / 16 }
    /// The default: 1 GiB of resident memory for `tail` or `capture --http-port` of 10,000 busy
    /// channels (README: memory budget).
    public static let defaultLimit = 1 << 30

    @usableFromInline let _held = Atomic<Int>(0)
    private let _outside = Atomic<Int>(0)
    /// The rings' sum at which the process's resident memory is read again.
    @usableFromInline let _nextSample = Atomic<Int>(0)
    /// The sum at which the next pass starts (`limit`, or more after a pass that could not reach `lowWater`).
    @usableFromInline let _threshold: Atomic<Int>
    private let _trimmedEntries = Atomic<Int>(0)
    private let _trimmedBytes = Atomic<Int>(0)
    private let _releasedBytes = Atomic<Int>(0)
    private let _passes = Atomic<Int>(0)
    private let _exceeded = Atomic<Int>(0)

    /// - Parameters:
    ///   - limit: the bound in bytes.
    ///   - resident: where the process's resident memory is read (`ResidentMemory.system` in
    ///     ChatPosix); `nil`: the budget bounds only what the rings reserve.
    /// - Precondition: `limit > 0`.
    public init(limit: Int, resident: ResidentMemory? = nil) {
        precondition(limit > 0, "a memory budget is positive")
        self.limit = limit
        self.resident = resident
        _threshold = Atomic(0)
        _threshold.store(passStart, ordering: .relaxed)
    }

    /// Bytes the rings reserve now.
    public var heldBytes: Int { _held.load(ordering: .relaxed) }
    /// Resident bytes of the process outside the rings at the last sample: its resident memory less
    /// what the rings reserve (0 without a ``ResidentMemory``, or when the rings reserve more than is
    /// resident: untouched pages of their mappings cost nothing).
    public var outsideBytes: Int { _outside.load(ordering: .relaxed) }
    /// What the budget holds against ``limit``: ``heldBytes`` plus ``outsideBytes``.
    public var countedBytes: Int { heldBytes + outsideBytes }
    /// The rings' sum grows by this much between two readings of resident memory: a sixty-fourth of
    /// the limit (16 MiB of the default).
    package var sampleStep: Int { max(limit / 64, 1) }
    /// Entries released by the budget (not counting those a full ring evicted).
    public var trimmedEntries: Int { _trimmedEntries.load(ordering: .relaxed) }
    /// Bytes of the lines of those entries.
    public var trimmedBytes: Int { _trimmedBytes.load(ordering: .relaxed) }
    /// Reserved bytes given back by compacting trimmed rings.
    public var releasedBytes: Int { _releasedBytes.load(ordering: .relaxed) }
    /// Trimming passes run.
    public var passes: Int { _passes.load(ordering: .relaxed) }

    /// The most the count held after a pass that could not bring it under ``limit`` (the floors, the
    /// pinned entries and the rest of the process alone hold more), 0 when every pass could.
    public var exceededBytes: Int { _exceeded.load(ordering: .relaxed) }

    /// One line for stderr: what the budget trimmed, or that it never had to; and when it could not be
    /// kept, how far over it went. Sizes in MiB, the unit `--memory-budget 56M` is given in.
    public var summary: String {
        let mb = { (n: Int) in "\((n + (1 << 19)) >> 20) MiB" }
        let rest = resident == nil ? "" : ", the rest of the process \(mb(outsideBytes))"
        guard trimmedEntries > 0 else {
            return "memory budget \(mb(limit)): nothing trimmed (rings reserve \(mb(heldBytes))\(rest))"
        }
        let kept =
            exceededBytes == 0
            ? ""
            : "; the budget could not be kept: the channels' floors (their last 150 entries) and the rest of "
                + "the process held up to \(mb(exceededBytes)) (a larger --memory-budget, or fewer channels)"
        return "memory budget \(mb(limit)): \(trimmedEntries) entries (\(mb(trimmedBytes)) of lines) trimmed "
            + "from the least recently active channels in \(passes) passes, \(mb(releasedBytes)) given back; "
            + "rings reserve \(mb(heldBytes))\(rest)\(kept)"
    }

    /// Owner: the rings grew (or shrank, negative) by `delta` bytes; reads resident memory again
    /// once they have grown by ``sampleStep`` since the last reading.
    ///
    /// - Complexity: O(1) (a reading is a system call, once per ``sampleStep`` of growth).
    /// - Allocations: none.
    @inlinable
    package func add(_ delta: Int) {
        let held = _held.add(delta, ordering: .relaxed).newValue
        if resident != nil && held >= _nextSample.load(ordering: .relaxed) { sample() }
    }

    /// Owner (and tests): reads the process's resident memory, and counts what the rings do not
    /// reserve of it (``outsideBytes``). A failed reading keeps the last figure.
    public func sample() {
        let held = heldBytes
        _nextSample.store(held + sampleStep, ordering: .relaxed)
        guard let resident else { return }
        let bytes = resident.read()
        if bytes >= 0 { _outside.store(max(0, bytes - held), ordering: .relaxed) }
    }

    /// Owner: whether a trimming pass is due.
    @inlinable
    package var isOver: Bool { countedBytes > _threshold.load(ordering: .relaxed) }

    /// Owner: a pass trimmed `entries` entries of `bytes` line bytes and gave `released` reserved bytes back.
    package func noteTrim(entries: Int, bytes: Int, released: Int) {
        _trimmedEntries.add(entries, ordering: .relaxed)
        _trimmedBytes.add(bytes, ordering: .relaxed)
        _releasedBytes.add(released, ordering: .relaxed)
    }

    /// Owner: a pass ended; the next starts past ``passStart``, or, if this one could not reach
    /// ``lowWater``, once the count has grown by another ``slack``.
    package func notePassEnded() {
        _passes.add(1, ordering: .relaxed)
        let counted = countedBytes
        if counted > limit && counted > exceededBytes { _exceeded.store(counted, ordering: .relaxed) }
        _threshold.store(counted > lowWater ? counted + slack : passStart, ordering: .relaxed)
    }
}
