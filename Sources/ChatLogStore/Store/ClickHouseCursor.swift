import ChatCurl
import ChatStore
import IRCWire

/// The lines of some queries' `raw` columns (``ClickHouseSQL/lines(_:table:)``: one a part), asked one
/// query at a time as the lines are taken, each answer taken block by block while it arrives
/// (ChatCurl's `HTTPStream`) and decoded in place (``RowBinary``), each line parsed as the directory's
/// merge parses it. A line that does not parse is counted as malformed and passed over, as in a
/// capture file. A query that fails ends the lines: ``failure`` says why.
///
/// ```
///   pending: [ taken … | whole rows … | a row cut by the block's end ]   the cut row waits for the next block
///                      ^ rows.position
/// ```
///
/// Memory: the answer's queue (`HTTPStream.maxQueuedBytes`) and one block with the row cut at
/// its end, whatever the part's size; a row (one line) may hold at most the store's
/// ``ClickHouseStore/maxPartBytes``. Confined to one thread.
final class ClickHouseCursor: LineCursor {
    private let store: ClickHouseStore
    private let sql: [String]
    private var nextQuery = 0
    private var answer: HTTPStream?
    private var rows = RowBinary([])
    private(set) var counts = ArchiveReader.Counts()
    private(set) var failure: LogsError?

    init(store: ClickHouseStore, sql: [String]) {
        self.store = store
        self.sql = sql
    }

    /// - Complexity: O(bytes of the line), and a query when the part's lines are all taken.
    /// - Allocations: none per line; the blocks of the answer as they arrive.
    func next(_ body: (StoredLine, Span<UInt8>) -> Void) -> Bool {
        var row = rows.string()
        while row == nil {
            guard failure == nil, take() else { return false }
            row = rows.string()
        }
        let all = rows.all
        let bytes = all.span.extracting(row!)
        guard let message = try? TwitchMessage.parse(bytes) else {
            counts.malformed += 1
            return true
        }
        counts.lines += 1
        // As the merge times a line: its `time` tag, else its `tmi-sent-ts`.
        let line = StoredLine(message: message, received: LineTime(of: message, in: bytes).timestamp)
        if line.isServed { body(line, bytes) }
        return true
    }

    /// The next block of the current answer (starting the next query at an answer's end) after what is
    /// left of the last; `false` at the end of the last answer, or when one failed (``failure``).
    private func take() -> Bool {
        while true {
            if answer == nil {
                guard nextQuery < sql.count else { return false }
                answer = store.stream(sql[nextQuery])
                nextQuery += 1
            }
            switch answer!.next() {
            case .bytes(let block):
                rows = rows.rest(then: block)
                guard rows.pendingCount <= store.maxPartBytes + 16 else { return fail(ClickHouseStore.tooLong) }
                return true
            case .end:
                answer = nil
                // An answer that ends inside a row is not the RowBinary asked for.
                guard rows.isAtEnd else { return fail(ClickHouseStore.malformed) }
            case .refused(let status, let text):
                return fail(store.failure(status: status, text: text))
            case .failed(let error):
                return fail(store.failure(error))
            }
        }
    }

    private func fail(_ error: LogsError) -> Bool {
        failure = error
        answer = nil
        rows = RowBinary([])
        return false
    }
}

@available(*, unavailable)
extension ClickHouseCursor: Sendable {}
