import ChatHTTP
import ChatLogStore
import ChatLogs
import ChatStore
import Foundation
import Testing

/// Each route over ``LogsFixture``, checked for status, headers and body against the shapes of
/// rustlog's code (`src/web/handlers.rs`, `src/web/schema.rs`, `src/web/responders/logs/`, `src/error.rs`).
@Suite struct LogsServiceTests {
    /// 2025-11-29: every day of the fixture is over (cacheable).
    static let later = Timestamp(milliseconds: 1_764_400_000_000)

    static func service(_ fixture: LogsFixture, maxAnswerBytes: Int = 1 << 20, now: Timestamp = later) -> LogsService {
        LogsService(archive: LogArchive(root: fixture.root), maxAnswerBytes: maxAnswerBytes, now: { now })
    }

    static func get(_ service: LogsService, _ path: String, _ query: [String: String?] = [:]) -> HTTPResponse {
        service.respond(path: path) { query[$0] }
    }

    /// The body, read to its end (a streamed one once).
    static func text(_ response: HTTPResponse) -> String {
        String(decoding: response.collectedBody(), as: UTF8.self)
    }

    static func header(_ response: HTTPResponse, _ name: String) -> String? {
        response.headers.first { $0.name == name }?.value
    }

    static let nov20Text =
        "[2025-11-20 10:00:00] #alpha bob: hello\r\n"
        + "[2025-11-20 10:00:01] #alpha carol: waves\r\n"
        + "[2025-11-20 10:00:04] #alpha bob: bob has been timed out for 600 seconds\r\n"
        + "[2025-11-20 10:00:05] #alpha carol: message `waves` from `carol` has been deleted\r\n"
        + "[2025-11-20 10:00:06] #alpha carol: Carol subscribed for 3 months! still here\r\n"

    @Test("GET /channels: every channel folder with its lines' room-id, never _session")
    func channels() throws {
        let fixture = try LogsFixture()
        let response = Self.get(Self.service(fixture), "/channels")
        #expect(response.status == 200)
        #expect(response.contentType == "application/json")
        #expect(Self.header(response, "Cache-Control") == "public, max-age=600")
        #expect(
            Self.text(response)
                == #"{"channels":[{"name":"alpha","userID":"1001"},{"name":"beta","userID":"1002"}]}"#)
    }

