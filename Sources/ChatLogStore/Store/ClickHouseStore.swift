import ChatCurl
import ChatStore
import IRCWire

/// The logs API's lines in the ClickHouse table `chatcap load` fills (docs/clickhouse.sql; ClickHouse
/// 18.16 and later), asked over its HTTP interface with ChatCurl's client: `raw` comes back as
/// `RowBinary` strings (``ClickHouseCursor``) and goes through the same filters and encoders as a
/// capture directory's lines, so the answers are the directory's bytes.
///
/// Every selection of a channel's days is a range of the table's sort key (``ClickHouseSQL``), read with
/// `FINAL` (a line loaded twice is one row); a user's selection adds `user_id`. A day of the table is a
/// capture file's day: the day capture received the line, in the order it did.
///
/// Each question is one request (a client of its own: the connection's thread asks); a cursor asks
/// its parts one at a time, each answer streamed (``ClickHouseAnswer``). Immutable; any thread may use it.
public struct ClickHouseStore: LogStore {
    /// Where ClickHouse answers: the URL without credentials, the credentials (HTTP basic
    /// authentication), and the URL as messages show it (without the password).
    public struct Endpoint: Sendable, Equatable {
        public var url: String
        public var user: String?
        public var password: String?
        public var redacted: String
        public init(url: String, user: String?, password: String?, redacted: String) {
            self.url = url
            self.user = user
            self.password = password
            self.redacted = redacted
        }
    }

    public let endpoint: Endpoint
    /// `table` or `database.table`.
    public let table: String
    /// The most one row (one line) of a part's answer may hold, in bytes; a part's answer (a day of a
    /// channel; a user's selection) streams, whatever its size.
    public let maxPartBytes: Int
    public var timeoutMs = 60_000
    public var connectTimeoutMs = 3_000

    public init(endpoint: Endpoint, table: String, maxPartBytes: Int = 256 << 20) {
        precondition(maxPartBytes > 0, "a part may hold something")
        self.endpoint = endpoint
        self.table = table
        self.maxPartBytes = maxPartBytes
    }

    /// Whether the table is there with the columns the store reads.
    ///
    /// - Throws: ``LogsError/storeUnavailable(_:)`` when ClickHouse cannot be reached,
    ///   ``LogsError/storeFailed(_:)`` with ClickHouse's message (the table or a column missing).
    public func check() throws(LogsError) {
        _ = try answer(ClickHouseSQL.check(table: table))
    }

    public func channels() throws(LogsError) -> [String] {
        var rows = RowBinary(try answer(ClickHouseSQL.channels(table: table)))
        var channels: [String] = []
        while !rows.isAtEnd {
            guard let name = rows.text() else { throw Self.malformed }
            if LogName.isLogin(name) { channels.append(name) }
        }
        return channels
    }

    public func hasChannel(_ channel: String) throws(LogsError) -> Bool {
        try !answer(ClickHouseSQL.exists(channel, on: nil, table: table)).isEmpty
    }

    public func hasLines(_ channel: String, on days: ClosedRange<LogDay>) throws(LogsError) -> Bool {
        try !answer(ClickHouseSQL.exists(channel, on: days, table: table)).isEmpty
    }

    public func days(of channel: String) throws(LogsError) -> [LogDay] {
        try dates(ClickHouseSQL.days(of: channel, table: table))
    }

    public func roomId(of channel: String) throws(LogsError) -> String? {
        var rows = RowBinary(try answer(ClickHouseSQL.roomId(of: channel, table: table)))
        return rows.isAtEnd ? nil : rows.text()
    }

    /// One request: the rows about the login, those with an id first, each checked as the directory
    /// store checks a line (``UserSelector/id(of:in:_:)``).
    public func userId(of login: [UInt8], in channel: String, preferring preferred: ClosedRange<LogDay>?)
        throws(LogsError) -> (id: [UInt8]?, named: Bool)
    {
        let sql = ClickHouseSQL.namings(of: login, in: channel, preferring: preferred, table: table)
        let cursor = ClickHouseCursor(store: self, sql: [sql])
        var id: [UInt8]? = nil
        var named = false
        try cursor.read { line, bytes in
            if let user = line.userLogin(in: bytes), bytes.equals(lowercased: login, at: user.range) { named = true }
            id = UserSelector.id(of: login, in: line, bytes)
            return id == nil
        }
        return (id, named)
    }

