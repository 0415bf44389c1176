public import ChatHTTP
public import ChatLogStore
public import ChatStore
import Synchronization

/// The rustlog/justlog logs API over a store of captured lines (``LogStore``: a capture directory, or
/// the ClickHouse table `chatcap load` fills): answers a request's path and query from the store's
/// lines in rustlog's shapes. Both stores' lines go through the same filters and encoders, so they give
/// the same bytes.
///
/// Each request asks the store again, so what a running capture (or load) adds is seen at the next
/// request. The one thing remembered between requests is each channel's id (the `room-id` of its
/// lines), learned once.
///
/// Answers stream: in time order line by line (the first bytes go out before the range is read, in
/// bounded memory); reversed, a part at a time (a file; a day of the table) from the newest back,
/// holding at most ``maxAnswerBytes`` of one part's lines.
///
/// Sendable: the store is, the id cache is behind a `Mutex`; libmicrohttpd calls
/// ``respond(path:query:)`` on each connection's thread, several at once.
public final class LogsService: Sendable {
    public let store: any LogStore
    /// The most a reversed answer holds of one part, in bytes (answers in time order hold about a block).
    public let maxAnswerBytes: Int
    /// How long a range, how large a `limit` or `offset` a request may ask for.
    public let bounds: LogsBounds
    /// The wall clock (a day still going on is not cached by clients).
    let now: @Sendable () -> Timestamp
    /// Channel login → its `room-id`, once learned.
    let roomIds = Mutex<[String: String]>([:])
    /// Who opted out, and the same as a line test; replaced whole by ``setOptOut(_:)``.
    private let optOutState: Mutex<(list: OptOutList, filter: OptOutFilter)>

    public init(
        store: any LogStore, maxAnswerBytes: Int = 64 << 20, bounds: LogsBounds = LogsBounds(),
        optOut: OptOutList = OptOutList(), now: @escaping @Sendable () -> Timestamp
    ) {
        precondition(maxAnswerBytes > 0, "an answer may hold something")
        self.store = store
        self.maxAnswerBytes = maxAnswerBytes
        self.bounds = bounds
        self.now = now
        optOutState = Mutex((optOut, OptOutFilter(optOut)))
    }

    /// The API over a capture directory (``DirectoryStore``); `usesIndex`: whether a user's month may use
    /// and build the month's index (``MonthIndex``), written in the archive's hidden `.chatcap-index` folder.
    public convenience init(
        archive: LogArchive, maxAnswerBytes: Int = 64 << 20, bounds: LogsBounds = LogsBounds(),
        optOut: OptOutList = OptOutList(), usesIndex: Bool = true, now: @escaping @Sendable () -> Timestamp
    ) {
        self.init(
            store: DirectoryStore(archive: archive, usesIndex: usesIndex, now: now), maxAnswerBytes: maxAnswerBytes,
            bounds: bounds, optOut: optOut, now: now)
    }

    /// Serves from now on as if `list` were the opt-out list (a reload: requests already answering
    /// keep the list they started with).
    public func setOptOut(_ list: OptOutList) {
        let filter = OptOutFilter(list)
        optOutState.withLock { $0 = (list, filter) }
    }

    /// The opt-out list in force.
    public var optOut: OptOutList { optOutState.withLock { $0.list } }

    /// A line filter with the opt-out list in force: lines about users on it are never served.
    func filter(user: UserSelector? = nil, window: Range<Timestamp>? = nil, search: String? = nil) -> LineFilter {
        LineFilter(user: user, window: window, search: search, optOut: optOutState.withLock { $0.filter })
    }

    /// The routes this service answers (``LogsAPI/routerPaths``: the table `/openapi.json` is written
    /// from), added to `router` (which then answers HEAD as GET too, a connection past its limit with
    /// the API's 503, a request head too big with its 414 or 431). `standalone`: the port is the API's
    /// alone (`chatcap logs`), so a path no route has is the API's `Not found` and a CORS preflight is
    /// answered, as rustlog's `CorsLayer` does; capture's port keeps ChatHTTP's JSON 404 and 405 beside
    /// its other APIs. Another method is then axum's empty 405.
    public func install(into router: inout HTTPRouter, standalone: Bool = false) {
        router.answersHead = true
        router.busy = Self.decorated(LogsError.busy.response)
        router.uriTooLong = Self.decorated(LogsError.uriTooLong.response)
        router.headersTooLarge = Self.decorated(LogsError.headersTooLarge.response)
        if standalone {
            router.answersPreflight = true
            router.notFound = Self.decorated(LogsError.notFound.response)
            // axum's answer to another method: 405, an empty body, `Allow`.
            router.methodNotAllowed = Self.decorated(
                HTTPResponse(status: 405, contentType: "text/plain; charset=utf-8", body: []))
        }
        for (path, isPrefix, answer) in LogsAPI.routerPaths {
            let handler: HTTPRouter.Handler = { [self] request, _ in
                let response: HTTPResponse
                switch answer {
                case .page: response = Self.decorated(LogsPage.response)
                case .document: response = Self.decorated(Self.document)
                case .route: response = respond(path: request.path, query: request.query)
                }
                return GzipAnswer.accepts(request.header("Accept-Encoding"))
                    ? GzipAnswer.compressed(response) : response
            }
            if isPrefix { router.get(prefix: path, handler) } else { router.get(path, handler) }
        }
    }

    /// `/openapi.json`: ``LogsAPI/document``.
    static let document = HTTPResponse(status: 200, contentType: "application/json", body: LogsAPI.document)

