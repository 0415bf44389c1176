import IRCWire

/// A whole log held in memory, once per server: the lines of inputs that cannot be read twice
/// (standard input, a pipe).
///
/// ```
///  bytes:   [ line 0 | line 1 | line 2 | …        ]   lines without their terminators, back to back
///  entries: [ (start, length, time) … ]   one per parsed line, in merged time order
/// ```
/// Invariant: every entry's `start + length <= bytes.count`.
/// Only parsed lines are kept (malformed and over-long ones are counted when loading).
///
/// Immutable after loading; shared by every timeline's ``ReplayCursor``. Confined to the server's loop
/// thread.
final class MemoryLog {
    struct Entry {
        var start: Int
        var length: Int
        /// Milliseconds since 1970 the line is paced by, if known.
        var time: Int64?
    }

    private(set) var bytes: [UInt8] = []
    private(set) var entries: [Entry] = []

    /// Appends one parsed line and the time it is paced by.
    ///
    /// - Complexity: amortised O(`line.count`). - Allocations: only when the storage grows.
    func append(_ line: Span<UInt8>, time: Int64?) {
        let start = bytes.count
        bytes.reserveCapacity(start + line.count)
        for i in line.indices { bytes.append(line[i]) }
        entries.append(Entry(start: start, length: line.count, time: time))
    }

    /// Lends line `index`'s bytes to `body`.
    ///
    /// - Precondition: `index < entries.count`.
    /// - Complexity: O(1). - Allocations: none.
    func withLine<R>(_ index: Int, _ body: (Entry, Span<UInt8>) -> R) -> R {
        let entry = entries[index]
        // SAFETY: `entry.start + entry.length <= bytes.count` (invariant), so the rebased buffer lies in
        // the array's storage, which is not mutated while it is lent; the span lives only for `body`.
        return unsafe bytes.withUnsafeBufferPointer { buffer in
            let line = unsafe UnsafeBufferPointer(rebasing: buffer[entry.start..<(entry.start + entry.length)])
            return body(entry, unsafe line.span)
        }
    }
}

@available(*, unavailable)
extension MemoryLog: Sendable {}
