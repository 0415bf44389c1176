import ChatLogStore

/// The body of a logs answer, gathered line by line: each line's encoding (``LogEncoder``) is kept
/// in one byte array with its end offset, then ``reverse``, ``offset`` and ``limit`` choose which go
/// out and in what order, as rustlog applies them (`src/db/mod.rs`: `ORDER BY timestamp ASC|DESC`,
/// then `LIMIT`, then `OFFSET`).
///
/// Memory: in time order, lines before the offset are not kept and gathering stops once `limit`
/// lines are in (``isFull``); reversed, only the last `offset + limit` lines are kept (older ones are
/// dropped as newer ones come). Without a limit every encoded line is kept, up to ``maxBytes``: past
/// that the answer fails (``LogAnswerError/tooLarge(maxBytes:)``) rather than grow without bound.
///
/// ```
///   bytes: [ line 0 | line 1 | line 2 | … ]     ends: [e0, e1, e2, …]   (line i = bytes[e(i-1) ..< e(i)])
///            ^ first kept (dropped lines are compacted away)
/// ```
public struct LogAnswer: Sendable {
    public let format: LogFormat
    public let reverse: Bool
    public let offset: Int
    public let limit: Int?
    public let maxBytes: Int
    private var bytes: [UInt8] = []
    private var ends: [Int] = []
    /// Lines seen so far (kept or not).
    public private(set) var seen = 0

    public init(format: LogFormat, reverse: Bool = false, offset: Int = 0, limit: Int? = nil, maxBytes: Int) {
        precondition(offset >= 0 && (limit ?? 0) >= 0 && maxBytes > 0, "offset, limit and size are not negative")
        self.format = format
        self.reverse = reverse
        self.offset = offset
        self.limit = limit
        self.maxBytes = maxBytes
    }

    /// Whether no later line can change the answer (in time order, `limit` lines are in).
    public var isFull: Bool {
        guard !reverse, let limit else { return false }
        return ends.count >= limit
    }

    /// Adds the next line's encoding (lines come in time order).
    ///
    /// - Throws: ``LogAnswerError/tooLarge(maxBytes:)`` when the lines kept pass ``maxBytes``.
    /// - Complexity: amortized O(`encoding.count`). - Allocations: amortized growth of the arrays.
    public mutating func append(_ encoding: Span<UInt8>) throws(LogAnswerError) {
        seen += 1
        if !reverse && seen <= offset { return }
        if isFull { return }
        if bytes.count + encoding.count > maxBytes, reverse, let limit {
            keepNewest(max(0, offset + limit - 1))  // the window, with room for this line
        }
        if bytes.count + encoding.count > maxBytes { throw .tooLarge(maxBytes: maxBytes) }
        // Appending a buffer grows the array geometrically (an exact `reserveCapacity` per line made
        // gathering a 200,000-line day quadratic: 19 s).
        // SAFETY: the pointer is the span's, valid for the closure; `append` copies from it.
        unsafe encoding.withUnsafeBufferPointer { unsafe bytes.append(contentsOf: $0) }
        ends.append(bytes.count)
        if reverse, let limit, ends.count >= 2 * (offset + limit) + 64 { keepNewest(offset + limit) }
    }

    /// Drops all but the newest `count` lines.
    private mutating func keepNewest(_ count: Int) {
        let drop = ends.count - count
        guard drop > 0 else { return }
        let cut = ends[drop - 1]
        bytes.removeFirst(cut)
        ends.removeFirst(drop)
        for i in ends.indices { ends[i] -= cut }
    }

    /// How many lines the answer holds.
    public var count: Int {
        if !reverse { return ends.count }
        return max(0, min(ends.count - offset, limit ?? .max))
    }

    /// Hands `body` the chosen lines' encodings in the answer's order (newest first when reversed),
    /// until it returns `false`.
    ///
    /// - Complexity: O(lines handed out). - Allocations: none.
    public func forEachLine(_ body: (ArraySlice<UInt8>) -> Bool) {
        func line(_ i: Int) -> ArraySlice<UInt8> { bytes[(i == 0 ? 0 : ends[i - 1])..<ends[i]] }
        if reverse {
            var i = ends.count - 1 - offset
            var left = limit ?? .max
            while i >= 0 && left > 0 {
                guard body(line(i)) else { return }
                i -= 1
                left -= 1
            }
        } else {
            for i in ends.indices { guard body(line(i)) else { return } }
        }
    }

    /// The answer's body: the chosen lines in order, in `{"messages":[…]}` for the JSON formats.
    ///
    /// - Complexity: O(bytes kept). - Allocations: the body.
    public func body() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + ends.count + 16)
        let json = format.isJSONArray
        if json { out.append(contentsOf: LogFormat.messagesOpen) }
        var first = true
        func emit(_ i: Int) {
            if json && !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(contentsOf: bytes[(i == 0 ? 0 : ends[i - 1])..<ends[i]])
        }
        if reverse {
            var i = ends.count - 1 - offset
            var left = limit ?? .max
            while i >= 0 && left > 0 {
                emit(i)
                i -= 1
                left -= 1
            }
        } else {
            for i in ends.indices { emit(i) }
        }
        if json { out.append(contentsOf: LogFormat.messagesClose) }
        return out
    }
}

/// Why an answer could not be made.
public enum LogAnswerError: Error, Sendable, Equatable {
    /// The lines asked for pass the answer's size limit.
    case tooLarge(maxBytes: Int)
}