    /// The answer to a GET of `path` (percent-decoded, without the query) with query `query` (see
    /// ChatHTTP's `HTTPRequest/query`).
    ///
    /// - Complexity: that of the route (see the type's discussion). - Allocations: the answer.
    public func respond(path: String, query: (String) -> String??) -> HTTPResponse {
        Self.decorated(answer(path: path, query: query))
    }

    /// `response` with the headers of every answer: CORS (a public API, as rustlog's and justlog's are:
    /// readable by a page of any origin), the capabilities header, `Vary: Accept-Encoding`.
    static func decorated(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.allowsAnyOrigin = true
        response.headers.append(Self.capabilitiesHeader)
        // tower-http's permissive CorsLayer (rustlog) exposes every header to the page: the capabilities too.
        response.headers.append(HTTPHeader("Access-Control-Expose-Headers", "*"))
        response.headers.append(HTTPHeader("Vary", "Accept-Encoding"))
        return response
    }

    /// The answer to `path` and `query`, without the capabilities header.
    private func answer(path: String, query: (String) -> String??) -> HTTPResponse {
        do throws(LogsError) {
            let route = try LogsRoute(path: path, query: query)
            switch route {
            case .channels:
                return try channelList()
            case .list(let channel, let user):
                return try availableLogs(try login(of: channel), user)
            case .capabilities:
                return HTTPResponse(
                    status: 200, contentType: "application/json", body: Array(#"["arbitrary-range-query"]"#.utf8))
            case .channelLatest(let channel):
                if let range = try checked(query).range {
                    return try rangeLogs(try login(of: channel), nil, range, checked(query))
                }
                return try latestDay(channel, query: query)
            case .channelDay(let channel, let day):
                return try dayLogs(try login(of: channel), day, checked(query))
            case .userLatest(let channel, let user):
                if let range = try checked(query).range {
                    return try rangeLogs(try login(of: channel), user, range, checked(query))
                }
                return try latestMonth(channel, user, query: query)
            case .userMonth(let channel, let user, let month):
                return try monthLogs(try login(of: channel), user, month, checked(query))
            case .channelRandom(let channel):
                return try random(try login(of: channel), nil, checked(query))
            case .userRandom(let channel, let user):
                return try random(try login(of: channel), user, checked(query))
            case .userSearch(let channel, let user):
                return try search(try login(of: channel), user, query: query)
            case .channelStats(let channel):
                return try channelStats(try login(of: channel), checked(query))
            case .userStats(let channel, let user):
                return try userStats(try login(of: channel), user, checked(query))
            case .nameHistory(let id):
                if optOut.ids.contains(id) { throw .userOptedOut }
                return try nameHistory(id)
            }
        } catch {
            return error.response
        }
    }

    /// The query's parameters, within ``bounds``.
    ///
    /// - Throws: ``LogsError/query(_:)`` for a parameter that is not one, ``LogsError/invalidParam(_:)`` past a bound.
    func checked(_ query: (String) -> String??) throws(LogsError) -> LogsQuery {
        let parsed = try LogsQuery(query)
        try bounds.check(parsed)
        return parsed
    }

    /// The login of `channel`: as named when the store has it, or the channel whose lines carry its id.
    ///
    /// - Throws: ``LogsError/notFound`` when the store has no such channel,
    ///   ``LogsError/channelOptedOut`` when its login or id is on the opt-out list, a store's failure.
    func login(of channel: LogsRoute.Channel) throws(LogsError) -> String {
        switch channel {
        case .name(let login):
            // Asked before whether it exists: a listed channel none of whose lines was ever stored
            // (capture --opt-out withholds them all) is refused too, as rustlog refuses it.
            if try isOptedOut(channel: login) { throw .channelOptedOut }
            guard try store.hasChannel(login) else { throw .notFound }
            return login
        case .id(let id):
            for login in try store.channels() where try roomId(of: login) == id {
                if try isOptedOut(channel: login) { throw .channelOptedOut }
                return login
            }
            throw .notFound
        }
    }

    /// Whether the channel `login` (or its id) is on the opt-out list.
    func isOptedOut(channel login: String) throws(LogsError) -> Bool {
        let list = optOut
        guard !list.isEmpty else { return false }
        return list.contains(login: login, id: try roomId(of: login))
    }

    /// The `room-id` of `channel`'s lines (remembered once known).
    ///
    /// - Complexity: O(1) once known; else the store's ``LogStore/roomId(of:)``.
    func roomId(of channel: String) throws(LogsError) -> String? {
        if let known = roomIds.withLock({ $0[channel] }) { return known }
        let found = try store.roomId(of: channel)
        if let found { roomIds.withLock { $0[channel] = found } }
        return found
    }

    /// `Cache-Control` of an answer about the time before `end`: rustlog's `no-cache` while the range
    /// is still going on, else `public, max-age=36000` (`src/web/handlers.rs`).
    func cacheControl(until end: Timestamp) -> HTTPHeader {
        HTTPHeader("Cache-Control", now() < end ? "no-cache" : "public, max-age=36000")
    }

    /// What this API can do beyond justlog's, on every answer (rustlog's `capabilities_header_middleware`,
    /// `src/web/mod.rs`): ranges by `from` and `to`.
    static let capabilitiesHeader = HTTPHeader("x-rustlog-capabilities", "arbitrary-range-query")

    /// rustlog's `Cache-Control` of `/channels` and `/list`.
    static let listCache = HTTPHeader("Cache-Control", "public, max-age=600")
}
