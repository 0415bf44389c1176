import ChatLogStore
import ChatLogs
import ChatStore
import Testing

@Suite struct LogsRouteTests {
    static func route(_ path: String, _ query: [String: String?] = [:]) throws(LogsError) -> LogsRoute {
        try LogsRoute(path: path) { query[$0] }
    }

    @Test("the routes of rustlog's src/web/mod.rs")
    func routes() throws {
        let nov21 = try #require(LogDay(year: 2025, month: 11, day: 21))
        let nov = try #require(LogMonth(year: 2025, month: 11))
        #expect(try Self.route("/channels") == .channels)
        #expect(try Self.route("/list", ["channel": "Alpha"]) == .list(.name("alpha"), nil))
        #expect(try Self.route("/list", ["channelid": "1001", "userid": "2001"]) == .list(.id("1001"), .id("2001")))
        #expect(try Self.route("/list", ["channel": "alpha", "user": "bob"]) == .list(.name("alpha"), .name("bob")))
        #expect(try Self.route("/channel/alpha") == .channelLatest(.name("alpha")))
        #expect(try Self.route("/channel/alpha/") == .channelLatest(.name("alpha")))
        #expect(try Self.route("/channelid/1001") == .channelLatest(.id("1001")))
        #expect(try Self.route("/channel/alpha/2025/11/21") == .channelDay(.name("alpha"), nov21))
        #expect(try Self.route("/channel/alpha/2025/011/21") == .channelDay(.name("alpha"), nov21))
        #expect(try Self.route("/channel/alpha/user/Bob") == .userLatest(.name("alpha"), .name("bob")))
        #expect(try Self.route("/channel/alpha/userid/2001") == .userLatest(.name("alpha"), .id("2001")))
        #expect(try Self.route("/channel/alpha/user/bob/2025/11") == .userMonth(.name("alpha"), .name("bob"), nov))
        #expect(try Self.route("/channelid/1001/userid/2001/2025/11") == .userMonth(.id("1001"), .id("2001"), nov))
    }

    @Test(
        "no route, or a name that is no login: 404",
        arguments: [
            "/", "/channel", "/channel/..", "/channel/../_session", "/channel/_session/2025/11/21", "/channel/a/b/c",
            "/channel/alpha/2025/11/21/x", "/channelid/abc", "/channel/alpha/user/../2025/11", "/channel/a%2Fb",
            "/nothing/alpha", "/channel/alpha/users/bob", "/channel/alpha/userid/bob",
        ])
    func notFound(path: String) {
        #expect(throws: LogsError.notFound) { try Self.route(path) }
    }

    @Test(
        "a date that is no number or no date: 400 in rustlog's words",
        arguments: [
            ("/channel/alpha/2025/13/1", LogsError.invalidParam("Invalid date")),
            ("/channel/alpha/2025/2/30", LogsError.invalidParam("Invalid date")),
            ("/channel/alpha/user/bob/2025/0", LogsError.invalidParam("Invalid date")),
            ("/channel/alpha/2025/x/1", LogsError.parseInt("invalid digit found in string")),
            ("/channel/alpha/2025/-1/1", LogsError.parseInt("invalid digit found in string")),
            ("/channel/alpha/2025//1", LogsError.parseInt("cannot parse integer from empty string")),
            ("/channel/alpha/99999999999/1/1", LogsError.parseInt("number too large to fit in target type")),
        ])
    func badDates(path: String, error: LogsError) {
        #expect(throws: error) { try Self.route(path) }
        #expect(error.status == 400)
    }

    @Test("/list without a channel is a query error")
    func listWithoutChannel() {
        #expect(throws: LogsError.query("missing field `channel` or `channelid`")) { try Self.route("/list") }
    }

    @Test("query flags count when present whatever their value; limit and offset are numbers")
    func query() throws {
        func q(_ query: [String: String?]) throws(LogsError) -> LogsQuery { try LogsQuery { query[$0] } }
        #expect(try q([:]) == LogsQuery())
        #expect(try q(["json": String?.none]).format == .json)
        #expect(try q(["json": "0"]).format == .json)
        #expect(try q(["raw": "", "json": ""]).format == .raw)
        #expect(try q(["jsonBasic": "", "json": ""]).format == .jsonBasic)
        #expect(try q(["ndjson": ""]).format == .ndjson)
        #expect(
            try q(["reverse": String?.none, "limit": "5", "offset": "2"])
                == LogsQuery(reverse: true, limit: 5, offset: 2))
        #expect(throws: LogsError.query("limit: invalid digit found in string")) { try q(["limit": "-1"]) }
        #expect(throws: LogsError.query("offset: cannot parse integer from empty string")) {
            try q(["offset": String?.none])
        }
    }

    @Test("from and to: an RFC 3339 range when both are given, a query error when one is no time")
    func range() throws {
        func q(_ query: [String: String?]) throws(LogsError) -> LogsQuery { try LogsQuery { query[$0] } }
        let from = try #require(Timestamp(rfc3339: "2025-11-20T10:00:00Z"))
        let to = try #require(Timestamp(rfc3339: "2025-11-21T10:00:00Z"))
        #expect(try q(["from": "2025-11-20T10:00:00Z", "to": "2025-11-21T10:00:00Z"]).range == from..<to)
        // An offset's `+` that form decoding turned into a space.
        #expect(try q(["from": "2025-11-20T12:00:00 02:00", "to": "2025-11-21T10:00:00Z"]).range == from..<to)
        #expect(try q(["from": "2025-11-21T10:00:00Z", "to": "2025-11-20T10:00:00Z"]).range?.isEmpty == true)
        #expect(try q(["from": "2025-11-20T10:00:00Z"]).range == nil)
        #expect(throws: LogsError.query("to: input contains invalid characters")) {
            try q(["from": "2025-11-20T10:00:00Z", "to": "yesterday"])
        }
        #expect(try Self.route("/capabilities") == .capabilities)
    }

    @Test("a redirect carries the parameters rustlog reads, encoded")
    func carried() {
        let query: [String: String?] = ["json": String?.none, "limit": "10", "other": "x", "offset": "a b"]
        #expect(LogsQuery.carried { query[$0] } == "?json&limit=10&offset=a%20b")
        #expect(LogsQuery.carried { _ in nil } == "")
    }
}
