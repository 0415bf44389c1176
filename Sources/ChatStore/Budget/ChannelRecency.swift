/// The channels of a store in order of their last append, least recent first: an intrusive doubly
/// linked list over channel indexes, two `Int32` arrays (8 bytes a channel, owner-only).
///
/// ```
///  first ─► c7 ⇄ c2 ⇄ … ⇄ c9 ◄─ last        prev[c] / next[c]: neighbours, -1 at the ends
///  (least recently active)  (most recently active)                 and for channels off the list
/// ```
/// An append moves its channel to the end in O(1) (nothing when it is already there: a burst of one
/// channel touches no other entry). The budget takes channels from the front and drops them from the
/// list once trimmed: a channel comes back at its next append, so a pass never walks a channel it
/// already trimmed and nothing is walked per line. Chosen over a clock sweep, which would be
/// approximate and O(channels) per pass: this order is exact (tests pin which channels are trimmed)
/// and costs two stores per line.
struct ChannelRecency {
    private var prev: [Int32] = []
    private var next: [Int32] = []
    private(set) var first: Int32 = -1
    private(set) var last: Int32 = -1

    /// Whether `channel` is on the list.
    func contains(_ channel: Int) -> Bool {
        channel < prev.count && (prev[channel] >= 0 || first == Int32(channel))
    }

    /// Moves (or adds) `channel` to the end: the most recently active.
    ///
    /// - Complexity: O(1); amortised O(1) for a new channel. - Allocations: none but for a new channel (amortised).
    @inline(__always)
    mutating func touch(_ channel: Int) {
        let c = Int32(truncatingIfNeeded: channel)
        if last == c { return }
        if channel >= prev.count {
            prev.append(contentsOf: repeatElement(-1, count: channel + 1 - prev.count))
            next.append(contentsOf: repeatElement(-1, count: channel + 1 - next.count))
        } else {
            remove(channel)
        }
        prev[channel] = last
        next[channel] = -1
        if last >= 0 { next[Int(last)] = c } else { first = c }
        last = c
    }

    /// Takes `channel` off the list (nothing if it is not on it).
    ///
    /// - Complexity: O(1). - Allocations: none.
    mutating func remove(_ channel: Int) {
        guard contains(channel) else { return }
        let p = prev[channel]
        let n = next[channel]
        if p >= 0 { next[Int(p)] = n } else { first = n }
        if n >= 0 { prev[Int(n)] = p } else { last = p }
        prev[channel] = -1
        next[channel] = -1
    }

    /// The channels from least to most recently active (tests).
    var order: [Int] {
        var result: [Int] = []
        var c = first
        while c >= 0 {
            result.append(Int(c))
            c = next[Int(c)]
        }
        return result
    }
}
