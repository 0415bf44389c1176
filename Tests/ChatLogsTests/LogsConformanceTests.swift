import ChatHTTP
import ChatLogStore
import ChatLogs
import Foundation
import Testing

/// Each route, over a real listener on 127.0.0.1 and curl as the client, against the shapes rustlog's
/// and justlog's code produce: status, the headers every answer carries (CORS, the capabilities
/// header), the route's own headers (`Cache-Control`, `Location`) and the body's shape (JSON keys and
/// value types, or the text line's form). Where each expectation comes from is said beside it:
///
/// - rustlog: `src/web/mod.rs` (routes, `CorsLayer::permissive`, `capabilities_header_middleware`,
///   `NormalizePath`), `src/web/handlers.rs` (redirects with axum's `Redirect::to`: 303; `cache_header`),
///   `src/web/schema.rs` (`ChannelsList`, `AvailableLogs`, `PreviousName`, `ChannelLogsStats`,
///   `UserLogsStats`), `src/logs/schema/message/` (`BasicMessage`, `FullMessage`),
///   `src/web/responders/logs/` (text, JSON, NDJSON writers), `src/error.rs` (text/plain errors).
/// - justlog: `api/server.go` (`corsHandler`: `Access-Control-Allow-Origin: *` on every answer and
///   an `OPTIONS` answer with `Allow-Methods`/`Allow-Headers`; `AllChannelsJSON`; `chatMessage`:
///   the same nine keys as rustlog's full message; `logList` of `UserLogFile` with string
///   `year`/`month`). Where justlog differs (302 instead of 303 for the latest day; `\n` instead of CRLF
///   and `2006-01-2` dates in text), chatcap follows rustlog, the newer of the two.
@Suite struct LogsConformanceTests {
    /// One answer as curl saw it on the wire.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// `curl -i` of `url` (`method`, extra headers): the status line's code, the headers (names lowered)
    /// and the body.
    static func fetch(_ url: String, method: String = "GET", headers: [String] = []) throws -> Answer {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments =
            ["-s", "-i", "-m", "10", "--path-as-is", "-X", method] + headers.flatMap { ["-H", $0] } + [url]
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts.first?.components(separatedBy: "\r\n") ?? []
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Answer(status: status, headers: fields, body: parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    /// The shape of a JSON value: objects as `{key:shape,…}` (keys sorted), arrays by their first
    /// element (`[]` when empty), `s`, `n` (a number or boolean), `null`; a `tags` object as `{*:s}` (its keys vary).
    static func shape(_ value: Any, key: String? = nil) -> String {
        switch value {
        case let object as [String: Any]:
            if key == "tags" { return object.values.allSatisfy { $0 is String } ? "{*:s}" : "{*:?}" }
            return "{" + object.keys.sorted().map { "\($0):\(shape(object[$0]!, key: $0))" }.joined(separator: ",")
                + "}"
        case let array as [Any]: return "[" + (array.first.map { shape($0) } ?? "") + "]"
        case is String: return "s"
        case is NSNumber: return "n"
        case is NSNull: return "null"
        default: return "?"
        }
    }

    static func shape(json text: String) -> String {
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            return "not JSON: \(text.prefix(80))"
        }
        return shape(value)
    }

    /// rustlog's `FullMessage` (`src/logs/schema/message/full.rs`, flattening `BasicMessage`), justlog's
    /// `chatMessage`: the same nine keys.
    static let fullMessage = "{channel:s,displayName:s,id:s,raw:s,tags:{*:s},text:s,timestamp:s,type:n,username:s}"
    /// rustlog's `BasicMessage` (`basic.rs`), what `?jsonBasic` and `?ndjson` write.
    static let basicMessage = "{displayName:s,id:s,tags:{*:s},text:s,timestamp:s}"
    /// A line of rustlog's text responder (`text_stream.rs`): `[YYYY-MM-DD HH:MM:SS] #channel user: text`.
    static var textLine: Regex<Substring> { #/^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\] #[a-z0-9_]+ .*$/# }

    /// The body check of a route: a JSON shape, text lines, or empty (a redirect).
    enum Body {
        case json(String)
        case text
        case ndjson
        case empty
    }

    /// What one route must answer (the path over ``LogsFixture``, all of whose days are over).
    struct Expected {
        var path: String
        var status: Int
        var contentType: String
        var cacheControl: String?
        var location: String?
        var body: Body
    }

    static let expected: [LogsRoute.Kind: Expected] = [
        // `get_channels`: `cache_header(600)`; `ChannelsList { channels: [Channel { name, userID }] }`.
        .channels: Expected(
            path: "channels", status: 200, contentType: "application/json", cacheControl: "public, max-age=600",
            body: .json("{channels:[{name:s,userID:s}]}")),
        // `capabilities`: `Json(CAPABILITIES)`.
        .capabilities: Expected(path: "capabilities", status: 200, contentType: "application/json", body: .json("[s]")),
        // `list_available_logs`: `AvailableLogs { availableLogs: [AvailableLogDate { year, month, day? }] }`,
        // numbers as strings (justlog's `UserLogFile` too), `cache_header(600)`.
        .list: Expected(
            path: "list?channel=alpha", status: 200, contentType: "application/json",
            cacheControl: "public, max-age=600", body: .json("{availableLogs:[{day:s,month:s,year:s}]}")),
        // `get_channel_logs` without a range: `Redirect::to` (303; justlog's `http.StatusFound`, 302).
        .channelLatest: Expected(
            path: "channel/alpha", status: 303, contentType: "text/plain", location: "/channel/alpha/2025/11/21",
            body: .empty),
        // `get_channel_logs_by_date`, a past day: `public, max-age=36000`; the text responder.
        .channelDay: Expected(
            path: "channel/alpha/2025/11/20", status: 200, contentType: "text/plain",
            cacheControl: "public, max-age=36000", body: .text),
        // `get_user_logs`: 303 to the latest month.
        .userLatest: Expected(
            path: "channel/alpha/user/bob", status: 303, contentType: "text/plain",
            location: "/channel/alpha/user/bob/2025/11", body: .empty),
        // `get_user_logs_by_date` with `?json`: `{"messages":[FullMessage…]}` (`json_stream.rs`); the
        // month still going on (the fixture's now is 2025-11-29): `no-cache`.
        .userMonth: Expected(
            path: "channel/alpha/user/bob/2025/11?json", status: 200, contentType: "application/json",
            cacheControl: "no-cache", body: .json("{messages:[\(fullMessage)]}")),
        // `random_channel_line`: `no_cache_header()`; with `?ndjson`, one basic message (`ndjson_stream.rs`).
        .channelRandom: Expected(
            path: "channel/alpha/random?ndjson", status: 200, contentType: "application/x-ndjson",
            cacheControl: "no-cache", body: .ndjson),
        // `random_user_line`: no-cache, `?jsonBasic`: `{"messages":[BasicMessage]}`.
        .userRandom: Expected(
            path: "channel/alpha/userid/2001/random?jsonBasic", status: 200, contentType: "application/json",
            cacheControl: "no-cache", body: .json("{messages:[\(basicMessage)]}")),
        // `search_user_logs`: the logs responder, text.
        .userSearch: Expected(
            path: "channel/alpha/user/bob/search?q=HELLO", status: 200, contentType: "text/plain", body: .text),
        // `get_user_name_history`: `Vec<PreviousName { user_login, last_timestamp, first_timestamp }>`.
        .nameHistory: Expected(
            path: "namehistory/2003", status: 200, contentType: "application/json",
            body: .json("[{first_timestamp:s,last_timestamp:s,user_login:s}]")),
        // `get_channel_stats`: `ChannelLogsStats { messageCount, topChatters: [UserLogsStats] }`.
        .channelStats: Expected(
            path: "channel/alpha/stats", status: 200, contentType: "application/json",
            body: .json("{messageCount:n,topChatters:[{messageCount:n,userId:s,userLogin:s}]}")),
        // `get_user_stats`: `UserLogsStats { userId, userLogin, messageCount }`.
        .userStats: Expected(
            path: "channelid/1001/user/bob/stats", status: 200, contentType: "application/json",
            body: .json("{messageCount:n,userId:s,userLogin:s}")),
    ]

    /// A listener over the fixture as `chatcap logs` sets it up (the port the API's alone).
    static func listener(_ fixture: LogsFixture) throws -> HTTPListener {
        var router = HTTPRouter()
        LogsServiceTests.service(fixture).install(into: &router, standalone: true)
        return try HTTPListener(host: "127.0.0.1", port: 0, router: router)
    }

    /// The headers rustlog's layers put on every answer (`CorsLayer::permissive`,
    /// `capabilities_header_middleware`), justlog's `corsHandler` the first.
    static func expectEveryAnswer(_ answer: Answer, _ what: String) {
        #expect(answer.header("Access-Control-Allow-Origin") == "*", "\(what)")
        #expect(answer.header("Access-Control-Expose-Headers") == "*", "\(what)")
        #expect(answer.header("x-rustlog-capabilities") == "arbitrary-range-query", "\(what)")
    }

    @Test("every route kind has its conformance case")
    func everyKind() {
        #expect(Set(Self.expected.keys) == Set(LogsRoute.Kind.allCases))
    }

    @Test("each route: status, headers and body shape as rustlog's code answers", arguments: LogsRoute.Kind.allCases)
    func route(kind: LogsRoute.Kind) throws {
        let expected = try #require(Self.expected[kind])
        let fixture = try LogsFixture()
        let listener = try Self.listener(fixture)
        defer { listener.stop() }
        let answer = try Self.fetch(listener.url + "/" + expected.path)
        #expect(answer.status == expected.status, "\(expected.path)")
        #expect(answer.header("Content-Type")?.hasPrefix(expected.contentType) == true, "\(answer.headers)")
        Self.expectEveryAnswer(answer, expected.path)
        if let cache = expected.cacheControl { #expect(answer.header("Cache-Control") == cache, "\(expected.path)") }
        if let location = expected.location { #expect(answer.header("Location") == location) }
        switch expected.body {
        case .json(let shape):
            #expect(Self.shape(json: answer.body) == shape, "\(expected.path)")
        case .text:
            let lines = answer.body.components(separatedBy: "\r\n")
            #expect(lines.count >= 2 && lines.last == "", "CRLF after each line: \(answer.body)")
            for line in lines.dropLast() { #expect(line.wholeMatch(of: Self.textLine) != nil, "\(line)") }
        case .ndjson:
            let lines = answer.body.components(separatedBy: "\r\n")
            #expect(lines.count == 2 && lines.last == "", "\(answer.body)")
            #expect(Self.shape(json: lines[0]) == Self.basicMessage)
        case .empty:
            #expect(answer.body.isEmpty)
        }
    }

    @Test(
        "errors: rustlog's status and text/plain body, with the headers of every answer",
        arguments: [
            ("channel/nobody/2025/11/20", 404, "Not found"), ("channel/alpha/user/nobody", 404, "Not found"),
            ("namehistory/bob", 404, "Not found"), ("nothing/here", 404, "Not found"),
            ("channel/alpha/2025/2/30", 400, "Invalid param: Invalid date"),
            (
                "channel/alpha/2025/11/20?limit=x", 400,
                "Failed to deserialize query string: limit: invalid digit found in string"
            ),
            ("list", 400, "Failed to deserialize query string: missing field `channel` or `channelid`"),
            ("channel/alpha/user/bob/search", 400, "Failed to deserialize query string: missing field `q`"),
        ])
    func errors(path: String, status: Int, body: String) throws {
        let fixture = try LogsFixture()
        let listener = try Self.listener(fixture)
        defer { listener.stop() }
        let answer = try Self.fetch(listener.url + "/" + path)
        #expect(answer.status == status, "\(path)")
        #expect(answer.header("Content-Type") == "text/plain; charset=utf-8", "\(path)")
        #expect(answer.body == body)
        Self.expectEveryAnswer(answer, path)
    }

    @Test("a CORS preflight is answered for any origin (rustlog's permissive CorsLayer, justlog's corsHandler)")
    func preflight() throws {
        let fixture = try LogsFixture()
        let listener = try Self.listener(fixture)
        defer { listener.stop() }
        let answer = try Self.fetch(
            listener.url + "/channel/alpha/2025/11/20", method: "OPTIONS",
            headers: [
                "Origin: https://example.org", "Access-Control-Request-Method: GET",
                "Access-Control-Request-Headers: x-client",
            ])
        #expect(answer.status == 200)
        #expect(answer.header("Access-Control-Allow-Origin") == "*")
        #expect(answer.header("Access-Control-Allow-Methods")?.contains("GET") == true)
        #expect(answer.header("Access-Control-Allow-Headers") == "x-client")
        // Another method: axum's 405, empty, with `Allow` and the headers of every answer.
        let post = try Self.fetch(listener.url + "/channels", method: "POST")
        #expect(post.status == 405)
        #expect(post.header("Allow") == "GET, HEAD")
        #expect(post.body.isEmpty)
        Self.expectEveryAnswer(post, "POST /channels")
        // A trailing slash is the same route (rustlog's `NormalizePath::trim_trailing_slash`).
        let slash = try Self.fetch(listener.url + "/channel/alpha/2025/11/20/")
        #expect(slash.status == 200)
        // capture's port, where the API shares the listener: no preflight, ChatHTTP's 405 and 404.
        var shared = HTTPRouter()
        LogsServiceTests.service(fixture).install(into: &shared)
        let options = shared.respond(to: HTTPRequest(method: "OPTIONS", path: "/channels") { _ in nil })
        #expect(options.status == 405)
        #expect(
            shared.respond(to: HTTPRequest(method: "GET", path: "/nothing") { _ in nil }).contentType
                == "application/json")
    }
}
