/// What a ``ChatStore`` holds against what it reserves, summed over its channels: the figures
/// behind "memory follows the chat" (`replay --memory-report`, `make bench`).
public struct StoreMemory: Sendable, Equatable {
    /// Channel logs (including the connection-level one).
    public var channels = 0
    /// Live entries over all rings.
    public var entries = 0
    /// Bytes of the live entries' lines.
    public var heldBytes = 0
    /// Byte storage reserved for lines (held bytes plus room to grow).
    public var byteCapacity = 0
    /// Slot arrays: per-entry metadata and tombstones, for every slot allocated.
    public var slotBytes = 0
    /// Everything else the logs reserve: reader pins, descriptors, names, objects.
    public var otherBytes = 0
    /// Channels whose lines live in pages of their own (``EntryRing/pagedBytes``), the pages they have
    /// written, and the bytes of lines they hold: past the bytes held, each rounds up to a page.
    public var pagedChannels = 0
    public var pagedBytes = 0
    public var pagedHeldBytes = 0

    public init() {}

    /// All bytes the channel logs reserve.
    public var reservedBytes: Int { byteCapacity + slotBytes + otherBytes }

    /// One line for stderr, in MB (10^6 bytes) and bytes per entry.
    public var description: String {
        func mb(_ n: Int) -> String {
            let tenths = (n + 50_000) / 100_000
            return "\(tenths / 10).\(tenths % 10) MB"
        }
        let perEntry = entries > 0 ? slotBytes / entries : 0
        return "\(channels) channels, \(entries) entries, \(mb(heldBytes)) of lines held; reserved "
            + "\(mb(reservedBytes)): byte storage \(mb(byteCapacity)), slots \(mb(slotBytes)) (\(perEntry) B/entry), "
            + "other \(mb(otherBytes)); \(pagedChannels) channels in pages of their own hold \(mb(pagedHeldBytes)) "
            + "in \(mb(pagedBytes)) of written pages"
    }
}

extension ChatStore {
    /// Sums what every channel log holds and reserves. Owner thread only.
    ///
    /// - Complexity: O(channels + live entries). - Allocations: none.
    public var memory: StoreMemory {
        var m = StoreMemory()
        for c in 0..<channelCount {
            guard let log = log(at: c) else { continue }
            m.channels += 1
            m.entries += log.ring.count
            let held = log.ring.heldBytes
            m.heldBytes += held
            m.byteCapacity += log.ring.byteCapacity
            m.slotBytes += log.ring.slotBytes
            m.otherBytes += log.reservedBytes - log.ring.byteCapacity - log.ring.slotBytes
            let paged = log.ring.pagedBytes
            if paged > 0 {
                m.pagedChannels += 1
                m.pagedBytes += paged
                m.pagedHeldBytes += held
            }
        }
        return m
    }
}
