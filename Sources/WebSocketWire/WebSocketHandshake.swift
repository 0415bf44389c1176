/// The HTTP/1.1 Upgrade handshake that opens a WebSocket connection (RFC 6455 §4), as text: the
/// client's request and its checks of the answer, the server's checks of a request and its answers.
///
/// The one computation left out is SHA-1: `Sec-WebSocket-Accept` is
/// `base64(SHA-1(key + ``guid``))`, and this pure module hands ``acceptSource(forKey:)`` to a caller
/// that has a digest (ChatNet uses OpenSSL's).
///
/// The handshake is the control path: strings and arrays are allocated freely.
public enum WebSocketHandshake: Sendable {
    /// The GUID RFC 6455 appends to the key before hashing.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
    /// The subprotocol for IRC over WebSocket (Twitch accepts it and works without it).
    public static let ircProtocol = "irc"
    /// The longest request or response head accepted: 16 KiB.
    public static let maxHeadLength = 16 * 1024

    /// What is hashed (SHA-1, then base64) into the `Sec-WebSocket-Accept` answering `key`.
    public static func acceptSource(forKey key: String) -> String { key + guid }

    /// The index just past the `CR LF CR LF` that ends an HTTP head in `bytes`, if it is there.
    ///
    /// - Complexity: O(`bytes.count`).
    public static func headEnd(in bytes: Span<UInt8>) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 3..<bytes.count
        where bytes[i] == 0x0A && bytes[i - 1] == 0x0D && bytes[i - 2] == 0x0A && bytes[i - 3] == 0x0D {
            return i + 1
        }
        return nil
    }

    // MARK: Client

    /// The client's request for `path` on `host:port`, with the random 16-byte `key` in base64 and
    /// the `protocols` it offers (none: Twitch, as tmi.js does).
    public static func request(
        host: String, port: UInt16, secure: Bool, path: String, key: String, protocols: [String] = []
    )
        -> String
    {
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let authority = port == (secure ? 443 : 80) ? bracketed : "\(bracketed):\(port)"
        var text = "GET \(path.isEmpty ? "/" : path) HTTP/1.1\r\n"
        text += "Host: \(authority)\r\n"
        text += "Upgrade: websocket\r\n"
        text += "Connection: Upgrade\r\n"
        text += "Sec-WebSocket-Key: \(key)\r\n"
        text += "Sec-WebSocket-Version: 13\r\n"
        if !protocols.isEmpty { text += "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n" }
        text += "\r\n"
        return text
    }

    /// Checks the server's answer (`head`, up to and including its blank line) to a request with the
    /// given expected accept value and offered protocols.
    ///
    /// - Returns: the subprotocol the server chose, if any.
    /// - Throws: ``WebSocketHandshakeError`` naming what is wrong: not `101` (with the status line),
    ///   no `Upgrade: websocket` or `Connection: Upgrade`, a wrong `Sec-WebSocket-Accept`, a protocol or
    ///   an extension that was not offered.
    public static func checkResponse(_ head: Span<UInt8>, expectedAccept: String, offered protocols: [String] = [])
        throws(WebSocketHandshakeError) -> String?
    {
        let message = try HTTPHead(head)
        let status = message.startLine.split(separator: " ", maxSplits: 2)
        guard status.count >= 2, status[0].hasPrefix("HTTP/1."), status[1] == "101" else {
            throw .rejected(status: message.startLine)
        }
        guard message.hasToken("websocket", in: "upgrade") else { throw .missingHeader("Upgrade: websocket") }
        guard message.hasToken("upgrade", in: "connection") else { throw .missingHeader("Connection: Upgrade") }
        guard let accept = message.value("sec-websocket-accept") else {
            throw .missingHeader("Sec-WebSocket-Accept")
        }
        guard accept == expectedAccept else { throw .wrongAccept(got: accept, expected: expectedAccept) }
        if let extensions = message.value("sec-websocket-extensions"), !extensions.isEmpty {
            throw .unexpected("the server chose the extension '\(extensions)', which was not offered")
        }
        guard let chosen = message.value("sec-websocket-protocol"), !chosen.isEmpty else { return nil }
        guard protocols.contains(chosen) else {
            throw .unexpected("the server chose the subprotocol '\(chosen)', which was not offered")
        }
        return chosen
    }

    // MARK: Server

    /// Checks a client's request (`head`, up to and including its blank line).
    ///
    /// - Throws: ``WebSocketHandshakeError`` with the HTTP status to answer (400; 426 for another
    ///   WebSocket version) and why.
    public static func parseRequest(_ head: Span<UInt8>) throws(WebSocketHandshakeError) -> WebSocketUpgradeRequest {
        let message = try HTTPHead(head)
        let parts = message.startLine.split(separator: " ")
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1.") else {
            throw .badRequest("'\(message.startLine.prefix(80))' is not an HTTP/1.1 request line")
        }
        guard parts[0] == "GET" else { throw .badRequest("method \(parts[0].prefix(16)), not GET") }
        guard message.value("host") != nil else { throw .badRequest("no Host header") }
        guard message.hasToken("websocket", in: "upgrade") else {
            throw .badRequest("no 'Upgrade: websocket' header (this port speaks IRC over WebSocket)")
        }
        guard message.hasToken("upgrade", in: "connection") else {
            throw .badRequest("no 'Connection: Upgrade' header")
        }
        guard message.value("sec-websocket-version") == "13" else {
            throw .unsupportedVersion(message.value("sec-websocket-version") ?? "none")
        }
        guard let key = message.value("sec-websocket-key"), isValidKey(key) else {
            throw .badRequest("no Sec-WebSocket-Key of 16 bytes in base64")
        }
        let protocols = message.values("sec-websocket-protocol").flatMap { list in
            list.split(separator: ",").map { $0.trimmingWhitespace() }
        }
        return WebSocketUpgradeRequest(path: String(parts[1]), key: key, protocols: protocols)
    }

    /// The `101 Switching Protocols` answer, with the accept value and the chosen subprotocol.
    public static func response(accept: String, protocol chosen: String?) -> String {
        var text = "HTTP/1.1 101 Switching Protocols\r\n"
        text += "Upgrade: websocket\r\n"
        text += "Connection: Upgrade\r\n"
        text += "Sec-WebSocket-Accept: \(accept)\r\n"
        if let chosen { text += "Sec-WebSocket-Protocol: \(chosen)\r\n" }
        text += "\r\n"
        return text
    }

    /// The answer to a request that cannot be upgraded, with why in its body; the connection closes.
    public static func rejection(_ error: WebSocketHandshakeError) -> String {
        let body = "\(error)\n"
        var text = "HTTP/1.1 \(error.status)\r\n"
        if case .unsupportedVersion = error { text += "Sec-WebSocket-Version: 13\r\n" }
        text += "Content-Type: text/plain; charset=utf-8\r\n"
        text += "Content-Length: \(body.utf8.count)\r\n"
        text += "Connection: close\r\n\r\n"
        return text + body
    }

    /// Whether `key` is 16 bytes in base64: 22 base64 characters then `==`.
    static func isValidKey(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard bytes.count == 24, bytes[22] == UInt8(ascii: "="), bytes[23] == UInt8(ascii: "=") else { return false }
        return bytes[..<22].allSatisfy { byte in
            (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
    }
}

/// A client's upgrade request, checked.
public struct WebSocketUpgradeRequest: Sendable, Equatable {
    /// The request target (`/`).
    public var path: String
    /// `Sec-WebSocket-Key`.
    public var key: String
    /// The subprotocols offered, in the client's order.
    public var protocols: [String]

    public init(path: String, key: String, protocols: [String]) {
        self.path = path
        self.key = key
        self.protocols = protocols
    }

    /// The subprotocol to answer with: `irc` when offered, else none (a client that offered only
    /// others decides whether to go on).
    public var chosenProtocol: String? {
        protocols.first { $0.lowercased() == WebSocketHandshake.ircProtocol }
    }
}

/// Why a handshake failed.
public enum WebSocketHandshakeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not HTTP, or an HTTP head that is too long or broken.
    case malformed(String)
    /// The server answered with another status than 101.
    case rejected(status: String)
    case missingHeader(String)
    case wrongAccept(got: String, expected: String)
    /// The server chose something that was not offered.
    case unexpected(String)
    /// A request that is not a WebSocket upgrade (answered 400).
    case badRequest(String)
    /// A request for a WebSocket version other than 13 (answered 426).
    case unsupportedVersion(String)

    /// The HTTP status line's code and text for a rejected request.
    public var status: String {
        if case .unsupportedVersion = self { return "426 Upgrade Required" }
        return "400 Bad Request"
    }

    public var description: String {
        switch self {
        case .malformed(let why): "not an HTTP handshake: \(why)"
        case .rejected(let status): "the server answered '\(status.prefix(120))', not 101 Switching Protocols"
        case .missingHeader(let header): "the answer lacks '\(header)'"
        case .wrongAccept(let got, let expected): "Sec-WebSocket-Accept is '\(got.prefix(64))', expected '\(expected)'"
        case .unexpected(let why): why
        case .badRequest(let why): "not a WebSocket upgrade request: \(why)"
        case .unsupportedVersion(let version):
            "Sec-WebSocket-Version \(version.prefix(16)) is not supported (13 is)"
        }
    }
}

