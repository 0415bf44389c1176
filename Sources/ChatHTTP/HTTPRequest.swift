/// One HTTP request as a route sees it, on its connection's thread, for the length of the handler
/// call: its method, its path (percent-decoded, without the query), its query arguments and headers.
public struct HTTPRequest {
    public let method: String
    public let path: String
    /// The value of query argument `key` (percent-decoded); `.some(nil)` for an argument given
    /// without `=value`; `nil` when absent.
    public let query: (String) -> String??
    /// The value of request header `name` (any case), `nil` when absent.
    public let header: (String) -> String?

    public init(
        method: String, path: String, query: @escaping (String) -> String??,
        header: @escaping (String) -> String? = { _ in nil }
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.header = header
    }
}

@available(*, unavailable)
extension HTTPRequest: Sendable {}
