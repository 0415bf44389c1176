import ChatHTTP
import ChatLogStore
import ChatLogs
import Testing

/// The page at `/`, as the router serves it (a real browser drives it in CLITests' LogsPageBrowserTests).
@Suite struct LogsPageTests {
    @Test("GET / is the viewer: HTML from the binary, its own script only, text set as text")
    func page() throws {
        let fixture = try LogsFixture()
        var router = HTTPRouter()
        LogsServiceTests.service(fixture).install(into: &router)
        let answer = router.respond(to: HTTPRequest(method: "GET", path: "/") { _ in nil })
        #expect(answer.status == 200)
        #expect(answer.contentType == "text/html; charset=utf-8")
        #expect(
            answer.headers.contains { $0.name == "Content-Security-Policy" && $0.value.contains("default-src 'self'") })
        let html = String(decoding: answer.body, as: UTF8.self)
        #expect(html.hasPrefix("<!doctype html>"))
        for part in [
            #"<select id="channel""#, #"<select id="day""#, #"<input id="user""#, #"<input id="filter""#,
            #"<button type="button" id="older">"#, #"<ol id="lines">"#, #"fetch(url)"#, "/channels", "?json",
        ] {
            #expect(html.contains(part), "\(part)")
        }
        #expect(!html.contains("innerHTML"))
        #expect(!html.contains("http://") && !html.contains("https://"))  // nothing from elsewhere
    }
}
