import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `chatcap logs --clickhouse` against `chatcap logs --dir`, end to end: a generated capture directory
/// (``LogsDifferentialArchive``) loaded by `chatcap load --once` into Debian's ClickHouse server (18.16,
/// Scripts/clickhouse_test_server.sh on free ports of 127.0.0.1), both stores served, every route and
/// format asked of both and compared byte for byte (status, the headers that matter, the body).
@Suite(.serialized, .timeLimit(.minutes(20))) struct LogsClickHouseCLITests {
    /// One answer, as the comparison sees it.
    struct Answer: Equatable, CustomStringConvertible {
        var status: Int
        var headers: [String]
        var body: [UInt8]
        var description: String {
            "\(status) \(headers) \(String(decoding: body.prefix(600), as: UTF8.self))"
                + (body.count > 600 ? "… (\(body.count) bytes)" : "")
        }
    }

    /// GETs `paths` (a `\t1` suffix asks for gzip) from `base` on one keep-alive connection (Python's
    /// http.client: a curl process per request would take minutes): each answer's status, `Content-Type`,
    /// `Location`, `Cache-Control` and `Content-Encoding`, and body (`cut` when the body ended early).
    static func fetch(_ base: String, _ paths: [String], in dir: String) throws -> [Answer] {
        let script = dir + "/fetch.py"
        try """
        import base64, http.client, json, sys
        host, port = sys.argv[1], int(sys.argv[2])
        conn = http.client.HTTPConnection(host, port, timeout=60)
        out = []
        for line in sys.stdin.read().splitlines():
            path, _, gz = line.partition("\\t")
            headers = {"Accept-Encoding": "gzip"} if gz == "1" else {}
            try:
                conn.request("GET", path, headers=headers)
                r = conn.getresponse()
                body, status = r.read(), r.status
                names = ["Content-Type", "Location", "Cache-Control", "Content-Encoding"]
                head = [n + ": " + (r.getheader(n) or "") for n in names]
            except (http.client.HTTPException, OSError) as e:
                conn.close()
                conn = http.client.HTTPConnection(host, port, timeout=60)
                body, status, head = b"", 0, ["cut: " + type(e).__name__]
            out.append({"status": status, "headers": head, "body": base64.b64encode(body).decode()})
        json.dump(out, sys.stdout)
        """.write(toFile: script, atomically: true, encoding: .utf8)
        let list = dir + "/paths-\(UUID().uuidString).txt"
        try paths.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let port = base.split(separator: ":").last!.filter(\.isNumber)
        let run = try CLI.shell("python3 \(script) 127.0.0.1 \(port) < \(list)")
        try #require(run.status == 0, "\(run.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [[String: Any]])
        return rows.map { row in
            Answer(
                status: row["status"] as! Int, headers: row["headers"] as! [String],
                body: [UInt8](Data(base64Encoded: row["body"] as! String)!))
        }
    }

    /// Starts `chatcap logs ARGS --http-port 0` (stdout to a file) and returns it with its base URL.
    static func logs(_ arguments: [String], dir: String) throws -> (ChatcapProcess, String) {
        let chatcap = try ChatcapProcess(
            ["logs"] + arguments + ["--http-port", "0"], stdoutFile: dir + "/logs-\(UUID().uuidString).out")
        guard chatcap.waitForStderr(containing: "listening on http://127.0.0.1:", timeoutMs: 20_000),
            let match = chatcap.stderr.firstMatch(of: #/listening on (http://127\.0\.0\.1:\d+)/#)
        else {
            _ = chatcap.stop(with: SIGKILL)
            throw CocoaError(.featureUnsupported, userInfo: ["stderr": chatcap.stderr])
        }
        return (chatcap, String(match.1))
    }

    /// Every route of the API over the archive, in every format somewhere.
    static func paths(_ archive: LogsDifferentialArchive) -> [String] {
        let formats = ["", "?json", "?jsonBasic", "?ndjson", "?raw"]
        let options = ["", "reverse", "limit=3", "offset=2&limit=4", "reverse&offset=1&limit=2", "offset=100000"]
        func all(_ path: String) -> [String] {
            formats.flatMap { f in
                options.map { o in path + (f.isEmpty ? (o.isEmpty ? "" : "?" + o) : f + (o.isEmpty ? "" : "&" + o)) }
            }
        }
        var paths = [
            "/channels", "/capabilities", "/list", "/list?channel=nope", "/namehistory/2003",
            "/namehistory/3001", "/namehistory/9999", "/namehistory/abc", "/channels\t1",
        ]
        let logins = LogsDifferentialArchive.users.map(\.login) + ["dave_old", "dave_new", "solo", "nobody"]
        for (name, room) in LogsDifferentialArchive.channels {
            paths += [
                "/list?channel=\(name)", "/list?channelid=\(room)", "/channel/\(name)", "/channelid/\(room)?json",
                "/channel/\(name)/stats", "/channelid/\(room)/stats?from=2025-11-01T00:00:00Z&to=2025-11-15T00:00:00Z",
            ]
            for day in -1...LogsDifferentialArchive.dayCount {
                let route = "/channel/\(name)/" + LogsDifferentialArchive.route(day: day)
                paths += [route, route + "?json", route + "?raw", route + "?reverse&limit=2"]
            }
            let busiest = archive.activeDays(name)[3]
            paths += all("/channel/\(name)/" + LogsDifferentialArchive.route(day: busiest))
            paths.append("/channel/\(name)/" + LogsDifferentialArchive.route(day: busiest) + "?json\t1")
            for login in logins {
                paths += [
                    "/list?channel=\(name)&user=\(login)", "/channel/\(name)/user/\(login)",
                    "/channel/\(name)/user/\(login)/stats", "/channel/\(name)/user/\(login)/search?q=hello",
                ]
                for month in ["2025/9", "2025/10", "2025/11", "2025/12"] {
                    paths += [
                        "/channel/\(name)/user/\(login)/\(month)", "/channel/\(name)/user/\(login)/\(month)?json",
                    ]
                }
            }
            for (login, id) in LogsDifferentialArchive.users.prefix(3) + [("dave_new", 2003)] {
                paths += [
                    "/list?channelid=\(room)&userid=\(id)", "/channelid/\(room)/userid/\(id)/2025/11?ndjson",
                    "/channel/\(name)/userid/\(id)/stats?from=2025-10-25T00:00:00Z&to=2025-11-20T12:00:00Z",
                ]
                _ = login
            }
        }
        // The quiet channels: a day with lines, a user's month, the lists, by name and by id.
        for (q, (name, room)) in LogsDifferentialArchive.quietChannels.enumerated() {
            let days = archive.activeDays(name)
            let user = LogsDifferentialArchive.users[q % LogsDifferentialArchive.users.count]
            paths += [
                "/list?channel=\(name)", "/channel/\(name)", "/channelid/\(room)/userid/\(user.id)?json",
                "/channel/\(name)/user/\(user.login)/2025/11", "/channel/\(name)/user/\(user.login)/2025/10?raw",
            ]
            for day in [days.first, days.dropFirst(days.count / 2).first].compactMap({ $0 }) {
                let route = "/channel/\(name)/" + LogsDifferentialArchive.route(day: day)
                paths += [route, route + (q % 2 == 0 ? "?json" : "?ndjson&reverse")]
            }
        }
        // Days with lines recovered by backfill (written after later live lines).
        for day in [3, 10, 17, 24, 31, 38] {
            for name in ["alpha", "gamma_x"] {
                let route = "/channel/\(name)/" + LogsDifferentialArchive.route(day: day)
                paths += [route, route + "?json", route + "?raw&reverse"]
            }
        }
        for (name, _) in LogsDifferentialArchive.quietChannels.prefix(5) {
            for day in archive.activeDays(name) where day % 9 == 4 {
                paths.append("/channel/\(name)/" + LogsDifferentialArchive.route(day: day) + "?json")
            }
        }
        paths += all("/channel/alpha/user/u03/2025/11") + all("/channel/beta/user/dave_old/2025/11")
        // Ranges: across midnight (the line sent before it and received after), a user's, empty, half.
        let midnight = "from=2025-10-30T22:00:00Z&to=2025-10-31T02:00:00.500Z"
        paths += all("/channel/alpha?" + midnight).filter { !$0.contains("?&") }.map {
            $0.replacingOccurrences(of: "?" + midnight + "?", with: "?" + midnight + "&")
        }
        paths += [
            "/channel/alpha?\(midnight)&json", "/channel/alpha/user/u02?\(midnight)&reverse",
            "/channel/beta?from=2025-11-01T00:00:00%2B02:00&to=2025-11-03T00:00:00Z&ndjson",
            "/channel/alpha?from=2025-11-05T00:00:00Z&to=2025-11-01T00:00:00Z",
            "/channel/alpha?from=2025-11-05T00:00:00Z",
            "/channel/gamma_x/user/u04?from=2025-10-01T00:00:00Z&to=2026-01-01T00:00:00Z&json&reverse&limit=5",
        ]
        // Search, with the values SQL must quote.
        for q in [
            "hello", "IT%27S", "back%5Cslash", "%27%3B%20DROP%20TABLE%20chat.lines%3B%20--", "%C3%84%C3%96", "%22",
        ] {
            paths += [
                "/channel/alpha/user/u01/search?q=\(q)", "/channel/alpha/user/u01/search?q=\(q)&json&reverse&limit=2",
            ]
        }
        paths += ["/channel/alpha/user/u01/search", "/channel/alpha/user/u01/search?q="]
        // Refusals: hostile names (never reach a store), impossible dates, nothing there.
        paths += [
            "/channel/alpha/user/a%27b/2025/11", "/channel/alpha%27--/2025/11/20", "/channel/evil%27--x/2025/11/20",
            "/channel/nope/2025/11/20", "/channel/alpha/2025/13/1", "/channel/alpha/2025/x/1",
            "/channelid/999/2025/11/20",
            "/channel/alpha/user/nobody/2025/11", "/channel/gamma_x/user/solo/random",
            "/channel/gamma_x/user/solo/random?json",
            "/channel/gamma_x/userid/4242/random?raw", "/channel/alpha/userid/1/random",
        ]
        return paths
    }

    @Test("every route and format: the ClickHouse store answers the directory's bytes; errors are 503 and 500")
    func sameAnswers() throws {
        let dir = try CLITempDirectory.make("logs-clickhouse")
        defer { CLITempDirectory.remove(dir) }
        let archive = LogsDifferentialArchive()
        try archive.write(to: dir + "/capture")
        let server = try ClickHouseServer.withSchema(dir: dir + "/clickhouse")
        defer { server.stop() }
        // Loaded twice (the progress forgotten in between), merges stopped: every line is two rows until
        // a merge, and the store reads one (FINAL).
        _ = try server.query("SYSTEM STOP MERGES")
        for _ in 0..<2 {
            let load = try CLI.run(["load", dir + "/capture", "--clickhouse", server.url, "--once", "--status", "none"])
            try #require(load.status == 0, "load: \(load.stderr)")
            try FileManager.default.removeItem(atPath: dir + "/capture/_load")
        }
        let rows = try server.query("SELECT count() FROM chat.lines")
        #expect(Int(rows) == 2 * archive.files.values.reduce(0) { $0 + $1.count }, "every line is two rows")

        let (byDir, dirURL) = try Self.logs(["--dir", dir + "/capture"], dir: dir)
        let (byTable, tableURL) = try Self.logs(["--clickhouse", server.url, "--table", "chat.lines"], dir: dir)
        #expect(byTable.stderr.contains("(table chat.lines at \(server.url))"), "\(byTable.stderr)")
        let paths = Self.paths(archive)
        #expect(paths.count >= 300, "\(paths.count) requests")
        let expected = try Self.fetch(dirURL, paths, in: dir)
        let got = try Self.fetch(tableURL, paths, in: dir)
        try #require(expected.count == paths.count && got.count == paths.count)
        var differences = 0
        for (i, path) in paths.enumerated() where expected[i] != got[i] {
            differences += 1
            if differences <= 10 { Issue.record("\(path):\n  dir:   \(expected[i])\n  table: \(got[i])") }
        }
        #expect(differences == 0, "\(differences) of \(paths.count) answers differ")
        // The comparison is of answers worth comparing: most are lines, every kind of answer is there.
        let statuses = Dictionary(grouping: expected, by: \.status).mapValues(\.count)
        #expect(statuses[200, default: 0] > paths.count / 2, "\(statuses)")
        #expect(
            statuses[303, default: 0] > 20 && statuses[404, default: 0] > 50 && statuses[400, default: 0] >= 3,
            "\(statuses)")
        let channels = String(decoding: expected[0].body, as: UTF8.self)
        let named = (LogsDifferentialArchive.channels + LogsDifferentialArchive.quietChannels).map {
            #"{"name":"\#($0.name)","userID":"\#($0.room)"}"#
        }
        #expect(channels == #"{"channels":["# + named.joined(separator: ",") + "]}", "\(channels)")
        #expect(LogsDifferentialArchive.quietChannels.count + LogsDifferentialArchive.channels.count >= 50)
        // The days asked with ?raw&reverse hold recovered lines, and both stores serve them.
        let recovered = zip(paths, expected).filter {
            $0.0.hasSuffix("?raw&reverse") && !$0.0.contains("/user/") && $0.1.status == 200
        }
        #expect(
            recovered.count >= 10
                && recovered.allSatisfy { String(decoding: $0.1.body, as: UTF8.self).contains("historical=1") },
            "\(recovered.count) days with recovered lines")
        let history = String(decoding: expected[4].body, as: UTF8.self)
        #expect(
            history.contains(#""user_login":"dave_old""#) && history.contains(#""user_login":"dave_new""#), "\(history)"
        )
        #expect(byDir.stop(with: SIGINT) == 0)

        // A missing table is said at start (exit 66); a table gone later is a 500 with ClickHouse's message.
        let missing = try CLI.run(["logs", "--clickhouse", server.url, "--table", "chat.nope", "--http-port", "0"])
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("table chat.nope at \(server.url) cannot be served"), "\(missing.stderr)")
        _ = try server.query("RENAME TABLE chat.lines TO chat.lines_away")
        let gone = try Self.fetch(tableURL, ["/channels", "/channel/alpha/2025/11/20"], in: dir)
        for answer in gone {
            #expect(answer.status == 500, "\(answer)")
            #expect(
                String(decoding: answer.body, as: UTF8.self).hasPrefix(
                    "Store error: ClickHouse at \(server.url) answered 404: Code: 60"), "\(answer)")
            #expect(answer.headers.contains("Content-Type: text/plain; charset=utf-8"))
        }
        _ = try server.query("RENAME TABLE chat.lines_away TO chat.lines")
        #expect(try Self.fetch(tableURL, ["/channels"], in: dir)[0] == expected[0])
        // ClickHouse down: 503 with the reason, and up again: the same answers.
        server.stop()
        let down = try Self.fetch(tableURL, ["/channels", "/channel/alpha/2025/11/20", "/namehistory/2003"], in: dir)
        for answer in down {
            #expect(answer.status == 503, "\(answer)")
            #expect(
                String(decoding: answer.body, as: UTF8.self).hasPrefix(
                    "Store unavailable: ClickHouse at \(server.url): "), "\(answer)")
        }
        try server.start()
        try server.waitUntilUp()
        #expect(try Self.fetch(tableURL, ["/channels"], in: dir)[0] == expected[0])
        #expect(byTable.stop(with: SIGINT) == 0, "\(byTable.stderr)")
    }

    @Test(
        "a channel's day streams from ClickHouse in bounded memory: with --max-answer-mib 1, a day of 150,000 lines (a 50 MB answer) is served whole, the directory's bytes, the process never holding the answer"
    )
    func dayStreams() throws {
        let dir = try CLITempDirectory.make("logs-clickhouse-stream")
        defer { CLITempDirectory.remove(dir) }
        let generated = try CLI.shell("python3 Benchmarks/generate_logs_archive.py '\(dir)/capture' 1 150000 0")
        try #require(generated.status == 0, "\(generated.stderr)")
        let server = try ClickHouseServer.withSchema(dir: dir + "/clickhouse")
        defer { server.stop() }
        let load = try CLI.run(["load", dir + "/capture", "--clickhouse", server.url, "--once", "--status", "none"])
        try #require(load.status == 0, "load: \(load.stderr)")
        try FileManager.default.removeItem(atPath: dir + "/capture/_load")
        let answerBytes = try server.query(
            "SELECT sum(length(raw)) FROM chat.lines WHERE channel = 'busy' FORMAT TabSeparated")
        #expect((Int(answerBytes) ?? 0) > 40 << 20, "the day's raw lines: \(answerBytes) bytes")

        let (byDir, dirURL) = try Self.logs(["--dir", dir + "/capture", "--no-index"], dir: dir)
        let (byTable, tableURL) = try Self.logs(["--clickhouse", server.url, "--max-answer-mib", "1"], dir: dir)
        let path = "/channel/busy/2025/11/29?raw"
        for (name, url) in [("dir", dirURL), ("table", tableURL)] {
            let run = try CLI.shell("curl -s -m 300 -o '\(dir)/\(name).raw' -w '%{http_code}' '\(url)\(path)'")
            #expect(run.text == "200", "\(name): \(run.text) \(run.stderr)")
        }
        let same = try CLI.shell("cmp '\(dir)/dir.raw' '\(dir)/table.raw' && wc -l < '\(dir)/table.raw'")
        #expect(same.status == 0, "the table's day differs from the directory's: \(same.text)")
        #expect((Int(same.text.filter(\.isNumber)) ?? 0) >= 150_000, "\(same.text)")
        // Peak resident memory of the table's server: about its start-up's, not the answer's 50 MB.
        let status = try String(
            contentsOfFile: "/proc/\(byTable.process.processIdentifier)/status", encoding: .utf8)
        let peakKiB = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.map {
            Int($0.filter(\.isNumber)) ?? 0
        }
        #expect((peakKiB ?? .max) < 48 << 10, "peak resident memory \(peakKiB ?? -1) KiB")
        #expect(byDir.stop(with: SIGINT) == 0)
        #expect(byTable.stop(with: SIGINT) == 0, "\(byTable.stderr)")
    }

    @Test(
        "logs takes exactly one store, --table only with --clickhouse; an unreachable ClickHouse is said and served as 503"
    )
    func options() throws {
        let dir = try CLITempDirectory.make("logs-clickhouse-options")
        defer { CLITempDirectory.remove(dir) }
        let neither = try CLI.run(["logs", "--http-port", "0"])
        #expect(neither.status == 64 && neither.stderr.contains("Give --dir DIR"), "\(neither.stderr)")
        let both = try CLI.run(["logs", "--dir", dir, "--clickhouse", "http://127.0.0.1:1/", "--http-port", "0"])
        #expect(both.status == 64 && both.stderr.contains("give one store, not both"), "\(both.stderr)")
        let table = try CLI.run(["logs", "--dir", dir, "--table", "t", "--http-port", "0"])
        #expect(table.status == 64 && table.stderr.contains("--table is for --clickhouse"), "\(table.stderr)")
        let badTable = try CLI.run([
            "logs", "--clickhouse", "http://127.0.0.1:1/", "--table", "x;y", "--http-port", "0",
        ])
        #expect(badTable.status == 64 && badTable.stderr.contains("--table must be"), "\(badTable.stderr)")
        let badURL = try CLI.run(["logs", "--clickhouse", "ftp://x/", "--http-port", "0"])
        #expect(badURL.status == 64 && badURL.stderr.contains("http://"), "\(badURL.stderr)")
        let help = try CLI.run(["logs", "--help"])
        #expect(help.text.contains("--clickhouse <url>") && help.text.contains("--table <name>"), "\(help.text)")

        let port = try SocketLoopbackListener.freePort()
        let (down, url) = try Self.logs(["--clickhouse", "http://127.0.0.1:\(port)/"], dir: dir)
        #expect(down.stderr.contains("answering 503 until it answers"), "\(down.stderr)")
        let answer = try Self.fetch(url, ["/channels"], in: dir)[0]
        #expect(answer.status == 503, "\(answer)")
        #expect(
            String(decoding: answer.body, as: UTF8.self).hasPrefix(
                "Store unavailable: ClickHouse at http://127.0.0.1:\(port)/: "))
        #expect(down.stop(with: SIGINT) == 0)
    }
}
