import ChatHTTP
import ChatLogStore
import ChatStore
import IRCWire

extension LogsService {
    /// `GET /{channel|channelid}/<c>/<y>/<m>/<d>`: the channel's served lines of that day in time order
    /// (`src/web/handlers.rs`, `get_channel_logs_by_date`); 404 for a day without lines or an answer
    /// without lines (rustlog's `CursorStream` answers an empty range so).
    func dayLogs(_ channel: String, _ day: LogDay, _ query: LogsQuery) throws(LogsError) -> HTTPResponse {
        guard try store.hasLines(channel, on: day...day) else { throw .notFound }
        let end = day.start.advanced(byMilliseconds: 86_400_000)
        return try logs(channel, day...day, filter(), query, until: end)
    }

    /// `GET /<…>/{user|userid}/<u>/<y>/<m>`: the user's lines in the channel's days of that month
    /// (`get_user_logs_by_date`); 404 when there are none. A directory store reads the days before
    /// today from the user's part of the month's index (``MonthIndex``).
    func monthLogs(
        _ channel: String, _ user: LogsRoute.User, _ month: LogMonth, _ query: LogsQuery
    ) throws(LogsError) -> HTTPResponse {
        let first = LogDay(year: month.year, month: month.month, day: 1)!
        let days =
            first...LogDay(
                year: month.year, month: month.month, day: LogDay.daysIn(month: month.month, year: month.year))!
        guard try store.hasLines(channel, on: days) else { throw .notFound }
        let selector = try self.selector(for: user, in: channel, preferring: days)
        let next = month.month == 12 ? (month.year + 1, 1) : (month.year, month.month + 1)
        let end = Timestamp(CivilTime(year: next.0, month: next.1, day: 1)) ?? .latest
        return try logs(channel, days, filter(user: selector), query, until: end)
    }

    /// `GET /{channel|channelid}/<c>[/{user|userid}/<u>]?from=…&to=…`: the lines (the user's) whose time is
    /// in `range` (`get_channel_logs`, `get_user_logs` with `LogRangeParams`: rustlog's
    /// `arbitrary-range-query`), from the channel's days the range touches and one day either side (days
    /// are by the time capture received a line, the range is of `tmi-sent-ts`); 404 when there are none.
    func rangeLogs(
        _ channel: String, _ user: LogsRoute.User?, _ range: Range<Timestamp>, _ query: LogsQuery
    ) throws(LogsError) -> HTTPResponse {
        let days = LogSelection.daysAround(range)
        guard !range.isEmpty, try store.hasLines(channel, on: days) else { throw .notFound }
        let selector = try user.map { user throws(LogsError) in
            try self.selector(for: user, in: channel, preferring: days)
        }
        return try logs(channel, days, filter(user: selector, window: range), query, until: range.upperBound)
    }

    /// `GET /{channel|channelid}/<c>`: 303 to the latest day, the query carried over
    /// (`get_channel_logs`: `Redirect::to("/{channel_id_type}/{channel}/{latest_log}")`).
    func latestDay(_ channel: LogsRoute.Channel, query: (String) -> String??) throws(LogsError) -> HTTPResponse {
        let login = try login(of: channel)
        guard let latest = try store.days(of: login).first else { throw .notFound }
        return Self.redirect(Self.prefix(of: channel) + "/\(latest)" + LogsQuery.carried(query))
    }

    /// `GET /<…>/{user|userid}/<u>`: 303 to the latest month with the user's lines (`get_user_logs`).
    func latestMonth(
        _ channel: LogsRoute.Channel, _ user: LogsRoute.User, query: (String) -> String??
    ) throws(LogsError) -> HTTPResponse {
        let login = try login(of: channel)
        let selector = try self.selector(for: user, in: login, preferring: nil)
        guard let latest = try store.months(of: login, with: selector).first else { throw .notFound }
        let userPart: String
        switch user {
        case .name(let name): userPart = "/user/" + name
        case .id(let id): userPart = "/userid/" + id
        }
        return Self.redirect(Self.prefix(of: channel) + userPart + "/\(latest)" + LogsQuery.carried(query))
    }

    /// The answer of a logs route: the served lines of `channel` on `days` that `filter` admits, in
    /// `query`'s format, order and window; `end` is when the range ends (``Timestamp/latest``: never, not
    /// cached). The body streams: in time order ``LogStream`` reads as it is sent; reversed,
    /// ``ReverseLogStream`` reads one part at a time from the newest back, holding one part's answer (at
    /// most ``maxAnswerBytes``).
    ///
    /// - Throws: ``LogsError/notFound`` for no lines; ``LogsError/invalidParam(_:)`` when the newest
    ///   part's reversed answer passes ``maxAnswerBytes``; a store's failure before the first line.
    /// - Complexity: O(bytes of the parts read), stopping once a `limit` is reached.
    /// - Allocations: about one block, and for a reversed answer one part's kept encodings.
    func logs(
        _ channel: String, _ days: ClosedRange<LogDay>?, _ filter: LineFilter, _ query: LogsQuery,
        until end: Timestamp
    ) throws(LogsError) -> HTTPResponse {
        let parts = try store.parts(of: LogSelection(channel: channel, days: days, filter: filter))
        guard !parts.isEmpty else { throw .notFound }
        let cache = cacheControl(until: end)
        let fill: (UnsafeMutableRawBufferPointer) -> Int
        if !query.reverse {
            let stream = LogStream(cursor: store.cursor(parts[...]), filter: filter, query: query)
            guard stream.prime() else { throw stream.failure ?? .notFound }
            unsafe fill = { unsafe stream.fill($0) }
        } else {
            let stream = ReverseLogStream(
                store: store, parts: parts, filter: filter, query: query, maxPartBytes: maxAnswerBytes)
            guard try stream.prime() else { throw .notFound }
            unsafe fill = { unsafe stream.fill($0) }
        }
        return HTTPResponse(
            status: 200, contentType: query.format.contentType, body: [], headers: [cache],
            // SAFETY: the stream hands `fill` the listener's buffer; `fill` writes inside it only.
            stream: unsafe HTTPBodyStream(fill))
    }

    /// `/channel/<login>` or `/channelid/<id>`, as the request named it.
    static func prefix(of channel: LogsRoute.Channel) -> String {
        switch channel {
        case .name(let login): "/channel/" + login
        case .id(let id): "/channelid/" + id
        }
    }

    /// 303 See Other to `location` (axum's `Redirect::to`), with an empty body.
    static func redirect(_ location: String) -> HTTPResponse {
        HTTPResponse(
            status: 303, contentType: "text/plain; charset=utf-8", body: [],
            headers: [HTTPHeader("Location", location)])
    }
}
