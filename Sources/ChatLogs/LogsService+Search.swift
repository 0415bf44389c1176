import ChatHTTP
import ChatStore
import IRCWire

extension LogsService {
    /// `GET /<…>/{user|userid}/<u>/search?q=`: the user's lines in all of the channel's files whose
    /// text holds `q` (ASCII letters in any case), in time order or reversed, with `limit`/`offset`
    /// (`src/web/handlers.rs`, `search_user_logs`; `src/db/mod.rs`: `positionCaseInsensitive(text, ?)`);
    /// 404 when none does.
    ///
    /// - Throws: ``LogsError/query(_:)`` without `q` (rustlog's `SearchParams` requires it).
    /// - Complexity: O(bytes of the channel's files): no index yet.
    func search(_ channel: String, _ user: LogsRoute.User, query: (String) -> String??) throws(LogsError)
        -> HTTPResponse
    {
        guard let q = query("q") else { throw .query("missing field `q`") }
        let logsQuery = try LogsQuery(query)
        let paths = archive.files(of: channel).map(\.path)
        guard !paths.isEmpty else { throw .notFound }
        let selector = try self.selector(for: user, in: channel, preferring: [])
        return try logs(paths, self.filter(user: selector, search: q ?? ""), logsQuery, until: .latest)
    }

    /// `GET /<…>/random` and `/<…>/{user|userid}/<u>/random`: one served line of the channel (the user's),
    /// each as likely as any other, in the query's format, `Cache-Control: no-cache`
    /// (`random_channel_line`, `random_user_line`); 404 when there is none.
    ///
    /// - Complexity: O(bytes of the channel's files): one pass keeping one line (reservoir sampling).
    /// - Allocations: a copy of each line chosen along the way (about log(lines) of them).
    func random(_ channel: String, _ user: LogsRoute.User?, _ query: LogsQuery) throws(LogsError) -> HTTPResponse {
        let paths = archive.files(of: channel).map(\.path)
        guard !paths.isEmpty else { throw .notFound }
        let who = try user.map { user throws(LogsError) in try self.selector(for: user, in: channel, preferring: []) }
        let lines = self.filter(user: who)
        var chosen: (bytes: [UInt8], received: Timestamp?)? = nil
        var seen = 0
        var reader = ArchiveReader()
        for path in paths {
            reader.read([path]) { line, bytes in
                guard lines.admits(line, in: bytes) else { return true }
                seen += 1
                if Int.random(in: 0..<seen) == 0 {
                    chosen = ((0..<bytes.count).map { bytes[$0] }, line.received)
                }
                return true
            }
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
}
