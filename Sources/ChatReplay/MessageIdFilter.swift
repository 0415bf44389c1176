import IRCWire

/// `--dedupe`: drops a line whose Twitch message id (`id` tag) was already seen in the same channel
/// within a time window, so that two captures of one channel (two hosts capturing redundantly)
/// merge into one stream without doubles.
///
/// Remembers a 64-bit hash of channel and id per line, in a set and in a FIFO by time; ids older than
/// the window (on the newest line time seen) are forgotten. Lines without an `id` tag always pass.
/// Two different ids with the same 64-bit hash would drop a line wrongly: about one in 10^19 per pair.
///
/// Not thread-safe: the replay's owner thread only.
struct MessageIdFilter {
    let windowMs: Int64
    private var seen: Set<UInt64> = []
    private var order: [(hash: UInt64, at: Int64)] = []
    private var head = 0
    private var newest = Int64.min

    init(windowMs: Int64) { self.windowMs = windowMs }

    /// Whether the line is a repeat of one seen within the window (then it is dropped); remembers it
    /// if not.
    ///
    /// - Complexity: O(id bytes) amortised. - Allocations: amortised none (storage is reused).
    mutating func isRepeat(_ message: TwitchMessage, in bytes: Span<UInt8>, at time: Int64?) -> Bool {
        guard let id = message.tags[.id], !id.raw.isEmpty else { return false }
        if let time, time > newest { newest = time }
        forgetOld()
        var fnv = FNV1a64()
        if let channel = message.channel { fnv.add(bytes, channel.range) }
        fnv.add(UInt8(ascii: "#"))  // between channel and id
        fnv.add(bytes, id.raw.range)
        let hash = fnv.value
        guard seen.insert(hash).inserted else { return true }
        if head > 4096 && head * 2 > order.count {
            order.removeFirst(head)
            head = 0
        }
        order.append((hash, time ?? newest))
        return false
    }

    private mutating func forgetOld() {
        guard newest != Int64.min else { return }
        while head < order.count, order[head].at < newest - windowMs {
            seen.remove(order[head].hash)
            head += 1
        }
    }
}
