/// What a route answers: a status, a body and its content type, and (for 405) the methods allowed.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var contentType: String
    public var body: [UInt8]
    /// The `Allow` header, when set.
    public var allow: String?
    /// More headers (`Location`, `Cache-Control`, …), in order.
    public var headers: [HTTPHeader]

    public init(status: Int, contentType: String, body: [UInt8], allow: String? = nil, headers: [HTTPHeader] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.allow = allow
        self.headers = headers
    }

    /// A JSON answer (`application/json`).
    public static func json(_ body: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: body)
    }
}