    public func months(of channel: String, with selector: UserSelector) throws(LogsError) -> [LogMonth] {
        try dates(ClickHouseSQL.months(of: channel, with: selector, table: table)).map(\.logMonth)
    }

    /// One part for a selection of a user or a search (their lines are few), else one per day (of the
    /// selection, or every day of the channel), so that a part's answer stays about a day.
    public func parts(of selection: LogSelection) throws(LogsError) -> [LogPart] {
        guard selection.userIds.isEmpty, selection.login == nil, selection.search == nil,
            let channel = selection.channel
        else { return [.selection(selection)] }
        let days: [LogDay]
        if let range = selection.days {
            days = Self.days(in: range)
        } else {
            days = try self.days(of: channel).reversed()
        }
        return days.map { day in
            var part = selection
            part.days = day...day
            return .selection(part)
        }
    }

    public func cursor(_ parts: ArraySlice<LogPart>) -> any LineCursor {
        var sql: [String] = []
        for case .selection(let selection) in parts { sql.append(ClickHouseSQL.lines(selection, table: table)) }
        return ClickHouseCursor(store: self, sql: sql)
    }

    /// The days of `range`, in order.
    static func days(in range: ClosedRange<LogDay>) -> [LogDay] {
        var days: [LogDay] = []
        var t = range.lowerBound.start
        while true {
            let c = t.civil
            guard let day = LogDay(year: c.year, month: c.month, day: c.day), day <= range.upperBound else { break }
            days.append(day)
            t = t.advanced(byMilliseconds: 86_400_000)
        }
        return days
    }

    /// The `Date`s of an answer.
    private func dates(_ sql: String) throws(LogsError) -> [LogDay] {
        var rows = RowBinary(try answer(sql))
        var days: [LogDay] = []
        while !rows.isAtEnd {
            guard let n = rows.date() else { throw Self.malformed }
            let c = Timestamp(milliseconds: Int64(n) * 86_400_000).civil
            if let day = LogDay(year: c.year, month: c.month, day: c.day) { days.append(day) }
        }
        return days
    }

    /// The answer to `sql` (POSTed as the body; settings in the endpoint's URL apply) with a client of
    /// its own: a short answer, at most 16 MiB.
    ///
    /// - Throws: ``LogsError/storeUnavailable(_:)`` when no answer came, ``LogsError/storeFailed(_:)``
    ///   for an error's answer (ClickHouse's first line) or one cut at the client's limit.
    private func answer(_ sql: String) throws(LogsError) -> [UInt8] {
        let response: HTTPClient.Response
        do throws(HTTPClient.Failure) {
            response = try HTTPClient(maxBodyBytes: 16 << 20).post(
                url: endpoint.url, body: Array(sql.utf8), headers: ["Expect:"], user: endpoint.user,
                password: endpoint.password, timeoutMs: timeoutMs, connectTimeoutMs: connectTimeoutMs)
        } catch {
            throw failure(error)
        }
        guard response.status == 200 else { throw failure(status: response.status, text: response.text) }
        guard !response.truncated else { throw .storeFailed("ClickHouse's answer passes 16 MiB: ask for less") }
        return response.body
    }

    /// The answer to `sql` as it arrives, block by block (``ChatCurl/HTTPStream``).
    func stream(_ sql: String) -> HTTPStream {
        HTTPStream(
            HTTPStream.Request(
                url: endpoint.url, body: Array(sql.utf8), headers: ["Expect:"], user: endpoint.user,
                password: endpoint.password, timeoutMs: timeoutMs, connectTimeoutMs: connectTimeoutMs))
    }

    /// Why no answer came, as the API says it.
    func failure(_ error: HTTPClient.Failure) -> LogsError {
        switch error {
        case .unavailable(let reason): .storeFailed(reason)
        case .unreachable(let reason): .storeUnavailable("ClickHouse at \(endpoint.redacted): \(reason)")
        }
    }

    /// An answer's status other than 200, with ClickHouse's first line of `text`.
    func failure(status: Int, text: String) -> LogsError {
        let first = text.split(separator: "\n").first.map { String($0.prefix(500)) } ?? ""
        return .storeFailed("ClickHouse at \(endpoint.redacted) answered \(status): \(first)")
    }

    static let malformed = LogsError.storeFailed("ClickHouse's answer is not the RowBinary asked for")
    static let tooLong = LogsError.storeFailed("a row of ClickHouse's answer passes --max-answer-mib")
}