    @Test("GET /list: a channel's days or a user's months, newest first, without leading zeros")
    func list() throws {
        let fixture = try LogsFixture()
        let service = Self.service(fixture)
        let days = Self.get(service, "/list", ["channel": "alpha"])
        #expect(days.status == 200)
        #expect(Self.header(days, "Cache-Control") == "public, max-age=600")
        #expect(
            Self.text(days)
                == #"{"availableLogs":[{"year":"2025","month":"11","day":"21"},{"year":"2025","month":"11","day":"20"},{"year":"2025","month":"10","day":"31"}]}"#
        )
        #expect(
            Self.text(Self.get(service, "/list", ["channelid": "1002"]))
                == #"{"availableLogs":[{"year":"2025","month":"11","day":"21"}]}"#)
        // dave_new's id (2003) also wrote as dave_old in October: both months are his.
        #expect(
            Self.text(Self.get(service, "/list", ["channel": "alpha", "user": "dave_new"]))
                == #"{"availableLogs":[{"year":"2025","month":"11"},{"year":"2025","month":"10"}]}"#)
        #expect(
            Self.text(Self.get(service, "/list", ["channel": "alpha", "userid": "2001"]))
                == #"{"availableLogs":[{"year":"2025","month":"11"}]}"#)
        #expect(Self.get(service, "/list", ["channel": "alpha", "user": "nobody"]).status == 404)
        #expect(Self.get(service, "/list", ["channel": "gamma"]).status == 404)
        let bad = Self.get(service, "/list")
        #expect(bad.status == 400)
        #expect(Self.text(bad) == "Failed to deserialize query string: missing field `channel` or `channelid`")
    }

    @Test("GET /channel/<c>/<y>/<m>/<d>: the day's served lines as rustlog's text, moderation included")
    func dayText() throws {
        let fixture = try LogsFixture()
        let service = Self.service(fixture)
        let response = Self.get(service, "/channel/alpha/2025/11/20")
        #expect(response.status == 200)
        #expect(response.contentType == "text/plain; charset=utf-8")
        #expect(Self.header(response, "Cache-Control") == "public, max-age=36000")
        #expect(Self.text(response) == Self.nov20Text)
        #expect(Self.text(Self.get(service, "/channelid/1001/2025/11/20")) == Self.nov20Text)
        #expect(Self.text(Self.get(service, "/channel/ALPHA/2025/011/020/")) == Self.nov20Text)
        #expect(
            Self.text(Self.get(service, "/channel/alpha/2025/11/21"))
                == "[2025-11-21 10:00:00] #alpha dave_new: new name\r\n"
                + "[2025-11-21 10:00:01] #alpha carol: carol has been banned\r\n"
                + "[2025-11-21 10:00:02] #alpha Chat has been cleared\r\n")
        // Hourly files of one day are one day, in time order.
        #expect(
            Self.text(Self.get(service, "/channel/beta/2025/11/21"))
                == "[2025-11-21 04:59:59] #beta bob: first\r\n[2025-11-21 05:00:00] #beta carol: second\r\n")
    }

    @Test("a day still going on is not cached")
    func notCachedToday() throws {
        let fixture = try LogsFixture()
        let noon = Timestamp(milliseconds: LogsFixture.nov20 + 2 * 3_600_000)
        let response = Self.get(Self.service(fixture, now: noon), "/channel/alpha/2025/11/20")
        #expect(Self.header(response, "Cache-Control") == "no-cache")
    }

    @Test("?json: {\"messages\":[…]} of rustlog's full message; ?jsonBasic without username, channel, raw, type")
    func json() throws {
        let fixture = try LogsFixture()
        let service = Self.service(fixture)
        let response = Self.get(service, "/channel/alpha/2025/11/20", ["json": String?.none, "limit": "1"])
        #expect(response.status == 200)
        #expect(response.contentType == "application/json")
        let raw =
            "@badge-info=;badges=;color=#1E90FF;display-name=Bob;emotes=;id=msg-bob-1763632800000;room-id=1001;"
            + "tmi-sent-ts=1763632800000;user-id=2001 :bob!bob@bob.tmi.twitch.tv PRIVMSG #alpha :hello"
        #expect(
            Self.text(response)
                == ##"{"messages":[{"text":"hello","displayName":"Bob","timestamp":"2025-11-20T10:00:00Z","id":"msg-bob-1763632800000","tags":{"badge-info":"","badges":"","color":"#1E90FF","display-name":"Bob","emotes":"","id":"msg-bob-1763632800000","room-id":"1001","tmi-sent-ts":"1763632800000","user-id":"2001"},"username":"bob","channel":"alpha","raw":""##
                + raw + #"","type":1}]}"#)

        let all = Self.get(service, "/channel/alpha/2025/11/20", ["json": ""])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(all.collectedBody())) as? [String: Any])
        let messages = try #require(object["messages"] as? [[String: Any]])
        #expect(messages.map { $0["type"] as? Int } == [1, 1, 2, 13, 4])
        #expect(messages.map { $0["username"] as? String } == ["bob", "carol", "bob", "carol", "carol"])
        #expect(messages[2]["text"] as? String == "bob has been timed out for 600 seconds")
        #expect((messages[3]["tags"] as? [String: String])?["target-msg-id"] == "msg-carol-1763632801000")
        #expect(messages[4]["displayName"] as? String == "Carol")
        for message in messages {
            #expect((message["tags"] as? [String: String])?["time"] == nil)
            #expect((message["raw"] as? String)?.contains("time=") == false)
            #expect(message["channel"] as? String == "alpha")
        }

        let basic = Self.get(service, "/channel/alpha/2025/11/20", ["jsonBasic": "", "limit": "1"])
        let basicObject = try #require(
            try JSONSerialization.jsonObject(with: Data(basic.collectedBody())) as? [String: Any])
        let first = try #require((basicObject["messages"] as? [[String: Any]])?.first)
        #expect(Set(first.keys) == ["text", "displayName", "timestamp", "id", "tags"])
    }

    @Test("?ndjson: one basic message per CRLF line; ?raw: the lines as the server sent them")
    func ndjsonAndRaw() throws {
        let fixture = try LogsFixture()
        let service = Self.service(fixture)
        let ndjson = Self.get(service, "/channel/alpha/2025/11/21", ["ndjson": ""])
        #expect(ndjson.contentType == "application/x-ndjson")
        let body = Self.text(ndjson)
        let lines = body.split(separator: "\r\n")
        #expect(lines.count == 3)
        #expect(body.hasSuffix("}\r\n"))
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == ["text", "displayName", "timestamp", "id", "tags"])
        }
        let raw = Self.get(service, "/channel/alpha/2025/11/21", ["raw": ""])
        #expect(raw.contentType == "text/plain; charset=utf-8")
        let expected = LogsFixture.alphaNov21.map { line in
            // The stored line without the `time` tag capture put first.
            let afterTime = line.drop { $0 != ";" && $0 != " " }
            return (afterTime.first == ";" ? "@" + afterTime.dropFirst() : String(afterTime.dropFirst())) + "\r\n"
        }.joined()
        #expect(Self.text(raw) == expected)
        #expect(Self.text(raw).hasPrefix("@ban-duration") == false)
        #expect(Self.text(raw).contains("@time=") == false)
    }

    @Test("?reverse, ?limit, ?offset choose the lines as ORDER BY … LIMIT … OFFSET does")
    func window() throws {
        let fixture = try LogsFixture()
        let service = Self.service(fixture)
        let lines = Self.nov20Text.components(separatedBy: "\r\n").dropLast().map { $0 + "\r\n" }
        func get(_ query: [String: String?]) -> String {
            Self.text(Self.get(service, "/channel/alpha/2025/11/20", query))
        }
        #expect(get(["reverse": ""]) == lines.reversed().joined())
        #expect(get(["limit": "2"]) == lines[0..<2].joined())
        #expect(get(["offset": "3"]) == lines[3...].joined())
        #expect(get(["offset": "1", "limit": "2"]) == lines[1..<3].joined())
        #expect(get(["reverse": "", "offset": "1", "limit": "2"]) == [lines[3], lines[2]].joined())
        #expect(get(["reverse": "", "limit": "1", "json": ""]).hasPrefix(#"{"messages":[{"text":"Carol subscribed"#))
        let past = Self.get(service, "/channel/alpha/2025/11/20", ["offset": "5"])
        #expect(past.status == 404)
        #expect(Self.text(past) == "Not found")
        let bad = Self.get(service, "/channel/alpha/2025/11/20", ["limit": "x"])
        #expect(bad.status == 400)
        #expect(Self.text(bad) == "Failed to deserialize query string: limit: invalid digit found in string")
    }

    @Test("GET /<…>/user/<u>/<y>/<m>: the user's lines of the month by user-id, renames and moderation included")
    func userMonth() throws {
        let fixture = try LogsFixture()
        let service = Self.service(fixture)
        let response = Self.get(service, "/channel/alpha/user/bob/2025/11")
        #expect(response.status == 200)
        let bob = Self.text(response)
        #expect(
            bob
                == "[2025-11-20 10:00:00] #alpha bob: hello\r\n"
                + "[2025-11-20 10:00:04] #alpha bob: bob has been timed out for 600 seconds\r\n")
        #expect(Self.text(Self.get(service, "/channelid/1001/userid/2001/2025/11")) == bob)
        // Asked by the old login, November's lines under the new one are the same user's (user-id 2003).
        #expect(
            Self.text(Self.get(service, "/channel/alpha/user/dave_old/2025/11"))
                == "[2025-11-21 10:00:00] #alpha dave_new: new name\r\n")
        #expect(
            Self.text(Self.get(service, "/channel/alpha/user/dave_new/2025/10"))
                == "[2025-10-31 10:00:00] #alpha dave_old: old name\r\n")
        #expect(
            Self.text(Self.get(service, "/channel/alpha/user/carol/2025/11"))
                == "[2025-11-20 10:00:01] #alpha carol: waves\r\n"
                + "[2025-11-20 10:00:06] #alpha carol: Carol subscribed for 3 months! still here\r\n"
                + "[2025-11-21 10:00:01] #alpha carol: carol has been banned\r\n")
        #expect(Self.get(service, "/channel/alpha/user/nobody/2025/11").status == 404)
        #expect(Self.get(service, "/channel/alpha/user/bob/2025/9").status == 404)
        #expect(Self.get(service, "/channel/beta/user/dave_new/2025/11").status == 404)
    }

    @Test("GET /channel/<c> and /<…>/user/<u>: 303 to the latest day or month, the query carried over")
    func redirects() throws {
        let fixture = try LogsFixture()
        let service = Self.service(fixture)
        let day = Self.get(service, "/channel/alpha", ["json": "", "limit": "5"])
        #expect(day.status == 303)
        #expect(Self.header(day, "Location") == "/channel/alpha/2025/11/21?json&limit=5")
        #expect(Self.header(Self.get(service, "/channelid/1002"), "Location") == "/channelid/1002/2025/11/21")
        #expect(
            Self.header(Self.get(service, "/channel/alpha/user/bob"), "Location") == "/channel/alpha/user/bob/2025/11")
        #expect(
            Self.header(Self.get(service, "/channel/alpha/user/dave_new"), "Location")
                == "/channel/alpha/user/dave_new/2025/11")
        #expect(
            Self.header(Self.get(service, "/channel/alpha/userid/2003", ["raw": ""]), "Location")
                == "/channel/alpha/userid/2003/2025/11?raw")
        #expect(Self.get(service, "/channel/gamma").status == 404)
        #expect(Self.get(service, "/channel/alpha/user/nobody").status == 404)
    }

    @Test("?from=&to= on /channel/<c> and /<…>/user/<u>: the lines in the range instead of a redirect")
    func ranges() throws {
        let fixture = try LogsFixture()
        let service = Self.service(fixture)
        let range: [String: String?] = ["from": "2025-11-20T10:00:01Z", "to": "2025-11-21T10:00:01Z"]
        let day = Self.get(service, "/channel/alpha", range)
        #expect(day.status == 200)
        #expect(Self.header(day, "Cache-Control") == "public, max-age=36000")
        let lines = Self.nov20Text.components(separatedBy: "\r\n").dropLast().map { $0 + "\r\n" }
        #expect(Self.text(day) == lines[1...].joined() + "[2025-11-21 10:00:00] #alpha dave_new: new name\r\n")
        var reversed = range
        reversed["reverse"] = ""
        reversed["limit"] = "2"
        #expect(
            Self.text(Self.get(service, "/channelid/1001", reversed))
                == "[2025-11-21 10:00:00] #alpha dave_new: new name\r\n" + lines[4])
        #expect(
            Self.text(
                Self.get(
                    service, "/channel/alpha/user/dave_old",
                    ["from": "2025-10-01T00:00:00Z", "to": "2025-12-01T00:00:00Z"]))
                == "[2025-10-31 10:00:00] #alpha dave_old: old name\r\n[2025-11-21 10:00:00] #alpha dave_new: new name\r\n"
        )
        #expect(
            Self.get(service, "/channel/alpha", ["from": "2025-01-01T00:00:00Z", "to": "2025-01-02T00:00:00Z"]).status
                == 404)
        let noon = Timestamp(milliseconds: LogsFixture.nov20 + 2 * 3_600_000)
        #expect(
            Self.header(Self.get(Self.service(fixture, now: noon), "/channel/alpha", range), "Cache-Control")
                == "no-cache")
        let bad = Self.get(service, "/channel/alpha", ["from": "x", "to": "2025-11-21T10:00:01Z"])
        #expect(bad.status == 400)
        #expect(Self.text(bad) == "Failed to deserialize query string: from: input contains invalid characters")
    }

    @Test("/capabilities and the capabilities header on every answer, as rustlog's middleware adds it")
    func capabilities() throws {
        let fixture = try LogsFixture()
        let service = Self.service(fixture)
        let answer = Self.get(service, "/capabilities")
        #expect(answer.status == 200)
        #expect(Self.text(answer) == #"["arbitrary-range-query"]"#)
        for path in ["/capabilities", "/channels", "/channel/alpha", "/channel/alpha/2025/11/20", "/channel/nobody"] {
            #expect(
                Self.header(Self.get(service, path), "x-rustlog-capabilities") == "arbitrary-range-query", "\(path)")
        }
    }

    @Test(
        "errors: rustlog's status and text/plain body",
        arguments: [
            ("/channel/gamma/2025/11/20", 404, "Not found"),
            ("/channel/alpha/2025/11/19", 404, "Not found"),
            ("/channelid/9999/2025/11/20", 404, "Not found"),
            ("/channel/alpha/2025/13/20", 400, "Invalid param: Invalid date"),
            ("/channel/alpha/2025/xx/20", 400, "Int parse error: invalid digit found in string"),
        ])
    func errors(path: String, status: Int, body: String) throws {
        let fixture = try LogsFixture()
        let response = Self.get(Self.service(fixture), path)
        #expect(response.status == status)
        #expect(response.contentType == "text/plain; charset=utf-8")
        #expect(Self.text(response) == body)
    }

    @Test(
        "paths that try to leave the channel folders never read a file",
        arguments: [
            "/channel/../_session/2025/11/21", "/channel/..%2F_session/2025/11/21", "/channel/_session/2025/11/21",
            "/channel/alpha/../../etc/passwd", "/channel/%2e%2e/2025/11/21", "/channel/alpha\u{0}/2025/11/20",
            "/channel//2025/11/21", "/channelid/../2025/11/21", "/channel/alpha/user/../../2025/11",
        ])
    func traversal(path: String) throws {
        let fixture = try LogsFixture()
        let response = Self.get(Self.service(fixture), path)
        #expect(response.status == 404 || response.status == 400)
        #expect(!Self.text(response).contains("secret"))
    }

    @Test("through a router: HEAD as GET, other paths the router's 404")
    func router() throws {
        let fixture = try LogsFixture()
        var router = HTTPRouter()
        Self.service(fixture).install(into: &router)
        let head = router.respond(to: HTTPRequest(method: "HEAD", path: "/channels") { _ in nil })
        #expect(head.status == 200)
        let post = router.respond(to: HTTPRequest(method: "POST", path: "/channels") { _ in nil })
        #expect(post.status == 405)
        #expect(router.respond(to: HTTPRequest(method: "GET", path: "/elsewhere") { _ in nil }).status == 404)
    }
}
