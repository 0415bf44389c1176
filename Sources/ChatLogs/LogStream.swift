import ChatLogStore

/// The body of a logs answer in time order, produced as it is sent: the served lines of a store's
/// cursor (``LineCursor``) that its ``LineFilter`` admits, encoded a block at a time when the listener asks for more, so the
/// first bytes go out before the range is read and memory stays bounded whatever the range.
///
/// Malformed lines and damaged files are the cursor's to count, never fatal; a store that fails after
/// the status went out (ClickHouse gone mid-answer) ends the body with an error (``fill(_:)`` answers
/// -1), so the client sees it cut off rather than complete. It applies `offset` and `limit` as it goes, as rustlog's
/// `ORDER BY timestamp ASC … LIMIT … OFFSET …` does. ``prime()`` reads up to the first line, so an
/// answer without lines is known (404) before anything is sent, as rustlog's `CursorStream` does.
///
/// ```
///   pending: [ sent … | unsent …                 ]   refilled when fewer unsent bytes than asked for
///                     ^ sent
/// ```
///
/// Memory: the cursor's (one file open, about 200 KiB; or one part of the table's answer), the encoder's, and ``pending``
/// (about one block plus one line). Confined to one thread: its connection's (see ChatHTTP's
/// `HTTPBodyStream`).
final class LogStream {
    private let cursor: any LineCursor
    private let filter: LineFilter
    private let format: LogFormat
    private var encoder: LogEncoder
    /// Lines still to skip (`offset`), and still to send (`limit`, else `Int.max`).
    private var skip: Int
    private var left: Int
    private var pending: [UInt8] = []
    private var sent = 0
    /// Lines encoded so far.
    private(set) var lines = 0
    private var ended = false
    /// Why the store ended the lines early, if it did.
    var failure: LogsError? { cursor.failure }
    var counts: ArchiveReader.Counts { cursor.counts }

    init(cursor: any LineCursor, filter: LineFilter, query: LogsQuery) {
        precondition(!query.reverse, "a reversed answer streams through ReverseLogStream")
        self.cursor = cursor
        self.filter = filter
        format = query.format
        encoder = LogEncoder(format: query.format)
        skip = query.offset ?? 0
        left = query.limit ?? .max
        if left == 0 { finish() }
    }

    /// Reads up to the answer's first line: whether it has one.
    ///
    /// - Complexity: O(bytes read up to that line).
    func prime() -> Bool {
        produce(until: 1)
        return lines > 0
    }

    /// The next bytes of the body into `buffer`; 0 at its end, -1 when the store failed.
    ///
    /// - Complexity: O(bytes read and encoded to fill it). - Allocations: none once ``pending`` has grown.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        produce(until: buffer.count)
        let n = min(buffer.count, pending.count - sent)
        guard n > 0, let target = buffer.baseAddress else { return failure == nil ? 0 : -1 }
        unsafe pending.withUnsafeBytes { source in
            // SAFETY: `sent + n <= pending.count` and `n <= buffer.count` (the `min` above).
            unsafe target.copyMemory(from: source.baseAddress! + sent, byteCount: n)
        }
        sent += n
        if sent == pending.count {
            pending.removeAll(keepingCapacity: true)
            sent = 0
        }
        return n
    }

    /// Encodes lines into ``pending`` until it holds `bytes` unsent bytes or the body has ended.
    private func produce(until bytes: Int) {
        if sent > 0 {
            pending.removeFirst(sent)
            sent = 0
        }
        while !ended && pending.count < bytes {
            let more = cursor.next { line, span in
                guard filter.admits(line, in: span) else { return }
                if skip > 0 {
                    skip -= 1
                    return
                }
                add(line, span)
            }
            if !more {
                // A failed store's body stays unclosed: `fill` then answers -1 once it is sent.
                if failure == nil { finish() } else { ended = true }
            }
        }
    }

    /// Encodes one line of the answer.
    private func add(_ line: StoredLine, _ bytes: Span<UInt8>) {
        pending += format.separator(before: lines)
        encoder.encode(line, in: bytes) { encoding in
            // SAFETY: the pointer is the span's, valid for the closure; `append` copies from it.
            unsafe encoding.withUnsafeBufferPointer { unsafe pending.append(contentsOf: $0) }
        }
        lines += 1
        left -= 1
        if left == 0 { finish() }
    }

    /// The body has no more lines: closes the JSON array of a JSON answer that has one.
    private func finish() {
        guard !ended else { return }
        ended = true
        pending += format.end(after: lines)
    }
}

@available(*, unavailable)
extension LogStream: Sendable {}
