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
    /// More headers (`Location`, `Cache-Control`, …), in order.
    public var headers: [HTTPHeader]
    /// A body produced as it is sent, instead of ``body`` (which is then empty).
    public var stream: HTTPBodyStream?

    public init(
        status: Int, contentType: String, body: [UInt8], allow: String? = nil, headers: [HTTPHeader] = [],
        stream: HTTPBodyStream? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.allow = allow
        self.headers = headers
        self.stream = stream
    }

    /// The whole body: ``body``, or what ``stream`` produces (read to its end: once).
    public func collectedBody() -> [UInt8] { stream?.drain() ?? body }

    /// A JSON answer (`application/json`).
    public static func json(_ body: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: body)
    }
}
