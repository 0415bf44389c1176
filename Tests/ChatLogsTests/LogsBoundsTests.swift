import ChatHTTP
import ChatLogStore
import ChatLogs
import ChatStore
import Testing

/// ``LogsBounds`` through the service: past a bound the answer is 400 in rustlog's `Invalid param`
/// shape, before anything is read; at the bound it is answered.
@Suite struct LogsBoundsTests {
    static func service(_ fixture: LogsFixture) -> LogsService {
        LogsService(
            archive: LogArchive(root: fixture.root), bounds: LogsBounds(maxRangeDays: 2, maxLimit: 3),
            now: { LogsServiceTests.later })
    }

    @Test(
        "past --max-range-days or --max-limit: 400 on every route that reads them",
        arguments: [
            (
                "/channel/alpha", ["from": "2025-11-18T00:00:00Z", "to": "2025-11-20T00:00:01Z"],
                "range longer than 2 days"
            ),
            (
                "/channel/alpha/user/bob", ["from": "2025-10-01T00:00:00Z", "to": "2025-11-21T00:00:00Z"],
                "range longer than 2 days"
            ),
            (
                "/channel/alpha/stats", ["from": "2025-10-01T00:00:00Z", "to": "2025-11-21T00:00:00Z"],
                "range longer than 2 days"
            ),
            ("/channel/alpha/2025/11/20", ["limit": "4"], "limit above 3"),
            ("/channel/alpha/2025/11/20", ["offset": "4"], "offset above 3"),
            ("/channel/alpha/user/bob/2025/11", ["limit": "100000"], "limit above 3"),
            ("/channel/alpha/user/bob/search", ["q": "hello", "limit": "4"], "limit above 3"),
        ] as [(String, [String: String?], String)])
    func refused(path: String, query: [String: String?], why: String) throws {
        let fixture = try LogsFixture()
        let answer = LogsServiceTests.get(Self.service(fixture), path, query)
        #expect(answer.status == 400)
        #expect(answer.contentType == "text/plain; charset=utf-8")
        #expect(LogsServiceTests.text(answer) == "Invalid param: \(why)")
    }

    @Test("at the bounds: answered")
    func atTheBounds() throws {
        let fixture = try LogsFixture()
        let service = Self.service(fixture)
        let range = LogsServiceTests.get(
            service, "/channel/alpha", ["from": "2025-11-19T00:00:00Z", "to": "2025-11-21T00:00:00Z"])
        #expect(range.status == 200)
        let limited = LogsServiceTests.get(service, "/channel/alpha/2025/11/20", ["limit": "3", "offset": "3"])
        #expect(limited.status == 200)
        #expect(LogsServiceTests.text(limited).split(separator: "\r\n").count == 2)
        #expect(LogsBounds() == LogsBounds(maxRangeDays: 366, maxLimit: 1_000_000))
    }

    @Test("the router's busy answer is the API's: 503, text/plain, CORS and the capabilities header")
    func busy() throws {
        var router = HTTPRouter()
        let fixture = try LogsFixture()
        Self.service(fixture).install(into: &router)
        #expect(router.busy.status == 503)
        #expect(router.busy.contentType == "text/plain; charset=utf-8")
        #expect(
            String(decoding: router.busy.body, as: UTF8.self) == "Server busy: too many connections, try again shortly")
        #expect(router.busy.allowsAnyOrigin)
        #expect(router.busy.headers.contains(HTTPHeader("x-rustlog-capabilities", "arbitrary-range-query")))
    }
}
