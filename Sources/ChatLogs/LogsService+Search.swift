import ChatHTTP
import ChatLogStore
import ChatStore
import IRCWire

extension LogsService {
    /// `GET /<…>/{user|userid}/<u>/search?q=`: the user's lines in all of the channel's days whose
    /// text holds `q` (ASCII letters in any case), in time order or reversed, with `limit`/`offset`
    /// (`src/web/handlers.rs`, `search_user_logs`; `src/db/mod.rs`: `positionCaseInsensitive(text, ?)`);
    /// 404 when none does.
    ///
    /// - Throws: ``LogsError/query(_:)`` without `q` (rustlog's `SearchParams` requires it).
    /// - Complexity: O(bytes of the channel's files): no index yet (the table: the user's lines).
    func search(_ channel: String, _ user: LogsRoute.User, query: (String) -> String??) throws(LogsError)
        -> HTTPResponse
    {
        guard let q = query("q") else { throw .query("missing field `q`") }
        let logsQuery = try checked(query)
        guard try store.hasLines(channel, on: LogSelection.allDays) else { throw .notFound }
        let selector = try self.selector(for: user, in: channel, preferring: nil)
        return try logs(channel, nil, self.filter(user: selector, search: q ?? ""), logsQuery, until: .latest)
    }

    /// `GET /<…>/random` and `/<…>/{user|userid}/<u>/random`: one served line of the channel (the user's),
    /// each as likely as any other, in the query's format, `Cache-Control: no-cache`
    /// (`random_channel_line`, `random_user_line`); 404 when there is none.
    ///
    /// - Complexity: O(bytes of the channel's lines): one pass keeping one line (reservoir sampling).
    /// - Allocations: a copy of each line chosen along the way (about log(lines) of them).
    func random(_ channel: String, _ user: LogsRoute.User?, _ query: LogsQuery) throws(LogsError) -> HTTPResponse {
        guard try store.hasLines(channel, on: LogSelection.allDays) else { throw .notFound }
        let who = try user.map { user throws(LogsError) in try self.selector(for: user, in: channel, preferring: nil) }
        let lines = self.filter(user: who)
        var chosen: (bytes: [UInt8], received: Timestamp?)? = nil
        var seen = 0
        try read(channel, nil, lines) { line, bytes in
            seen += 1
            if Int.random(in: 0..<seen) == 0 {
                chosen = ((0..<bytes.count).map { bytes[$0] }, line.received)
            }
            return true
        }
        guard let chosen, let message = try? TwitchMessage.parse(chosen.bytes.span) else { throw .notFound }
        var answer = LogAnswer(format: query.format, maxBytes: maxAnswerBytes)
        var encoder = LogEncoder(format: query.format)
        do throws(LogAnswerError) {
            try encoder.encode(StoredLine(message: message, received: chosen.received), in: chosen.bytes.span) {
                encoding throws(LogAnswerError) in try answer.append(encoding)
            }
        } catch {
            throw .invalidParam("the answer would pass \(maxAnswerBytes) bytes")
        }
        return HTTPResponse(
            status: 200, contentType: query.format.contentType, body: answer.body(),
            headers: [HTTPHeader("Cache-Control", "no-cache")])
    }

    /// Calls `body` with every line of `channel` (every channel's when `nil`) on `days` that `filter`
    /// admits, in time order, until it returns `false`.
    ///
    /// - Throws: the store's failure.
    /// - Complexity: O(bytes of the store's parts read).
    func read(
        _ channel: String?, _ days: ClosedRange<LogDay>?, _ filter: LineFilter,
        _ body: (StoredLine, Span<UInt8>) -> Bool
    ) throws(LogsError) {
        let parts = try store.parts(of: LogSelection(channel: channel, days: days, filter: filter))
        guard !parts.isEmpty else { return }
        try store.cursor(parts[...]).read { line, bytes in
            filter.admits(line, in: bytes) ? body(line, bytes) : true
        }
    }
}
