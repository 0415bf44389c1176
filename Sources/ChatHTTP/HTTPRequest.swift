/// One HTTP request as a route sees it, on the listener's thread, for the length of the handler
/// call: its method, its path (percent-decoded, without the query), and its query arguments.
public struct HTTPRequest {
    public let method: String
    public let path: String
    /// The value of query argument `key` (percent-decoded); `.some(nil)` for an argument given
    /// without `=value`; `nil` when absent.
    public let query: (String) -> String??

    public init(method: String, path: String, query: @escaping (String) -> String??) {
        self.method = method
        self.path = path
        self.query = query
    }
}

@available(*, unavailable)
extension HTTPRequest: Sendable {}