/// An HTTP/1.1 head split into its start line and headers (names lower-cased).
struct HTTPHead {
    var startLine: String
    var headers: [(name: String, value: String)]

    init(_ head: Span<UInt8>) throws(WebSocketHandshakeError) {
        guard head.count <= WebSocketHandshake.maxHeadLength else {
            throw .malformed("a head of \(head.count) bytes (at most \(WebSocketHandshake.maxHeadLength))")
        }
        var lines: [String] = []
        var start = 0
        for i in 0..<head.count where head[i] == 0x0A {
            var end = i
            if end > start && head[end - 1] == 0x0D { end -= 1 }
            lines.append(String(decoding: (start..<end).map { head[$0] }, as: UTF8.self))
            start = i + 1
        }
        guard let first = lines.first, !first.isEmpty else { throw .malformed("no start line") }
        startLine = first
        headers = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw .malformed("the header line '\(line.prefix(80))' has no colon")
            }
            headers.append(
                (String(line[..<colon]).lowercased(), String(line[line.index(after: colon)...]).trimmingWhitespace()))
        }
    }

    /// Every value of header `name` (lower case).
    func values(_ name: String) -> [String] { headers.filter { $0.name == name }.map(\.value) }

    /// The values of header `name` joined by commas, or `nil` when there is none.
    func value(_ name: String) -> String? {
        let all = values(name)
        return all.isEmpty ? nil : all.joined(separator: ", ")
    }

    /// Whether the comma-separated header `name` holds `token` (compared case-insensitively).
    func hasToken(_ token: String, in name: String) -> Bool {
        values(name).contains { list in
            list.split(separator: ",").contains { $0.trimmingWhitespace().lowercased() == token }
        }
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> String {
        let isSpace = { (c: Character) in c == " " || c == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
