import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `chatcap logs`, end to end: a generated capture directory, the built binary on port 0, curl as
/// the client, SIGINT by PID.
@Suite struct LogsCLITests {
    /// GETs `url` with curl: the status, the body and the `Location` header (empty when none).
    static func get(_ url: String, head: Bool = false, headers: [String] = []) throws -> (
        status: Int, body: String, location: String
    ) {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments =
            ["-s", "-m", "10", "--path-as-is", "-w", "\n%{http_code}\n%header{location}"] + (head ? ["-I"] : [])
            + headers.flatMap { ["-H", $0] } + [url]
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\n")
        let location = lines.removeLast()
        let status = Int(lines.removeLast()) ?? 0
        return (status, lines.joined(separator: "\n"), location)
    }

    /// GETs `url` with curl asking for gzip (`--compressed`: curl decodes it): the body and the
    /// `Content-Encoding` the answer had.
    static func getCompressed(_ url: String) throws -> (body: String, encoding: String) {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-m", "10", "--compressed", "-w", "\n%header{content-encoding}", url]
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\n")
        let encoding = lines.removeLast()
        return (lines.joined(separator: "\n"), encoding)
    }

    /// Writes `lines` gzipped to `dir/relative`.
    static func write(_ dir: InputTempDirectory, _ relative: String, _ lines: [String]) throws {
        let plain = try dir.write(
            relative.replacingOccurrences(of: ".gz", with: ""), Array(lines.map { $0 + "\r\n" }.joined().utf8))
        #expect(try InputShell.run("gzip -f " + InputShell.quote(plain)).status == 0)
    }

    @Test("logs --http-port 0 answers the API over a capture directory and exits 0 on SIGINT", .timeLimit(.minutes(20)))
    func serves() throws {
        let dir = try InputTempDirectory("logs-cli")
        try Self.write(
            dir, "alpha/2025-11-20.log.gz",
            [
                "@time=2025-11-20T10:00:00.100Z;display-name=Bob;id=m1;room-id=1001;tmi-sent-ts=1763632800000;user-id=2001 "
                    + ":bob!bob@bob.tmi.twitch.tv PRIVMSG #alpha :hello",
                "@time=2025-11-20T10:00:04.000Z;ban-duration=600;room-id=1001;target-user-id=2001;tmi-sent-ts=1763632804000 "
                    + ":tmi.twitch.tv CLEARCHAT #alpha :bob",
            ])
        try Self.write(dir, "_session/2025-11-20.log.gz", [":chatcap CAPTURE start - :secret"])
        let chatcap = try ChatcapProcess(["logs", "--dir", dir.path, "--http-port", "0"])
        guard chatcap.waitForStderr(containing: "listening on http://127.0.0.1:", timeoutMs: 20_000),
            let match = chatcap.stderr.firstMatch(of: #/listening on (http://127\.0\.0\.1:\d+/)/#)
        else {
            _ = chatcap.stop(with: SIGKILL)
            Issue.record("no 'listening on' line: \(chatcap.stderr)")
            return
        }
        let url = String(match.1)

        let channels = try Self.get(url + "channels")
        #expect(channels.status == 200)
        #expect(channels.body == #"{"channels":[{"name":"alpha","userID":"1001"}]}"#)

        let latest = try Self.get(url + "channel/alpha?json")
        #expect(latest.status == 303)
        #expect(latest.location == "/channel/alpha/2025/11/20?json")

        let day = try Self.get(url + "channel/alpha/2025/11/20")
        #expect(day.status == 200)
        #expect(
            day.body
                == "[2025-11-20 10:00:00] #alpha bob: hello\r\n"
                + "[2025-11-20 10:00:04] #alpha bob: bob has been timed out for 600 seconds\r\n")

        let json = try Self.get(url + "channel/alpha/user/bob/2025/11?json&reverse&limit=1")
        #expect(json.status == 200)
        #expect(json.body.hasPrefix(#"{"messages":[{"text":"bob has been timed out for 600 seconds","#))
        #expect(json.body.hasSuffix(#""type":2}]}"#))

        // The user's month built the month index, hidden beside the channel folders.
        #expect(FileManager.default.fileExists(atPath: dir.path + "/.chatcap-index/alpha/2025-11/manifest"))

        let list = try Self.get(url + "list?channel=alpha&user=bob")
        #expect(list.body == #"{"availableLogs":[{"year":"2025","month":"11"}]}"#)

        // The OpenAPI document, from the binary: JSON naming the routes just asked.
        let openapi = try Self.get(url + "openapi.json")
        #expect(openapi.status == 200)
        let document = try JSONSerialization.jsonObject(with: Data(openapi.body.utf8)) as? [String: Any]
        #expect((document?["openapi"] as? String)?.hasPrefix("3.") == true)
        let paths = document?["paths"] as? [String: Any] ?? [:]
        for path in ["/channels", "/list", "/channel/{channel}", "/channel/{channel}/user/{user}/{year}/{month}"] {
            #expect(paths[path] != nil, "\(path) documented")
        }

        let zipped = try Self.getCompressed(url + "channel/alpha/2025/11/20")
        #expect(zipped.encoding == "gzip")
        #expect(zipped.body == day.body)

        let head = try Self.get(url + "channels", head: true)
        #expect(head.status == 200)
        let headDay = try Self.get(url + "channel/alpha/2025/11/20", head: true)
        #expect(headDay.status == 200)

        let raw = try Self.get(url + "channel/alpha/2025/11/20?raw&offset=1")
        #expect(
            raw.body
                == "@ban-duration=600;room-id=1001;target-user-id=2001;tmi-sent-ts=1763632804000 "
                + ":tmi.twitch.tv CLEARCHAT #alpha :bob\r\n")

