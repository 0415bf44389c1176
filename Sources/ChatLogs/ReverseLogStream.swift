import ChatLogStore

/// The body of a reversed logs answer (newest first), produced as it is sent, one part at a time (a
/// capture file, a day of the table; ``LogStore/parts(of:)``): the parts are read from the newest back,
/// each part's admitted lines gathered (``LogAnswer``, newest first) and handed out before the next
/// older part is read.
///
/// A part's lines are in time order within it and the parts follow one another in time (capture writes
/// its files one after the other), so this is exactly the reverse of ``LogStream``'s order.
/// `offset` and `limit` apply as it goes: `?reverse&limit=100` over a month reads only the newest
/// parts it needs. Memory: one part's answer at most (``LogAnswer``'s `maxBytes`; with a limit only the
/// newest `offset + limit` lines of it), the cursor's buffers, one block.
///
/// ``prime()`` reads up to the answer's first line (404 without one, 400 for a first part past the
/// size limit, the store's failure). A later part past the limit, or a store failing later, cannot
/// change a status already sent: the body then ends with an error (``fill(_:)`` answers -1), so the
/// client sees it cut off rather than complete.
final class ReverseLogStream {
    private let store: any LogStore
    private let parts: [LogPart]
    /// The next part to read, counting down; -1 once every part was read.
    private var next: Int
    private let filter: LineFilter
    private let format: LogFormat
    private let maxPartBytes: Int
    private var encoder: LogEncoder
    private var skip: Int
    /// Lines still to send (`limit`, else `Int.max`, never reached).
    private var left: Int
    private let hasLimit: Bool
    private var pending: [UInt8] = []
    private var sent = 0
    private(set) var lines = 0
    private var ended = false
    private var failed = false
    private(set) var counts = ArchiveReader.Counts()

    /// - Parameter parts: the store's parts in time order.
    init(store: any LogStore, parts: [LogPart], filter: LineFilter, query: LogsQuery, maxPartBytes: Int) {
        precondition(query.reverse, "an answer in time order streams through LogStream")
        self.store = store
        self.parts = parts
        next = parts.count - 1
        self.filter = filter
        format = query.format
        self.maxPartBytes = maxPartBytes
        encoder = LogEncoder(format: query.format)
        skip = query.offset ?? 0
        left = query.limit ?? .max
        hasLimit = query.limit != nil
        if left == 0 { finish() }
    }

    /// Reads up to the answer's first line: whether it has one.
    ///
    /// - Throws: ``LogsError/invalidParam(_:)`` when the newest part with lines passes the limit, the
    ///   store's failure.
    func prime() throws(LogsError) -> Bool {
        try produce(until: 1)
        return lines > 0
    }

    /// The next bytes of the body into `buffer`; 0 at its end, -1 when a part passed the size limit or
    /// the store failed.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        do throws(LogsError) {
            try produce(until: buffer.count)
        } catch {
            failed = true
        }
        let n = min(buffer.count, pending.count - sent)
        guard n > 0, let target = buffer.baseAddress else { return failed ? -1 : 0 }
        unsafe pending.withUnsafeBytes { source in
            // SAFETY: `sent + n <= pending.count` and `n <= buffer.count` (the `min` above).
            unsafe target.copyMemory(from: source.baseAddress! + sent, byteCount: n)
        }
        sent += n
        return n
    }

    /// Reads parts, newest first, until ``pending`` holds `bytes` unsent bytes or the body has ended.
    private func produce(until bytes: Int) throws(LogsError) {
        if sent > 0 {
            pending.removeFirst(sent)
            sent = 0
        }
        while !ended && !failed && pending.count < bytes {
            guard next >= 0 else {
                finish()
                break
            }
            let limit = hasLimit ? skip + left : nil
            var file = LogAnswer(format: format, reverse: true, limit: limit, maxBytes: maxPartBytes)
            var failure: LogsError? = nil
            let cursor = store.cursor(parts[next...next])
            do throws(LogsError) {
                try cursor.read { line, span in
                    guard filter.admits(line, in: span) else { return true }
                    do throws(LogAnswerError) {
                        try encoder.encode(line, in: span) { encoding throws(LogAnswerError) in
                            try file.append(encoding)
                        }
                    } catch {
                        failure = .invalidParam(
                            "the answer would pass \(maxPartBytes) bytes: ask for less with limit and offset")
                        return false
                    }
                    return true
                }
            } catch {
                failure = error
            }
            counts.add(cursor.counts)
            next -= 1
            if let failure {
                failed = true
                throw failure
            }
            file.forEachLine { encoding in
                if skip > 0 {
                    skip -= 1
                    return true
                }
                pending += format.separator(before: lines)
                pending += encoding
                lines += 1
                left -= 1
                if left == 0 { finish() }
                return left > 0
            }
        }
    }

    /// The body has no more lines: closes the JSON array of a JSON answer that has one.
    private func finish() {
        guard !ended else { return }
        ended = true
        pending += format.end(after: lines)
    }
}

@available(*, unavailable)
extension ReverseLogStream: Sendable {}
