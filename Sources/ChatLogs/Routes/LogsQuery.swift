public import ChatLogStore
public import ChatStore

/// The query parameters of a logs answer, as rustlog reads them (`src/web/schema.rs`, `LogsParams`):
/// `json`, `jsonBasic`, `raw`, `ndjson` and `reverse` are true when present at all (whatever their
/// value, `deserialize_bool_param`); `limit` and `offset` are unsigned numbers; `from` and `to`
/// (RFC 3339, both or neither: `src/logs/schema/mod.rs`, `LogRangeParams`) ask for an arbitrary range
/// instead of the latest day or month.
public struct LogsQuery: Sendable, Equatable {
    public var format: LogFormat = .text
    public var reverse = false
    public var limit: Int?
    public var offset: Int?
    /// `from ..< to`, when both are given (empty when `to` is not after `from`).
    public var range: Range<Timestamp>?

    public init(
        format: LogFormat = .text, reverse: Bool = false, limit: Int? = nil, offset: Int? = nil,
        range: Range<Timestamp>? = nil
    ) {
        self.format = format
        self.reverse = reverse
        self.limit = limit
        self.offset = offset
        self.range = range
    }

    /// The names a redirect carries over, in this order (the query rebuilt from them).
    static let names = ["json", "jsonBasic", "raw", "reverse", "ndjson", "limit", "offset", "from", "to"]

    /// Reads the parameters through `lookup` (a query argument's value, `.some(nil)` for one given
    /// without `=`, `nil` when absent; see ChatHTTP's `HTTPRequest/query`).
    ///
    /// - Throws: ``LogsError/query(_:)`` for a `limit` or `offset` that is not an unsigned number, or a
    ///   `from` or `to` that is not an RFC 3339 time.
    public init(_ lookup: (String) -> String??) throws(LogsError) {
        func has(_ name: String) -> Bool { lookup(name) != nil }
        if has("raw") {
            format = .raw
        } else if has("jsonBasic") {
            format = .jsonBasic
        } else if has("json") {
            format = .json
        } else if has("ndjson") {
            format = .ndjson
        }
        reverse = has("reverse")
        limit = try Self.count("limit", lookup)
        offset = try Self.count("offset", lookup)
        if let from = lookup("from"), let to = lookup("to") {
            let lower = try Self.time("from", from)
            let upper = try Self.time("to", to)
            range = lower..<max(lower, upper)
        }
    }

    /// An RFC 3339 time; a `+` of an offset may arrive as a space (form encoding), read back as `+`.
    private static func time(_ name: String, _ given: String?) throws(LogsError) -> Timestamp {
        let text = given ?? ""
        if let t = Timestamp(rfc3339: text) ?? Timestamp(rfc3339: String(text.map { $0 == " " ? "+" : $0 })) {
            return t
        }
        throw .query("\(name): input contains invalid characters")
    }

    private static func count(_ name: String, _ lookup: (String) -> String??) throws(LogsError) -> Int? {
        guard let given = lookup(name) else { return nil }
        do {
            return try LogsError.number(Substring(given ?? ""))
        } catch {
            if case .parseInt(let why) = error { throw .query("\(name): \(why)") }
            throw error
        }
    }

    /// The query string a redirect carries (`?json&limit=10`), rebuilt from the names rustlog reads,
    /// values percent-encoded; empty when none was given.
    public static func carried(_ lookup: (String) -> String??) -> String {
        var parts: [String] = []
        for name in names {
            guard let given = lookup(name) else { continue }
            if let value = given, !value.isEmpty {
                parts.append(name + "=" + percentEncoded(value))
            } else {
                parts.append(name)
            }
        }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }

    /// `text` with every byte but `[A-Za-z0-9-._~]` as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in text.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(b)
            default:
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
