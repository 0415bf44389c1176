import ChatCurl
import ChatGzip

/// INSERTs into one ClickHouse table over its HTTP interface: `POST /?query=INSERT INTO t FORMAT
/// JSONEachRow` with a gzip body (`Content-Encoding: gzip`, which ClickHouse decompresses — 18.16 as
/// well as current releases; `enable_http_compression` is only about compressing its answers).
///
/// An INSERT is acknowledged only by HTTP 200: ClickHouse then has the whole block written (a
/// ReplicatedMergeTree: written on as many replicas as `insert_quorum` asks). Anything else is an error
/// classified by ``LoadError/isTemporary``. Confined to the loader's thread.
public final class ClickHouseClient {
    public let endpoint: ClickHouseEndpoint
    public let table: String
    private let http: HTTPClient
    private let compressor: GzipCompressor
    private let insertURL: String
    /// The whole INSERT's time limit, and the connection's.
    public var timeoutMs = 60_000
    public var connectTimeoutMs = 3_000

    /// - Precondition: `table` is a ``ClickHouseEndpoint/isPlainTableName(_:)``.
    /// - Throws: ``LoadError/http(_:)`` when libcurl or the gzip compressor cannot start.
    public init(endpoint: ClickHouseEndpoint, table: String) throws(LoadError) {
        precondition(ClickHouseEndpoint.isPlainTableName(table), "table names are checked by the caller")
        self.endpoint = endpoint
        self.table = table
        do throws(HTTPClient.Failure) {
            http = try HTTPClient()
        } catch {
            throw LoadError.http(error.description)
        }
        do throws(GzipCompressorError) {
            compressor = try GzipCompressor()
        } catch {
            throw LoadError.http(error.description)
        }
        insertURL = endpoint.insertURL(table: table)
    }

    /// `rows` (JSONEachRow, one object per line) compressed for sending.
    ///
    /// - Complexity: O(`rows.count`). - Allocations: the body.
    public func body(for rows: [UInt8]) -> [UInt8] { compressor.compress(rows) }

    /// Sends one compressed body (from ``body(for:)``) as an INSERT.
    ///
    /// - Throws: ``LoadError/unreachable(url:reason:)`` or ``LoadError/rejected(url:httpStatus:code:message:)``.
    public func insert(body: [UInt8]) throws(LoadError) {
        let response = try post(
            url: insertURL, body: body,
            headers: ["Content-Encoding: gzip", "Content-Type: application/x-ndjson", "Expect:"])
        guard response.status != 200 else { return }
        throw Self.rejection(response, url: endpoint.redacted)
    }

    /// Runs a query that returns text (for `SELECT 1`-style checks and tests).
    ///
    /// - Throws: as ``insert(body:)``.
    public func query(_ sql: String) throws(LoadError) -> String {
        let response = try post(url: endpoint.url, body: Array(sql.utf8), headers: ["Expect:"])
        guard response.status == 200 else { throw Self.rejection(response, url: endpoint.redacted) }
        return response.text
    }

    /// The table's column names, from `system.columns` (for a `Distributed` table, its own columns);
    /// empty when the table does not exist.
    ///
    /// - Throws: as ``query(_:)``.
    public func columns() throws(LoadError) -> [String] {
        let parts = table.split(separator: ".")
        let database = parts.count == 2 ? "'\(parts[0])'" : "currentDatabase()"
        // The name is a plain table name (checked at init): nothing in it needs quoting.
        let answer = try query(
            "SELECT name FROM system.columns WHERE database = \(database) AND table = '\(parts.last!)' FORMAT TabSeparated"
        )
        return answer.split(separator: "\n").map(String.init)
    }

    /// POSTs as the endpoint's user; a failure to reach the server names only the redacted URL.
    private func post(url: String, body: [UInt8], headers: [String]) throws(LoadError) -> HTTPClient.Response {
        do throws(HTTPClient.Failure) {
            return try http.post(
                url: url, body: body, headers: headers, user: endpoint.user, password: endpoint.password,
                timeoutMs: timeoutMs, connectTimeoutMs: connectTimeoutMs)
        } catch {
            switch error {
            case .unavailable(let reason): throw LoadError.http(reason)
            case .unreachable(let reason): throw LoadError.unreachable(url: endpoint.redacted, reason: reason)
            }
        }
    }

    /// The error of a non-200 answer: ClickHouse's `Code: N, e.displayText() = …` (first line, at most 500 characters).
    static func rejection(_ response: HTTPClient.Response, url: String) -> LoadError {
        let text = response.text
        var code: Int? = nil
        if let range = text.firstRange(of: "Code: ") {
            code = Int(text[range.upperBound...].prefix { $0.isNumber })
        }
        let first = text.split(separator: "\n").first.map(String.init) ?? ""
        let message = first.isEmpty ? "(no message)" : String(first.prefix(500))
        return LoadError.rejected(url: url, httpStatus: response.status, code: code, message: message)
    }
}

@available(*, unavailable)
extension ClickHouseClient: Sendable {}
