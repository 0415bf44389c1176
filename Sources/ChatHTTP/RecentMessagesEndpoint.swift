import ChatFormat
public import ChatStore
import Synchronization

/// `GET /api/v2/recent-messages/<login>`: the recent-messages v2 API over the rings of a
/// ``ChatStore`` that another thread keeps appending to (serve's timeline; capture's and tail's
/// live rings).
///
/// - `<login>` not 1 to 25 of `a-z0-9_`: 400 `invalid_channel_login`; an option not as the service
///   takes it: 400 `invalid_query` (see ``RecentMessagesQuery``); a path below the prefix with a
///   further `/`, or none: 404.
/// - Otherwise 200 with the channel's lines (see ``RecentMessagesRenderer``); a channel the caller
///   says it has not joined gets the service's `channel_not_joined` error beside whatever lines the
///   store has.
///
/// The renderer is used under a lock of its own, taken by HTTP requests only: the ingest thread
/// never takes it (it reads the rings through the store's reader pins).
public final class RecentMessagesEndpoint: Sendable {
    /// The route's prefix.
    public static let prefix = "/api/v2/recent-messages/"

    private let renderer: Mutex<RecentMessagesRenderer?>
    private let bound: Int
    private let isJoined: @Sendable (String) -> Bool

    /// - Parameters:
    ///   - store: the rings to answer from (one of its reader slots is taken for the endpoint's life).
    ///   - bound: the most lines per channel (the service's 500 unless configured).
    ///   - isJoined: whether the caller has joined a channel (called on the requests' threads).
    public init(store: ChatStore, bound: Int, isJoined: @escaping @Sendable (String) -> Bool) {
        renderer = Mutex(RecentMessagesRenderer(store: store))
        self.bound = bound
        self.isJoined = isJoined
    }

    /// Adds the route to `router`.
    public func install(in router: inout HTTPRouter) {
        let endpoint = self
        router.get(prefix: Self.prefix) { request, rest in endpoint.respond(to: request, login: rest) }
    }

    /// The answer for `login` (the path after the prefix).
    ///
    /// - Complexity: see ``RecentMessagesRenderer/body(channel:query:bound:joined:)``.
    public func respond(to request: HTTPRequest, login: Substring) -> HTTPResponse {
        // Like the service, readable by a page of any origin (Chatterino's web clients).
        var response = answer(to: request, login: login)
        response.allowsAnyOrigin = true
        return response
    }

    private func answer(to request: HTTPRequest, login: Substring) -> HTTPResponse {
        guard !login.isEmpty, !login.contains("/") else { return .json(RecentMessagesError.notFound.body, status: 404) }
        let query: RecentMessagesQuery
        do {
            query = try RecentMessagesQuery(value: request.query)
        } catch {
            return Self.error(.invalidQuery)
        }
        let channel = String(login)
        guard RecentMessagesError.isValidLogin(channel) else { return Self.error(.invalidChannelLogin) }
        let joined = isJoined(channel)
        let body = renderer.withLock { renderer in
            renderer?.body(channel: channel, query: query, bound: bound, joined: joined)
        }
        guard let body else { return Self.error(.internalError) }  // no reader slot was free
        return .json(body)
    }

    private static func error(_ error: RecentMessagesError) -> HTTPResponse {
        .json(error.body, status: error.status)
    }
}
