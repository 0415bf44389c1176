/// Writes each line of a RECONNECT overlap once: while a retiring connection and its replacement
/// both deliver a channel, the same line arrives on both.
///
/// Lines are matched by ``LineFingerprint`` (the `id`, or for id-less lines the hash of the line
/// without receive-time tags), copy for copy: a line is kept when its side has now delivered more
/// copies of that fingerprint than the other side. So a line that arrives on both is kept once,
/// and a line that really is sent twice (two identical JOINs) is kept twice if both sides carry
/// both. Only lines received after the RECONNECT go through it.
///
/// It also tells when the retiring connection has been read far enough to be closed (``caughtUp``):
/// once the replacement has joined every channel (``settle()``), a line with an id that has come on
/// both, whichever came first. If the replacement's copy came second, everything the retiring
/// connection sent before it has been read; if the retiring connection's copy came second, the
/// same, and what it sends after is on the replacement too. Only the first was a sign before: a
/// retiring connection read behind its replacement (its socket served second on every wake-up) was
/// never confirmed, and stayed open until the settle time or the server's close, with the ingest
/// loop draining it meanwhile (`ReconnectOverlapCLITests`: one RECONNECT in 2 s, not 1).
///
/// Bounded: the last ``capacity`` fingerprints are remembered, older ones are forgotten (an overlap
/// lasts seconds; the bound is far above what it carries at Twitch's rates).
public struct OverlapFilter: Sendable {
    /// Which connection a line came from.
    public enum Side: Sendable, Equatable {
        /// The connection that was sent RECONNECT.
        case retiring
        /// Its replacement.
        case replacement
    }

    /// Fingerprints remembered: 16,384 (about 0.5 MiB with the table).
    public static let defaultCapacity = 16_384

    public let capacity: Int
    /// Copies of a fingerprint each side delivered, and the ordinal of the replacement's first copy
    /// (0: none, or delivered before the last ``handOver()``).
    private struct Copies {
        var retiring: Int32 = 0
        var replacement: Int32 = 0
        var firstReplacement: UInt32 = 0
    }
    private var counts: [UInt64: Copies] = [:]
    private var order: [UInt64] = []
    private var next = 0
    /// Lines the replacement delivered since the last ``handOver()``: the ordinal of the last one
    /// (wrapping: 2^32 lines would be hours of one overlap at 400,000 lines/s; a filter is dropped
    /// seconds after its retiring connection closes).
    private var replacementLines: UInt32 = 0
    /// The first ordinal of the replacement's lines sent after it had joined every channel
    /// (``settle()``); `nil` until then.
    private var settledFrom: UInt32? = nil
    /// Copies dropped because the other side had already delivered them.
    public private(set) var duplicates = 0
    /// The retiring connection has been read past a line that the replacement delivered after
    /// ``settle()``: everything it alone carried has been read, and it can be closed without reading on.
    public private(set) var caughtUp = false
    /// Whether ``settle()`` was called since the last ``handOver()``.
    public var isSettled: Bool { settledFrom != nil }

    /// - Precondition: `capacity > 0`.
    public init(capacity: Int = OverlapFilter.defaultCapacity) {
        precondition(capacity > 0, "a filter remembers at least one line")
        self.capacity = capacity
    }

    /// Whether the line with `fingerprint` from `side` is to be written (the first copy of it). A
    /// line with an id (`identified`) that came on both sides sets ``caughtUp`` when the
    /// replacement's copy came after ``settle()``: id-less lines (the ROOMSTATE that answers every
    /// JOIN) can be sent to each connection on its own, and a copy of one proves nothing.
    ///
    /// - Complexity: O(1) amortised. - Allocations: none once ``capacity`` fingerprints are held
    ///   (the table and the ring grow to it).
    public mutating func admit(_ fingerprint: UInt64, from side: Side, identified: Bool = false) -> Bool {
        var entry = counts[fingerprint] ?? Copies()
        if entry.retiring == 0 && entry.replacement == 0 { remember(fingerprint) }
        let keep: Bool
        switch side {
        case .retiring:
            entry.retiring += 1
            keep = entry.retiring > entry.replacement
        case .replacement:
            replacementLines &+= 1
            if entry.replacement == 0 { entry.firstReplacement = replacementLines }
            entry.replacement += 1
            keep = entry.replacement > entry.retiring
        }
        counts[fingerprint] = entry
        if !keep {
            duplicates += 1
            if identified, let settledFrom, entry.firstReplacement >= settledFrom { caughtUp = true }
        }
        return keep
    }

    /// The replacement has joined every channel the retiring connection was delivering: its lines
    /// from the next one on can show that the retiring connection has been read far enough.
    public mutating func settle() {
        guard settledFrom == nil else { return }
        settledFrom = replacementLines &+ 1
    }

    /// The replacement is handed over in its turn (a RECONNECT on it): it becomes the retiring side,
    /// and what the side before it delivered now counts as delivered by the other side, so that its
    /// late copies of those lines stay dropped. A fresh filter here wrote them twice. A new overlap
    /// starts: not settled, not caught up, and no line of the old replacement's counts as a line of
    /// the new replacement's.
    ///
    /// - Complexity: O(fingerprints held). - Allocations: one table of that size (once a RECONNECT).
    public mutating func handOver() {
        counts = counts.mapValues { Copies(retiring: $0.replacement, replacement: $0.retiring) }
        replacementLines = 0
        settledFrom = nil
        caughtUp = false
    }

    /// Appends `fingerprint` to the ring, forgetting the oldest one when it is full.
    private mutating func remember(_ fingerprint: UInt64) {
        if order.count < capacity {
            order.append(fingerprint)
        } else {
            counts[order[next]] = nil
            order[next] = fingerprint
        }
        next = next + 1 == capacity ? 0 : next + 1
    }
}
