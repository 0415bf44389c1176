import ChatIndex
import ChatStore
import IRCWire

/// ``StatsCollector``'s counts by byte string (channel names, msg-ids): a count per distinct key,
/// the key's bytes kept once, at its first sight.
///
/// A key is found through ChatStore's ``NameIndex`` (the index of capture's lanes too): the index gives candidates by hash, and a candidate is confirmed against the
/// key's kept bytes, so different keys never merge. Counting a key seen before costs a hash, a
/// probe, a compare and an increment: no String, no reference counted key, no allocation.
///
/// ```
///  index:   hash(key) → entry number (NameIndex, confirmed by the entry's bytes)
///  entries: start · length · count
///  arena:   "pixelharbor" "lunafrost" …  every key's bytes, back to back
/// ```
/// Owner-only (a noncopyable value; counting is `mutating`, so its owner holds it in a `var`).
struct StatsKeyCounts: ~Copyable {
    private struct Entry {
        var start: Int
        var length: Int
        var count: Int
    }
    private var index = NameIndex(matching: .exact, minimumCapacity: 16)
    private var entries: [Entry] = []
    private var arena: [UInt8] = []

    /// Distinct keys counted.
    var keyCount: Int { entries.count }

    /// Counts one more of the key `bytes[range]`.
    ///
    /// - Complexity: O(`range.count`) expected. - Allocations: only at a key's first sight (the
    ///   index, the entries or the key bytes grow).
    @inline(__always)
    mutating func add(_ bytes: Span<UInt8>, _ range: Range<Int>) {
        let key = bytes.extracting(range)
        let first = index.key(for: key)
        if let entry = find(key, first) {
            entries[entry].count &+= 1
        } else {
            insert(key, first)
        }
    }

    /// The entry of `key` (whose first probe key is `first`), or `nil`.
    @inline(__always)
    private func find(_ key: Span<UInt8>, _ first: UInt64) -> Int? {
        index.value(forKey: first) { value in
            let entry = entries[Int(value)]
            return entry.length == key.count
                && arena.span.extracting(entry.start..<entry.start + entry.length).equals(key)
        }.map { Int($0) }
    }

    /// A new key, under its first free probe key.
    @inline(never)
    private mutating func insert(_ key: Span<UInt8>, _ first: UInt64) {
        entries.append(Entry(start: arena.count, length: key.count, count: 1))
        for i in key.indices { arena.append(key[i]) }
        index.insert(UInt64(entries.count - 1), forKey: first)
    }

    /// Every key with its count, in the order first seen.
    ///
    /// - Complexity: O(keys + key bytes). - Allocations: none besides `body`'s.
    func forEachKey(_ body: (Span<UInt8>, Int) -> Void) {
        let bytes = arena.span
        for entry in entries { body(bytes.extracting(entry.start..<entry.start + entry.length), entry.count) }
    }
}

@available(*, unavailable)
extension StatsKeyCounts: Sendable {}