        for path in [
            "channel/..%2F_session/2025/11/20", "channel/../_session/2025/11/20", "channel/_session/2025/11/20",
            "channel/..%00/2025/11/20", "channel/%2e%2e/_session/2025/11/20",
        ] {
            let answer = try Self.get(url + path)
            #expect(answer.status == 404 || answer.status == 400, "\(path): \(answer.status)")
            #expect(!answer.body.contains("secret"), "\(path)")
        }
        let bad = try Self.get(url + "channel/alpha/2025/13/1")
        #expect(bad.status == 400)
        #expect(bad.body == "Invalid param: Invalid date")

        #expect(chatcap.stop(with: SIGINT) == 0)
    }

    @Test(
        "capture --http-port answers the logs API over the directory it is writing, within its bounds",
        .timeLimit(.minutes(20)))
    func capture() throws {
        let dir = try CLITempDirectory.make("logs-capture")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--speed", "max", "--port", "0"])
        defer { _ = server.stop() }
        let capture = try LiveHTTPCLITests.Live(
            ["capture", "pixelharbor", "--dir", "\(dir)/cap", "--max-range-days", "2", "--max-limit", "5"],
            server: server)
        #expect(server.waitForStderr(containing: "end of the log", timeoutMs: 20_000), "\(server.stderr)")
        // The 24 lines of #pixelharbor, readable once capture has flushed them (every 0.5 s).
        let text = try LiveHTTPCLITests.poll(seconds: 20) { () -> String? in
            let latest = try Self.get(capture.url + "/channel/pixelharbor")
            guard latest.status == 303 else { return nil }
            let day = try Self.get(capture.url + latest.location)
            return day.body.components(separatedBy: "\r\n").count == 25 ? day.body : nil
        }
        let body = try #require(text, "\(capture.chatcap.stderr)")
        for line in body.components(separatedBy: "\r\n").dropLast() {
            #expect(line.hasPrefix("[") && line.contains("] #pixelharbor "), "\(line)")
        }
        let channels = try Self.get(capture.url + "/channels")
        #expect(channels.body.hasPrefix(#"{"channels":[{"name":"pixelharbor","userID":""#))
        #expect(!channels.body.contains("_session"))
        let metrics = try Self.get(capture.url + "/metrics")
        #expect(metrics.status == 200)
        // capture's --max-range-days and --max-limit bound its logs API as they bound chatcap logs'.
        let range = try Self.get(
            capture.url + "/channel/pixelharbor?from=2025-01-01T00:00:00Z&to=2025-01-04T00:00:00Z")
        #expect(range.status == 400)
        #expect(range.body == "Invalid param: range longer than 2 days")
        let latest = try Self.get(capture.url + "/channel/pixelharbor")
        let limited = try Self.get(capture.url + latest.location + "?limit=6")
        #expect(limited.status == 400)
        #expect(limited.body == "Invalid param: limit above 5")
        let within = try Self.get(capture.url + latest.location + "?limit=5")
        #expect(within.status == 200)
        #expect(within.body.components(separatedBy: "\r\n").count == 6, "\(within.body)")
        #expect(capture.chatcap.stop() == 0, "\(capture.chatcap.stderr)")
    }

    @Test(
        "capture --max-connections and --request-timeout bound its listener as they bound chatcap logs'",
        .timeLimit(.minutes(20)))
    func captureListenerBounds() throws {
        let dir = try CLITempDirectory.make("logs-capture-bounds")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--speed", "max", "--port", "0"])
        defer { _ = server.stop() }
        let capture = try LiveHTTPCLITests.Live(
            ["capture", "pixelharbor", "--dir", "\(dir)/cap", "--max-connections", "5", "--request-timeout", "5"],
            server: server)
        let port = String(capture.url.split(separator: ":").last ?? "")
        // 10 clients that never finish their request: 5 held, the next 5 answered 503 at once in the logs
        // API's shape; the held ones cut after --request-timeout (capture's own listener has none).
        let slow = try LogsSafetyCLITests.slowClients(port: port, count: 10)
        #expect(slow.held == 5 && slow.answered == 5 && slow.closed == 0, "\(slow)")
        #expect(slow.answer.hasSuffix("\r\n\r\nServer busy: too many connections, try again shortly"), "\(slow)")
        #expect(slow.heldCut == 5)
        #expect(slow.after.hasPrefix("HTTP/1.1 200 OK"), "\(slow.after.prefix(80))")
        #expect(capture.chatcap.stop() == 0, "\(capture.chatcap.stderr)")
    }

    @Test("capture takes the logs API's bounds only with --http-port")
    func captureBoundsNeedTheListener() throws {
        let run = try CLI.run(["capture", "pixelharbor", "--dir", "/nonexistent/capture", "--max-limit", "5"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("apply only with --http-port"), "\(run.stderr)")
    }

    @Test(
        "--opt-out: listed users get 403; SIGHUP reads the file again; a bad file is refused", .timeLimit(.minutes(20)))
    func optOut() throws {
        let dir = try InputTempDirectory("logs-cli-optout")
        try Self.write(
            dir, "alpha/2025-11-20.log.gz",
            [
                "@time=2025-11-20T10:00:00.100Z;room-id=1001;tmi-sent-ts=1763632800000;user-id=2001 "
                    + ":bob!bob@bob.tmi.twitch.tv PRIVMSG #alpha :hello",
                "@time=2025-11-20T10:00:01.100Z;room-id=1001;tmi-sent-ts=1763632801000;user-id=2002 "
                    + ":carol!carol@carol.tmi.twitch.tv PRIVMSG #alpha :hi",
            ])
        let list = try dir.write("optout.txt", Array("# opted out\nbob\n".utf8))
        let chatcap = try ChatcapProcess(["logs", "--dir", dir.path, "--http-port", "0", "--opt-out", list])
        guard chatcap.waitForStderr(containing: "listening on http://127.0.0.1:", timeoutMs: 20_000),
            let match = chatcap.stderr.firstMatch(of: #/listening on (http://127\.0\.0\.1:\d+/)/#)
        else {
            _ = chatcap.stop(with: SIGKILL)
            Issue.record("no 'listening on' line: \(chatcap.stderr)")
            return
        }
        let url = String(match.1)
        let refused = try Self.get(url + "channel/alpha/user/bob/2025/11")
        #expect(refused.status == 403)
        #expect(refused.body == "The requested user has opted out of being logged")
        #expect(try Self.get(url + "channel/alpha/2025/11/20").body == "[2025-11-20 10:00:01] #alpha carol: hi\r\n")

        _ = try dir.write("optout.txt", Array("carol\n".utf8))
        chatcap.signal(SIGHUP)
        #expect(chatcap.waitForStderr(containing: "opt-out reloaded: 1 logins, 0 ids"), "\(chatcap.stderr)")
        #expect(try Self.get(url + "channel/alpha/user/bob/2025/11").status == 200)
        #expect(try Self.get(url + "channel/alpha/2025/11/20").body == "[2025-11-20 10:00:00] #alpha bob: hello\r\n")

        _ = try dir.write("optout.txt", Array("no/such entry\n".utf8))
        chatcap.signal(SIGHUP)
        #expect(chatcap.waitForStderr(containing: "the opt-out list in force stays"), "\(chatcap.stderr)")
        #expect(try Self.get(url + "channel/alpha/user/carol/2025/11").status == 403)
        #expect(chatcap.stop(with: SIGINT) == 0)

        let bad = try CLI.run(["logs", "--dir", dir.path, "--http-port", "0", "--opt-out", list])
        #expect(bad.status == 66)
        #expect(
            bad.stderr.contains("line 1: 'no/such entry' is neither a login nor a numeric user id"), "\(bad.stderr)")
    }

    @Test("logs refuses a directory that does not exist or holds no channel folders", .timeLimit(.minutes(20)))
    func refuses() throws {
        let missing = try CLI.run(["logs", "--dir", "/nonexistent/chatcap-logs", "--http-port", "0"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("/nonexistent/chatcap-logs"))
        let empty = try InputTempDirectory("logs-cli-empty")
        _ = try empty.write("_session/2025-11-20.log.gz", [])
        let none = try CLI.run(["logs", "--dir", empty.path, "--http-port", "0"])
        #expect(none.status == 66)
        #expect(none.stderr.contains("holds no channel folders"))
        let usage = try CLI.run(["logs", "--http-port", "0"])
        #expect(usage.status == 64)
    }
}
