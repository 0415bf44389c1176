/// Where `load` sends rows: a ClickHouse HTTP(S) URL such as `http://loader:secret@db1:8123/`, split
/// into the URL without credentials (what libcurl connects to), the credentials (sent as HTTP basic
/// authentication, never printed), and ``redacted``, the form every message shows.
///
/// The query string may carry ClickHouse settings (`?async_insert=1`…); a `password=` in it is
/// redacted too. Without a password in the URL, ``init(parsing:environmentPassword:)`` takes the one
/// given (from `CHATCAP_CLICKHOUSE_PASSWORD`), so that no secret needs to be on the command line.
public struct ClickHouseEndpoint: Sendable, Equatable {
    /// `scheme://host:port/path?query`, without user and password.
    public let url: String
    public let user: String?
    public let password: String?
    public let host: String
    public let port: Int
    /// The URL for messages: `scheme://user:***@host:port/path?query` with `password=***`.
    public let redacted: String

    /// Parses `text` (http or https; port 8123 or 8443 by default).
    ///
    /// - Throws: ``LoadError/badURL(_:)`` naming what is wrong (never the password).
    public init(parsing text: String, environmentPassword: String? = nil) throws(LoadError) {
        let scheme: String
        if text.hasPrefix("http://") {
            scheme = "http"
        } else if text.hasPrefix("https://") {
            scheme = "https"
        } else {
            throw LoadError.badURL("the URL must start with http:// or https://")
        }
        var rest = Substring(text.dropFirst(scheme.count + 3))
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        rest = rest[authorityEnd...]
        if rest.contains("#") { throw LoadError.badURL("a URL fragment (#…) means nothing here") }
        var user: String? = nil
        var password: String? = nil
        if let at = authority.lastIndex(of: "@") {
            let info = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = info.firstIndex(of: ":") {
                user = try Self.percentDecoded(info[..<colon])
                password = try Self.percentDecoded(info[info.index(after: colon)...])
            } else {
                user = try Self.percentDecoded(info)
            }
            if user?.isEmpty == true { user = nil }
        }
        var host: Substring
        var portText: Substring? = nil
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw LoadError.badURL("unclosed [ in the host") }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw LoadError.badURL("unexpected text after the host") }
                portText = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        guard !host.isEmpty else { throw LoadError.badURL("no host") }
        var port = scheme == "https" ? 8443 : 8123
        if let portText {
            guard let p = Int(portText), (1...65_535).contains(p) else {
                throw LoadError.badURL("the port must be 1 to 65535")
            }
            port = p
        }
        let path = rest.isEmpty ? "/" : (rest.hasPrefix("?") ? "/" + rest : String(rest))
        let secret = password ?? environmentPassword
        // A password alone is ClickHouse's `default` user's.
        let name = user ?? (secret != nil ? "default" : nil)
        self.password = secret
        self.user = name
        self.host = String(host)
        self.port = port
        url = "\(scheme)://\(host):\(port)\(path)"
        let shownUser = name.map { $0 + (secret != nil ? ":***" : "") + "@" } ?? ""
        redacted = "\(scheme)://\(shownUser)\(host):\(port)\(Self.redactingQueryPassword(path))"
    }

    /// The URL of an INSERT into `table` with `format`, ClickHouse settings of the URL kept.
    public func insertURL(table: String, format: String = "JSONEachRow") -> String {
        url + (url.contains("?") ? "&" : "?") + "query=INSERT%20INTO%20\(table)%20FORMAT%20\(format)"
    }

    /// Whether `name` is a table name ``insertURL(table:format:)`` can put in a query as it is:
    /// `table` or `database.table`, each a letter or `_` followed by letters, digits and `_`.
    public static func isPlainTableName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return false }
        return parts.allSatisfy { part in
            guard let first = part.first, first == "_" || (first.isASCII && first.isLetter) else { return false }
            return part.allSatisfy { $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }
        }
    }

    /// `password=…` values in a query string replaced by `***`.
    static func redactingQueryPassword(_ path: String) -> String {
        guard let q = path.firstIndex(of: "?") else { return path }
        let pairs = path[path.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map {
            pair in pair.hasPrefix("password=") ? "password=***" : String(pair)
        }
        return String(path[...q]) + pairs.joined(separator: "&")
    }

    private static func percentDecoded(_ text: Substring) throws(LoadError) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(text.utf8)[...]
        while let b = utf8.popFirst() {
            guard b == UInt8(ascii: "%") else {
                bytes.append(b)
                continue
            }
            guard utf8.count >= 2, let v = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else {
                throw LoadError.badURL("a % in the user or password is not followed by two hex digits")
            }
            bytes.append(v)
            utf8 = utf8.dropFirst(2)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
