/// What a view shows: a channel and a range of at most N sequence numbers of its ring — an index
/// window, never a copy. Resolve it through the channel's ``EntryRing`` with a ``Reader``.
public struct Window: Sendable, Hashable, CustomStringConvertible {
    /// Index of the channel log in its ``ChatStore``.
    public var channel: Int
    /// The visible entries, oldest first.
    public var range: Range<UInt64>

    public init(channel: Int, range: Range<UInt64>) {
        self.channel = channel
        self.range = range
    }

    public var description: String {
        "window(ch \(channel), \(range.lowerBound)..<\(range.upperBound))"
    }
}

/// A coalesced change set for one window: what entered it, what left it, what was modified.
///
/// Ranges are hulls: after coalescing, `inserted` may include entries that have since left the
/// window again; observers intersect with ``window``.
public struct WindowChange: Sendable, Equatable {
    public var window: Window
    /// Entries that entered the window (appended) since the observer's last change set.
    public var inserted: Range<UInt64>
    /// Entries that left the window (scrolled out or evicted) since then.
    public var evicted: Range<UInt64>
    /// Entries whose tombstone changed.
    public var modified: ModifiedSeqs
    /// How many updates this change set coalesces.
    public var coalesced: Int

    /// Folds a later change set into this one: the later window wins, ranges grow to their hull,
    /// modified sets unite. O(1) (bounded by the modified set's capacity); no allocation.
    public mutating func merge(_ later: WindowChange) {
        if later.window.channel != window.channel {
            // Another channel: everything the observer shows is outdated.
            self = later
            modified.markAllModified()
            return
        }
        window = later.window
        inserted = Self.hull(inserted, later.inserted)
        evicted = Self.hull(evicted, later.evicted)
        modified.formUnion(later.modified)
        coalesced += later.coalesced
    }

    static func hull(_ a: Range<UInt64>, _ b: Range<UInt64>) -> Range<UInt64> {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        return min(a.lowerBound, b.lowerBound)..<max(a.upperBound, b.upperBound)
    }
}
