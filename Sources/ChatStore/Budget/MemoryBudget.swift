import Synchronization

/// A process-wide bound on the bytes channel rings reserve (their byte storage, slot tables and
/// reader pins: ``EntryRing/reservedBytes``), shared by every ``ChatStore`` given it, and the
/// count of what it trimmed.
///
/// A store adds what its rings reserve as they grow. When the sum passes ``limit`` after an append,
/// that store releases the oldest entries of its least recently active channels (never below its
/// floor, never a pinned entry or one a reader still needs), and gives their memory back
/// (``EntryRing/compact()``), until the sum is at most ``lowWater``. When the floors alone hold more
/// than the limit, the next pass waits until the sum has grown by another ``slack``: a pass is never
/// tried per line.
///
/// Threads: the stores' owner (one ingest thread for every store given the budget) updates it;
/// any thread reads the figures (relaxed atomics: each is exact, a set of them need not be one
/// instant's).
public final class MemoryBudget: Sendable {
    /// The bound in bytes.
    public let limit: Int
    /// What a pass trims down to: `limit - slack`.
    public var lowWater: Int { limit - slack }
    /// The gap between ``limit`` and ``lowWater``: a sixteenth of the limit.
    public var slack: Int { limit / 16 }
    /// The default: keeps `tail` or `capture --http-port` of 10,000 busy channels under 2 GB of
    /// resident memory (README: memory budget).
    public static let defaultLimit = 1 << 30

    private let _held = Atomic<Int>(0)
    /// The sum at which the next pass starts (`limit`, or more after a pass that could not reach `lowWater`).
    private let _threshold: Atomic<Int>
    private let _trimmedEntries = Atomic<Int>(0)
    private let _trimmedBytes = Atomic<Int>(0)
    private let _releasedBytes = Atomic<Int>(0)
    private let _passes = Atomic<Int>(0)

    /// - Precondition: `limit > 0`.
    public init(limit: Int) {
        precondition(limit > 0, "a memory budget is positive")
        self.limit = limit
        _threshold = Atomic(limit)
    }

    /// Bytes the rings reserve now.
    public var heldBytes: Int { _held.load(ordering: .relaxed) }
    /// Entries released by the budget (not counting those a full ring evicted).
    public var trimmedEntries: Int { _trimmedEntries.load(ordering: .relaxed) }
    /// Bytes of the lines of those entries.
    public var trimmedBytes: Int { _trimmedBytes.load(ordering: .relaxed) }
    /// Reserved bytes given back by compacting trimmed rings.
    public var releasedBytes: Int { _releasedBytes.load(ordering: .relaxed) }
    /// Trimming passes run.
    public var passes: Int { _passes.load(ordering: .relaxed) }

    /// One line for stderr: what the budget trimmed, or that it never had to.
    public var summary: String {
        let mb = { (n: Int) in "\((n + 500_000) / 1_000_000) MB" }
        guard trimmedEntries > 0 else {
            return "memory budget \(mb(limit)): nothing trimmed (rings reserve \(mb(heldBytes)))"
        }
        return "memory budget \(mb(limit)): \(trimmedEntries) entries (\(mb(trimmedBytes)) of lines) trimmed "
            + "from the least recently active channels in \(passes) passes, \(mb(releasedBytes)) given back; "
            + "rings reserve \(mb(heldBytes))"
    }

    /// Owner: the rings grew (or shrank, negative) by `delta` bytes.
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inline(__always)
    func add(_ delta: Int) { _held.add(delta, ordering: .relaxed) }

    /// Owner: whether a trimming pass is due.
    @inline(__always)
    var isOver: Bool { _held.load(ordering: .relaxed) > _threshold.load(ordering: .relaxed) }

    /// Owner: a pass trimmed `entries` entries of `bytes` line bytes and gave `released` reserved bytes back.
    func noteTrim(entries: Int, bytes: Int, released: Int) {
        _trimmedEntries.add(entries, ordering: .relaxed)
        _trimmedBytes.add(bytes, ordering: .relaxed)
        _releasedBytes.add(released, ordering: .relaxed)
    }

    /// Owner: a pass ended; the next starts past `limit`, or, if this one could not reach
    /// ``lowWater``, once the sum has grown by another ``slack``.
    func notePassEnded() {
        _passes.add(1, ordering: .relaxed)
        let held = heldBytes
        _threshold.store(held > lowWater ? held + slack : limit, ordering: .relaxed)
    }
}
