import ChatFormat

/// The listener's routes: exact paths and path prefixes, answered for GET only (and HEAD, with ``answersHead``).
///
/// A request whose path no route has is a 404, and one of a known path with another method a 405
/// (`Allow: GET`), both by default in the recent-messages service's error shape
/// (``RecentMessagesError``), so a client of that API reads every error the same way; a listener that
/// serves another API alone sets its own (``notFound``, ``methodNotAllowed``, ``busy``).
public struct HTTPRouter: Sendable {
    /// Answers a request; `rest` is the path after the route's prefix (empty for an exact route).
    public typealias Handler = @Sendable (HTTPRequest, _ rest: Substring) -> HTTPResponse

    private struct Route: Sendable {
        var path: String
        var isPrefix: Bool
        var handler: Handler
    }

    private var routes: [Route] = []
    /// Whether HEAD is answered as GET (libmicrohttpd then sends the headers without the body);
    /// off by default, so the listeners that answer GET only keep their 405.
    public var answersHead = false
    /// What a connection past the listener's limit is answered at once (``HTTPLimits/busyConnections``):
    /// by default a 503 in the recent-messages shape; a service sets its own error shape.
    public var busy = HTTPResponse.json(RecentMessagesError.busy.body, status: 503)
    /// What a request line too long for the connection's memory is answered (``HTTPLimits/memoryPerConnection``):
    /// by default a 414 in the recent-messages shape; a service sets its own error shape.
    public var uriTooLong = HTTPResponse.json(
        RecentMessagesError(status: 414, statusMessage: "URI Too Long", error: "URI Too Long", code: "uri_too_long")
            .body,
        status: 414)
    /// What request headers too large for the connection's memory are answered: by default a 431 in
    /// the recent-messages shape.
    public var headersTooLarge = HTTPResponse.json(
        RecentMessagesError(
            status: 431, statusMessage: "Request Header Fields Too Large", error: "Request Header Fields Too Large",
            code: "request_header_fields_too_large"
        ).body, status: 431)
    /// What a path no route has is answered: by default a 404 in the recent-messages shape.
    public var notFound = HTTPResponse.json(RecentMessagesError.notFound.body, status: 404)
    /// What another method than those answered is answered (with `Allow` set): by default a 405 in
    /// the recent-messages shape.
    public var methodNotAllowed = HTTPResponse.json(RecentMessagesError.methodNotAllowed.body, status: 405)
    /// Whether a CORS preflight (`OPTIONS` of a route) is answered 200 with the `Access-Control-Allow-*`
    /// headers that let a page of any origin send its GET (as tower-http's permissive `CorsLayer` does);
    /// off by default, so the listeners that answer GET only keep their 405.
    public var answersPreflight = false

    public init() {}

    /// The routes installed, in order: each path, and whether it is a prefix.
    public var paths: [(path: String, isPrefix: Bool)] { routes.map { ($0.path, $0.isPrefix) } }

    /// Answers GET `path` exactly.
    public mutating func get(_ path: String, _ handler: @escaping Handler) {
        routes.append(Route(path: path, isPrefix: false, handler: handler))
    }

    /// Answers GET of every path that starts with `prefix`.
    public mutating func get(prefix: String, _ handler: @escaping Handler) {
        routes.append(Route(path: prefix, isPrefix: true, handler: handler))
    }

    /// The answer to `request`: its route's, or 404, or 405.
    ///
    /// - Complexity: O(routes × path length) plus the handler.
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        for route in routes {
            let rest: Substring
            if route.isPrefix {
                guard request.path.hasPrefix(route.path) else { continue }
                rest = request.path.dropFirst(route.path.count)
            } else {
                guard request.path == route.path else { continue }
                rest = ""
            }
            if answersPreflight && request.method == "OPTIONS" { return Self.preflight(request) }
            guard request.method == "GET" || (answersHead && request.method == "HEAD") else {
                var response = methodNotAllowed
                response.allow = answersHead ? "GET, HEAD" : "GET"
                return response
            }
            return route.handler(request, rest)
        }
        return notFound
    }

    /// The answer to a CORS preflight: any origin, GET and HEAD, the headers the request asks for
    /// (`Access-Control-Request-Headers`, else any), remembered a day.
    static func preflight(_ request: HTTPRequest) -> HTTPResponse {
        var response = HTTPResponse(
            status: 200, contentType: "text/plain; charset=utf-8", body: [],
            headers: [
                HTTPHeader("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS"),
                HTTPHeader("Access-Control-Allow-Headers", request.header("Access-Control-Request-Headers") ?? "*"),
                HTTPHeader("Access-Control-Max-Age", "86400"),
                HTTPHeader("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers"),
            ])
        response.allowsAnyOrigin = true
        return response
    }
}
