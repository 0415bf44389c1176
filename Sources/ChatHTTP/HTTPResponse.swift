/// What a route answers: a status, a body and its content type, and (for 405) the methods allowed.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    /// The `Allow` header, when set.
    public var allow: String?
    /// Whether a page of any origin may read it (`Access-Control-Allow-Origin: *`): the public APIs
    /// (recent messages), never /metrics or /healthz.
    public var allowsAnyOrigin = false

    public init(status: Int, contentType: String, body: [UInt8], allow: String? = nil) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.allow = allow
    }

    /// A JSON answer (`application/json`).
    public static func json(_ body: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: body)
    }
}
