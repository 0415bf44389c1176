import IRCWire

/// The error answers of the recent-messages v2 service, in its shape:
///
/// ```json
/// {"status":400,"status_message":"Bad Request","error":"Invalid or missing query parameters","error_code":"invalid_query"}
/// ```
///
/// (A channel the service has not joined is not one of these: it answers 200 with its messages, if
/// any, and `error`/`error_code` set; see ``RecentMessagesRenderer``.)
public struct RecentMessagesError: Error, Sendable, Equatable {
    public var status: Int
    public var statusMessage: String
    public var error: String
    public var code: String

    public init(status: Int, statusMessage: String, error: String, code: String) {
        self.status = status
        self.statusMessage = statusMessage
        self.error = error
        self.code = code
    }

    public static let notFound = RecentMessagesError(
        status: 404, statusMessage: "Not Found", error: "Not Found", code: "not_found")
    public static let methodNotAllowed = RecentMessagesError(
        status: 405, statusMessage: "Method Not Allowed", error: "Method Not Allowed", code: "method_not_allowed")
    public static let invalidQuery = RecentMessagesError(
        status: 400, statusMessage: "Bad Request", error: "Invalid or missing query parameters", code: "invalid_query")
    public static let busy = RecentMessagesError(
        status: 503, statusMessage: "Service Unavailable", error: "Too many connections: try again shortly",
        code: "too_many_connections")
    public static let internalError = RecentMessagesError(
        status: 500, statusMessage: "Internal Server Error", error: "Internal Server Error",
        code: "internal_server_error")

    /// A login that is not 1 to 25 of `a-z`, `0-9` and `_`.
    public static var invalidChannelLogin: RecentMessagesError {
        RecentMessagesError(
            status: 400, statusMessage: "Bad Request",
            error: "Invalid channel login: a login is 1 to 25 characters of a-z, 0-9 and _",
            code: "invalid_channel_login")
    }

    /// Whether `login` is a channel login as Twitch allows it: 1 to 25 of `a-z`, `0-9`, `_`.
    ///
    /// - Complexity: O(`login.utf8.count`). - Allocations: none.
    public static func isValidLogin(_ login: String) -> Bool {
        let bytes = login.utf8
        guard (1...25).contains(bytes.count) else { return false }
        return bytes.allSatisfy {
            ($0 &- UInt8(ascii: "a") < 26) || ($0 &- UInt8(ascii: "0") < 10) || $0 == UInt8(ascii: "_")
        }
    }

    /// The JSON body.
    ///
    /// - Allocations: the returned array.
    public var body: [UInt8] {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("status")
        json.number(status)
        json.key("status_message")
        Self.string(statusMessage, into: &json)
        json.key("error")
        Self.string(error, into: &json)
        json.key("error_code")
        Self.string(code, into: &json)
        json.endObject()
        return json.bytes
    }

    private static func string(_ text: String, into json: inout JSONWriter) {
        let bytes = Array(text.utf8.prefix(Int(UInt16.max)))
        json.string(bytes.span, ByteRange(0..<bytes.count))
    }
}
