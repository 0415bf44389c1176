import ChatCurl
import ChatStore
import IRCWire

/// The lines of some queries' `raw` columns (``ClickHouseSQL/lines(_:table:)``: one a part), asked one
/// query at a time as the lines are taken, each answer decoded in place (``RowBinary``), each line
/// parsed as the directory's merge parses it. A line that does not parse is counted as malformed and
/// passed over, as in a capture file. A query that fails ends the lines: ``failure`` says why.
///
/// Memory: one part's answer (at most the store's ``ClickHouseStore/maxPartBytes``). One HTTP client
/// (one connection, kept alive) for all the parts. Confined to one thread.
final class ClickHouseCursor: LineCursor {
    private let store: ClickHouseStore
    private let sql: [String]
    private var nextQuery = 0
    private var client: HTTPClient?
    private var rows = RowBinary([])
    private(set) var counts = ArchiveReader.Counts()
    private(set) var failure: LogsError?

    init(store: ClickHouseStore, sql: [String]) {
        self.store = store
        self.sql = sql
    }

    /// - Complexity: O(bytes of the line), and a query when the part's lines are all taken.
    /// - Allocations: none per line; a part's answer per part.
    func next(_ body: (StoredLine, Span<UInt8>) -> Void) -> Bool {
        while rows.isAtEnd {
            guard failure == nil, nextQuery < sql.count else { return false }
            fetch(sql[nextQuery])
            nextQuery += 1
        }
        guard let range = rows.string() else {
            failure = ClickHouseStore.malformed
            return false
        }
        let all = rows.all
        let bytes = all.span.extracting(range)
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

    /// Runs one query, keeping its answer for ``next(_:)``.
    private func fetch(_ query: String) {
        do throws(LogsError) {
            if client == nil {
                do throws(HTTPClient.Failure) {
                    client = try HTTPClient(maxBodyBytes: store.maxPartBytes)
                } catch {
                    throw .storeFailed(error.description)
                }
            }
            rows = RowBinary(try store.answer(query, with: client!))
        } catch {
            failure = error
            rows = RowBinary([])
        }
    }
}

@available(*, unavailable)
extension ClickHouseCursor: Sendable {}
