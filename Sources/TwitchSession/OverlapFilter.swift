/// Writes each line of a RECONNECT overlap once: while a retiring connection and its replacement
/// both deliver a channel, the same line arrives on both.
///
/// Lines are matched by ``LineFingerprint`` (the `id`, or for id-less lines the hash of the line
/// without receive-time tags), copy for copy: a line is kept when its side has now delivered more
/// copies of that fingerprint than the other side. So a line that arrives on both is kept once,
/// and a line that really is sent twice (two identical JOINs) is kept twice if both sides carry
/// both. Only lines received after the RECONNECT go through it.
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
    private var counts: [UInt64: (retiring: Int32, replacement: Int32)] = [:]
    private var order: [UInt64] = []
    private var next = 0
    /// Copies dropped because the other side had already delivered them.
    public private(set) var duplicates = 0

    /// - Precondition: `capacity > 0`.
    public init(capacity: Int = OverlapFilter.defaultCapacity) {
        precondition(capacity > 0, "a filter remembers at least one line")
        self.capacity = capacity
    }

    /// Whether the line with `fingerprint` from `side` is to be written (the first copy of it).
    ///
    /// - Complexity: O(1) amortised. - Allocations: none once ``capacity`` fingerprints are held
    ///   (the table and the ring grow to it).
    public mutating func admit(_ fingerprint: UInt64, from side: Side) -> Bool {
        var entry = counts[fingerprint] ?? (0, 0)
        if entry == (0, 0) { remember(fingerprint) }
        let keep: Bool
        switch side {
        case .retiring:
            entry.retiring += 1
            keep = entry.retiring > entry.replacement
        case .replacement:
            entry.replacement += 1
            keep = entry.replacement > entry.retiring
        }
        counts[fingerprint] = entry
        if !keep { duplicates += 1 }
        return keep
    }

    /// The replacement is handed over in its turn (a RECONNECT on it): it becomes the retiring side,
    /// and what the side before it delivered now counts as delivered by the other side, so that its
    /// late copies of those lines stay dropped. A fresh filter here wrote them twice.
    ///
    /// - Complexity: O(fingerprints held). - Allocations: one table of that size (once a RECONNECT).
    public mutating func handOver() {
        counts = counts.mapValues { (retiring: $0.replacement, replacement: $0.retiring) }
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
