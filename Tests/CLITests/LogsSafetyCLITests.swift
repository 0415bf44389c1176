import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `chatcap logs`'s bounds, against the binary over real loopback sockets: connections past
/// `--max-connections` answered 503 in the API's error shape at once, slow clients cut off after
/// `--request-timeout`, ranges and limits past `--max-range-days`/`--max-limit` refused with 400, a
/// request line past the connection's memory refused; after each, a normal request is answered.
@Suite struct LogsSafetyCLITests {
    /// `Tests/Support/slow_clients.py`'s findings.
    struct SlowClients: Decodable {
        var answered: Int
        var held: Int
        var closed: Int
        var answer: String
        var during: String
        var heldCut: Int
        var after: String
        var slowlorisSeconds: Double?
    }

    static func slowClients(port: String, count: Int) throws -> SlowClients {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Fixtures.root + "/Tests/Support/slow_clients.py", port, "\(count)"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONDecoder().decode(SlowClients.self, from: data)
    }

    @Test(
        "logs: busy past --max-connections, slow clients cut, long ranges and limits refused", .timeLimit(.minutes(20)))
    func bounds() throws {
        let dir = try InputTempDirectory("logs-safety")
        try LogsCLITests.write(
            dir, "alpha/2025-11-20.log.gz",
            [
                "@time=2025-11-20T10:00:00.100Z;room-id=1001;tmi-sent-ts=1763632800000;user-id=2001 "
                    + ":bob!bob@bob.tmi.twitch.tv PRIVMSG #alpha :hello"
            ])
        let chatcap = try ChatcapProcess([
            "logs", "--dir", dir.path, "--http-port", "0", "--max-connections", "100", "--request-timeout", "3",
            "--max-range-days", "2", "--max-limit", "50",
        ])
        guard chatcap.waitForStderr(containing: "listening on http://127.0.0.1:", timeoutMs: 20_000),
            let match = chatcap.stderr.firstMatch(of: #/listening on (http://127\.0\.0\.1:(\d+)/)/#)
        else {
            _ = chatcap.stop(with: SIGKILL)
            Issue.record("no 'listening on' line: \(chatcap.stderr)")
            return
        }
        let url = String(match.1)

        // 200 clients that never finish their request: 100 held, the next 100 answered 503 at once.
        let slow = try Self.slowClients(port: String(match.2), count: 200)
        #expect(slow.held == 100)
        #expect(slow.answered == 100)
        #expect(slow.closed == 0)
        #expect(slow.answer.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"), "\(slow.answer)")
        #expect(slow.answer.contains("Content-Type: text/plain; charset=utf-8\r\n"))
        #expect(slow.answer.contains("Access-Control-Allow-Origin: *\r\n"))
        #expect(slow.answer.contains("x-rustlog-capabilities: arbitrary-range-query\r\n"))
        #expect(slow.answer.hasSuffix("\r\n\r\nServer busy: too many connections, try again shortly"))
        // A whole request while they hold: busy too, at once, not left waiting.
        #expect(slow.during.hasPrefix("HTTP/1.1 503"), "\(slow.during.prefix(80))")
        // Each held one is cut after --request-timeout; then requests are answered again.
        #expect(slow.heldCut == 100)
        #expect(slow.after.hasPrefix("HTTP/1.1 200 OK"), "\(slow.after.prefix(80))")
        #expect(slow.after.hasSuffix(#"{"channels":[{"name":"alpha","userID":"1001"}]}"#))
        // A byte every 0.2 s does not keep a request alive past --request-timeout.
        let cutAfter = try #require(slow.slowlorisSeconds, "the slowloris was never cut")
        #expect(cutAfter > 2.5 && cutAfter < 15, "cut after \(cutAfter) s")

        let range = try LogsCLITests.get(url + "channel/alpha?from=2025-11-18T00:00:00Z&to=2025-11-21T00:00:00Z")
        #expect(range.status == 400)
        #expect(range.body == "Invalid param: range longer than 2 days")
        let inRange = try LogsCLITests.get(url + "channel/alpha?from=2025-11-19T12:00:00Z&to=2025-11-21T00:00:00Z")
        #expect(inRange.status == 200)
        let limit = try LogsCLITests.get(url + "channel/alpha/2025/11/20?limit=51")
        #expect(limit.status == 400)
        #expect(limit.body == "Invalid param: limit above 50")
        #expect(try LogsCLITests.get(url + "channel/alpha/2025/11/20?limit=50").status == 200)
        #expect(try LogsCLITests.get(url + "channel/alpha/2025/11/20?offset=51").status == 400)

        // A request line, or headers, past the connection's buffer: refused in the API's error shape
        // (not libmicrohttpd's HTML), and the server goes on.
        let long = try LogsCLITests.get(url + "channel/alpha?" + String(repeating: "a", count: 40_000))
        #expect(long.status == 414, "\(long.status)")
        #expect(long.body == "URI too long")
        let big = try LogsCLITests.get(
            url + "channels", headers: ["X-Big: " + String(repeating: "b", count: 40_000)])
        #expect(big.status == 431, "\(big.status)")
        #expect(big.body == "Request headers too large")
        #expect(try LogsCLITests.get(url + "channels").status == 200)

        #expect(chatcap.stop(with: SIGINT) == 0)
    }
}
