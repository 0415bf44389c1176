public import ChatStore

/// The fingerprints (``LineFingerprint``) of the last lines chatcap received in one channel, and when
/// the newest came: what a backfill after a gap compares the service's lines with.
///
/// A fixed ring of ``capacity`` fingerprints, filled as lines arrive; the oldest is overwritten.
/// Owned by the ingest loop, one per channel, only while backfill is on.
public struct RecentLines: Sendable {
    /// How many fingerprints a channel keeps: 512 (4 KiB a channel).
    public static let defaultCapacity = 512

    private var ring: [UInt64]
    private var next = 0
    /// How many fingerprints were ever added (`min(total, capacity)` are held).
    public private(set) var total = 0
    /// The fingerprint of the newest line, `nil` before the first.
    public private(set) var newest: UInt64? = nil
    /// When the newest line was received.
    public private(set) var newestReceivedAt: Timestamp? = nil

    /// - Precondition: `capacity > 0`.
    public init(capacity: Int = RecentLines.defaultCapacity) {
        precondition(capacity > 0, "a ring holds at least one fingerprint")
        ring = []
        ring.reserveCapacity(capacity)
        self.capacity = capacity
    }

    public let capacity: Int

    /// Remembers a received line.
    ///
    /// - Complexity: O(1). - Allocations: none once the ring is full (it grows to ``capacity``).
    public mutating func append(_ fingerprint: UInt64, receivedAt: Timestamp) {
        if ring.count < capacity {
            ring.append(fingerprint)
        } else {
            ring[next] = fingerprint
        }
        next = next + 1 == capacity ? 0 : next + 1
        total += 1
        newest = fingerprint
        newestReceivedAt = receivedAt
    }

    /// The fingerprints held, in no particular order.
    public var fingerprints: [UInt64] { ring }
}
