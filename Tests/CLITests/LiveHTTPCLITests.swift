import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `capture --http-port` and `tail --http-port`, end to end: our `chatcap serve` as Twitch, curl as
/// the client, a real Prometheus scraping `/metrics`.
@Suite struct LiveHTTPCLITests {
    /// A `chatcap capture|tail arguments… --http-port 0` against `serve`, and the URL it said it
    /// listens on.
    final class Live {
        let chatcap: ChatcapProcess
        let url: String

        init(_ arguments: [String], server: ServeProcess, stdoutFile: String? = nil, descriptorLimit: Int? = nil) throws
        {
            chatcap = try ChatcapProcess(
                arguments + ["--host", "127.0.0.1", "--port", "\(server.port)", "--plain", "--http-port", "0"],
                stdoutFile: stdoutFile, descriptorLimit: descriptorLimit)
            guard chatcap.waitForStderr(containing: "listening on http://127.0.0.1:", timeoutMs: 60_000),
                let match = chatcap.stderr.firstMatch(of: #/listening on (http://127\.0\.0\.1:\d+)/#)
            else {
                _ = chatcap.stop(with: SIGKILL)
                throw ServeCLIFailure(description: "no 'listening on http' line: \(chatcap.stderr)")
            }
            url = String(match.1)
        }

        var port: UInt16 { UInt16(url.split(separator: ":").last!)! }
    }

    /// The value of the sample `name` (with its labels, as written) in an exposition.
    static func sample(_ name: String, in exposition: String) -> Double? {
        for line in exposition.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    /// Polls `body` every 100 ms until it answers non-nil or `seconds` pass.
    static func poll<T>(seconds: Double, _ body: () throws -> T?) rethrows -> T? {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if let value = try body() { return value }
            usleep(100_000)
        } while Date() < deadline
        return try body()
    }

    /// The lines of the gzip files matched by `glob`, chatcap's own records (` :chatcap CAPTURE `) left out.
    static func storedLines(_ glob: String) throws -> [String] {
        String(decoding: try CLI.shell("zcat \(glob)").stdout, as: UTF8.self).split(whereSeparator: \.isNewline)
            .map(String.init)
            .filter { !$0.contains(" :chatcap CAPTURE ") }
    }

    /// A TCP port nothing listens on now (bound to port 0 and closed again).
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.init(rawValue: errno)!) }
        return UInt16(bigEndian: address.sin_port)
    }

    @Test(
        "a real Prometheus scrapes capture's /metrics: its line counter ends equal to the lines in the files; promtool passes",
        .timeLimit(.minutes(20)))
    func prometheusScrapes() throws {
        let dir = try CLITempDirectory.make("http-prometheus")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess([
            "Fixtures/lines/privmsg.irc", "Fixtures/lines/moderation.irc", "--speed", "max", "--port", "0",
        ])
        defer { _ = server.stop() }
        let capture = try Live(["capture", "pixelharbor", "lunafrost", "--dir", "\(dir)/cap"], server: server)
        #expect(server.waitForStderr(containing: "end of the log", timeoutMs: 20_000), "\(server.stderr)")
        // Everything served is in once two expositions 0.5 s apart say the same.
        let settled = try Self.poll(seconds: 20) { () -> String? in
            let first = try ServeRecentMessagesCLITests.curl(capture.url + "/metrics").body
            usleep(500_000)
            let second = try ServeRecentMessagesCLITests.curl(capture.url + "/metrics").body
            let lines = Self.sample("chatcap_written_lines_total", in: second) ?? 0
            return lines > 0 && Self.sample("chatcap_written_lines_total", in: first) == lines ? second : nil
        }
        let exposition = try #require(settled, "the line counter did not settle: \(capture.chatcap.stderr)")
        let written = try #require(Self.sample("chatcap_written_lines_total", in: exposition))
        #expect(Self.sample("chatcap_received_lines_total", in: exposition) == written)
        #expect(Self.sample(#"chatcap_joins_total{outcome="joined"}"#, in: exposition) == 2)
        #expect(Self.sample("chatcap_channels_joined", in: exposition) == 2)
        #expect(Self.sample("chatcap_open_files", in: exposition) == 3)
        #expect(exposition.contains(#"chatcap_build_info{version=""#))
        #expect(exposition.contains("# TYPE chatcap_lag_seconds histogram\n"))

        try exposition.write(toFile: "\(dir)/metrics.prom", atomically: true, encoding: .utf8)
        let check = try CLI.shell("promtool check metrics < '\(dir)/metrics.prom'")
        #expect(check.status == 0, "\(String(decoding: check.stdout, as: UTF8.self))")
        #expect(check.stdout.isEmpty && check.stderr.isEmpty, "promtool's findings: \(check)")

        let webPort = try Self.freePort()
        try """
        global:
          scrape_interval: 1s
        scrape_configs:
          - job_name: chatcap
            scrape_interval: 1s
            static_configs:
              - targets: ['127.0.0.1:\(capture.port)']
        """.write(toFile: "\(dir)/prometheus.yml", atomically: true, encoding: .utf8)
        let prometheus = Process()
        prometheus.executableURL = URL(fileURLWithPath: "/usr/bin/prometheus")
        prometheus.arguments = [
            "--config.file=\(dir)/prometheus.yml", "--storage.tsdb.path=\(dir)/tsdb",
            "--web.listen-address=127.0.0.1:\(webPort)",
        ]
        prometheus.standardOutput = FileHandle.nullDevice
        prometheus.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/null"))
        try prometheus.run()
        defer {
            kill(prometheus.processIdentifier, SIGTERM)
            prometheus.waitUntilExit()
        }
        let query = "http://127.0.0.1:\(webPort)/api/v1/query?query=chatcap_written_lines_total"
        let scraped = try Self.poll(seconds: 60) { () -> Double? in
            guard let answer = try? ServeRecentMessagesCLITests.curl(query, timeout: 2), answer.status == 200,
                let json = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any],
                let data = json["data"] as? [String: Any], let result = data["result"] as? [[String: Any]],
                let value = result.first?["value"] as? [Any], let text = value.last as? String
            else { return nil }
            return Double(text)
        }
        #expect(scraped == written, "Prometheus' value of the line counter")

        #expect(capture.chatcap.stop() == 0, "\(capture.chatcap.stderr)")
        let stored = try Self.storedLines("'\(dir)/cap'/*/*.log.gz")
        #expect(Double(stored.count) == scraped, "lines in the capture files")
        #expect(stored.filter { $0.contains(" PRIVMSG #pixelharbor :") }.count > 20)
    }

    @Test(
        "recent-messages from a running capture: the channel's last lines, historical, rm-received-ts, rm-deleted after CLEARMSG",
        .timeLimit(.minutes(20)))
    func recentMessages() throws {
        let dir = try CLITempDirectory.make("http-recent")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess(["Fixtures/lines/moderation.irc", "--speed", "max", "--port", "0"])
        defer { _ = server.stop() }
        let start = Int64(Date().timeIntervalSince1970 * 1000)
        let capture = try Live(["capture", "pixelharbor", "--dir", "\(dir)/cap", "--verbatim"], server: server)
        let api = capture.url + "/api/v2/recent-messages/pixelharbor"
        #expect(server.waitForStderr(containing: "end of the log", timeoutMs: 20_000), "\(server.stderr)")
        let answer = try #require(
            try Self.poll(seconds: 20) { () -> ServeRecentMessagesCLITests.Answer? in
                let first = try ServeRecentMessagesCLITests.answer(api)
                usleep(500_000)
                let second = try ServeRecentMessagesCLITests.answer(api)
                return !second.messages.isEmpty && first == second ? second : nil
            })
        let end = Int64(Date().timeIntervalSince1970 * 1000)
        #expect(answer.error == nil && answer.errorCode == nil)
        let limited = try ServeRecentMessagesCLITests.answer(api + "?limit=3").messages
        #expect(limited == Array(answer.messages.suffix(3)))
        let hidden = try ServeRecentMessagesCLITests.answer(api + "?hideModeratedMessages=true").messages
        #expect(hidden == answer.messages.filter { !$0.hasPrefix("@rm-deleted=1;") })
        let notJoined = try ServeRecentMessagesCLITests.answer(capture.url + "/api/v2/recent-messages/elsewhere")
        #expect(notJoined.messages.isEmpty && notJoined.errorCode == "channel_not_joined")
        #expect(capture.chatcap.stop() == 0, "\(capture.chatcap.stderr)")

        // What capture stored (verbatim: as received), of the kinds the service hands out.
        let stored = try Self.storedLines("'\(dir)/cap/pixelharbor'/*.log.gz").filter {
            ServeRecentMessagesCLITests.exportedVerbs.contains(ServeRecentMessagesCLITests.verb($0))
        }
        #expect(stored.count == 15)
        let stripped = try answer.messages.map(ServeRecentMessagesCLITests.strip)
        #expect(stripped.map(\.line) == stored)
        #expect(stripped.allSatisfy { (start...end).contains($0.receivedAt) })
        #expect(stripped.map(\.deleted) == ServeRecentMessagesCLITests.expectedDeleted(stored))
        let cleared = try #require(answer.messages.first { $0.contains("id=73e7a299-2995-4a6c-a933-91c20ce74394;") })
        #expect(cleared.hasPrefix("@rm-deleted=1;rm-received-ts="))
        #expect(answer.messages.contains { ServeRecentMessagesCLITests.verb($0) == "CLEARMSG" })
    }

    @Test(
        "/healthz: 200 while connected and joined, 503 with the reason once the server is gone",
        .timeLimit(.minutes(20))
    )
    func health() throws {
        let dir = try CLITempDirectory.make("http-health")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess([
            "Fixtures/lines/privmsg.irc", "--speed", "20", "--loop", "--port", "0", "--refuse-join", "gone",
        ])
        let capture = try Live(["capture", "pixelharbor", "--dir", "\(dir)/cap"], server: server)
        let refusing = try Live(["capture", "pixelharbor", "gone", "--dir", "\(dir)/cap2"], server: server)
        let healthy = try Self.poll(seconds: 10) { () -> (status: Int, body: String)? in
            let answer = try ServeRecentMessagesCLITests.curl(capture.url + "/healthz")
            return answer.status == 200 ? answer : nil
        }
        #expect(healthy?.body == "ok: 1 of 1 channels joined over 1 of 1 connections\n")
        let refused = try Self.poll(seconds: 10) { () -> (status: Int, body: String)? in
            let answer = try ServeRecentMessagesCLITests.curl(refusing.url + "/healthz")
            return answer.body.contains("JOIN refused") ? answer : nil
        }
        #expect(refused?.status == 503)
        #expect(
            refused?.body
                == "unavailable: 1 of 2 channels joined over 1 of 1 connections; not joined: #gone (JOIN refused)\n")
        #expect(refusing.chatcap.stop() == 0, "\(refusing.chatcap.stderr)")
        _ = server.stop()
        let down = try Self.poll(seconds: 10) { () -> (status: Int, body: String)? in
            let answer = try ServeRecentMessagesCLITests.curl(capture.url + "/healthz")
            return answer.status == 503 ? answer : nil
        }
        let body = try #require(down?.body, "no 503 after the server stopped: \(capture.chatcap.stderr)")
        #expect(
            body.hasPrefix(
                "unavailable: 0 of 1 channels joined over 0 of 1 connections; not joined: #pixelharbor "
                    + "(connection not registered); last disconnect: "),
            "\(body)")
        let metrics = try ServeRecentMessagesCLITests.curl(capture.url + "/metrics").body
        #expect(Self.sample("chatcap_connections_up", in: metrics) == 0)
        #expect(capture.chatcap.stop() == 0, "\(capture.chatcap.stderr)")
    }

    @Test("tail --http-port: /metrics counts the lines tail printed", .timeLimit(.minutes(20)))
    func tailMetrics() throws {
        let dir = try CLITempDirectory.make("http-tail")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--speed", "max", "--port", "0"])
        defer { _ = server.stop() }
        let tail = try Live(["tail", "pixelharbor", "--format", "raw"], server: server, stdoutFile: "\(dir)/out")
        #expect(server.waitForStderr(containing: "end of the log", timeoutMs: 20_000), "\(server.stderr)")
        let exposition = try #require(
            try Self.poll(seconds: 20) { () -> String? in
                let first = try ServeRecentMessagesCLITests.curl(tail.url + "/metrics").body
                usleep(500_000)
                let second = try ServeRecentMessagesCLITests.curl(tail.url + "/metrics").body
                let lines = Self.sample("chatcap_written_lines_total", in: second) ?? 0
                return lines > 24 && Self.sample("chatcap_written_lines_total", in: first) == lines ? second : nil
            }, "\(tail.chatcap.stderr)")
        #expect(exposition.contains(#"chatcap_build_info{version=""#) && exposition.contains(#"command="tail"} 1"#))
        #expect(!exposition.contains("chatcap_open_files"))
        #expect(try ServeRecentMessagesCLITests.curl(tail.url + "/healthz").status == 200)
        #expect(tail.chatcap.stop() == 0, "\(tail.chatcap.stderr)")
        let printed = try String(contentsOfFile: "\(dir)/out", encoding: .utf8).split(whereSeparator: \.isNewline)
        #expect(Double(printed.count) == Self.sample("chatcap_written_lines_total", in: exposition))
        #expect(printed.filter { $0.contains(" PRIVMSG #pixelharbor :") }.count == 24)
    }

    @Test(
        "1,000 idle connections to --http-port: descriptors stay bounded, ingest goes on, the listener recovers",
        .timeLimit(.minutes(20)))
    func idleConnectionsStayBounded() throws {
        let dir = try CLITempDirectory.make("http-idle")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--speed", "200", "--loop", "--port", "0"])
        defer { _ = server.stop() }
        let capture = try Live(["capture", "pixelharbor", "--dir", "\(dir)/cap"], server: server)
        let pid = capture.chatcap.process.processIdentifier
        func descriptors() -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        }
        func written() throws -> Double? {
            Self.sample(
                "chatcap_written_lines_total", in: try ServeRecentMessagesCLITests.curl(capture.url + "/metrics").body)
        }
        _ = try Self.poll(seconds: 10) { try written().flatMap { $0 > 0 ? $0 : nil } }
        let before = descriptors()

        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 2_048 {
            limit.rlim_cur = min(limit.rlim_max, 2_048)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        var idle: [Int32] = []
        defer { for fd in idle { close(fd) } }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = capture.port.bigEndian
        for _ in 0..<1_000 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { break }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            idle.append(fd)
        }
        #expect(idle.count == 1_000)
        let linesAtFlood = try Self.storedLines("'\(dir)/cap/pixelharbor'/*.log.gz").count
        usleep(2_000_000)
        let during = descriptors()
        // libmicrohttpd holds at most HTTPLimits' 512 connections; the rest are closed at once.
        #expect(during - before <= 512 + 8, "descriptors before \(before), with 1,000 idle connections \(during)")
        #expect(during > before + 100, "the idle connections were accepted (\(before) → \(during))")
        // Ingest went on meanwhile: the channel's file grew (flushed every 0.5 s).
        let linesAfter = try Self.storedLines("'\(dir)/cap/pixelharbor'/*.log.gz").count
        #expect(linesAfter > linesAtFlood + 100, "lines stored: \(linesAtFlood) at the flood, \(linesAfter) 2 s later")
        for fd in idle { close(fd) }
        idle = []
        let recovered = try Self.poll(seconds: 15) { try written() }
        #expect(recovered != nil, "the listener answers again once the idle connections are gone")
        // A connection libmicrohttpd accepts from the backlog after its client is gone may sit
        // until HTTPLimits' default idle timeout (10 s) closes it: all are gone within it, plus margin.
        let closed = Self.poll(seconds: 10 + 10) {
            descriptors() <= before + 2 ? true : nil
        }
        #expect(closed == true, "descriptors before the flood \(before), now \(descriptors())")
        #expect(capture.chatcap.stop() == 0, "\(capture.chatcap.stderr)")
    }

    @Test(
        "capture and tail --help say what the rings cost and why per-channel series are off",
        arguments: ["capture", "tail"])
    func help(command: String) throws {
        let run = try CLI.run([command, "--help"])
        #expect(run.status == 0)
        let help = run.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in [
            "capture and tail also GET /metrics (Prometheus) and GET /healthz.",
            "--http-history <n> Lines kept per channel for GET /api/v2/recent-messages, 1 to 100000 (default: 2500). "
                + "These rings exist only with --http-port and cost memory: the lines as received and their index, "
                + "about 1.5 MiB per busy channel at 2,500 lines.",
            "--http-channel-metrics Also export lines received per channel on /metrics. Off by default: each channel "
                + "is a series that Prometheus keeps, so thousands of channels make every scrape and the TSDB large.",
            "--http-host <host> The address the HTTP listener binds (default: 127.0.0.1, this machine only).",
        ] {
            #expect(help.contains(text), "\(command) --help lacks '\(text)'")
        }
    }

    @Test(
        "HTTP options that cannot apply are refused with 64",
        arguments: [
            (["--http-history", "100"], "--http-history applies only with --http-port"),
            (["--http-channel-metrics"], "--http-channel-metrics applies only with --http-port"),
            (["--http-host", "127.0.0.1"], "--http-host applies only with --http-port"),
            (["--http-port", "0", "--http-history", "0"], "must be 1 to 100000"),
            (["--http-port", "65536"], "must be 0 to 65535"),
        ])
    func refused(arguments: [String], says: String) throws {
        for command in [["capture", "--dir", "/tmp/chatcap-never-written"], ["tail"]] {
            let run = try CLI.run(command + ["pixelharbor"] + arguments)
            #expect(run.status == 64, "\(command): \(run.stderr)")
            #expect(run.stderr.contains(says), "\(command): \(run.stderr)")
        }
    }

    @Test("an HTTP port in use: capture says so and exits 74 before writing anything", .timeLimit(.minutes(20)))
    func portInUse() throws {
        let dir = try CLITempDirectory.make("http-in-use")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0", "--http-port", "0"])
        defer { _ = server.stop() }
        let httpPort = try #require(server.httpURL?.split(separator: ":").last.map(String.init))
        let run = try CLI.run([
            "capture", "pixelharbor", "--dir", "\(dir)/cap", "--host", "127.0.0.1", "--port", "\(server.port)",
            "--plain", "--http-port", httpPort,
        ])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(
            run.stderr.contains("chatcap: error: cannot listen for HTTP on 127.0.0.1:\(httpPort): "), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/cap"))
    }

    /// A capture host as another chatcap's recent-messages service: capture A (`--http-port`) records
    /// serve's six channels directly; capture B, through a forwarder that cuts its first connection
    /// once and holds B's next connection 0.5 s (a 10 ms gap held no chat in two runs of twelve), asks A
    /// for what it missed (`--recent-messages http://127.0.0.1:PORT`). With the forwarder
    /// `delay` seconds behind, A's answer holds lines B has not received live yet: they are written
    /// once, as recovered, and their live copies dropped and counted.
    ///
    /// The overlap needs A's answer to reach B within `delay`; on a loaded machine it may not (a run beside
    /// three builds got none), so a run without it is repeated, at most three times, each audited whole.
    /// B runs 10 s and waits up to 8 s for A: with 5 s and the default 3 s wait, a run at load 9 (two
    /// benches at full speed and a TSan build beside it) stopped while two channels' answers were still
    /// behind and being asked again, and their gaps were recorded as failed (74 lines missing).
    @Test(
        "a second capture's --recent-messages backfills its gap from a running capture's rings: 0 missing, 0 doubled",
        .timeLimit(.minutes(20)), arguments: [0.0, 0.2])
    func backfillFromCapture(delay: Double) throws {
        var overlapped = 0
        for attempt in 1...(delay > 0 ? 3 : 1) {
            overlapped = try Self.backfillRun(delay: delay, attempt: attempt)
            if overlapped > 0 { break }
        }
        if delay > 0 {
            // The case the run is for came: recovered lines that then arrived live (written once).
            #expect(overlapped > 0, "no live line arrived after its recovered copy in three runs")
        }
    }

    /// One run of ``backfillFromCapture(delay:)``: the audit, and how many live lines B dropped because
    /// they were recovered already.
    static func backfillRun(delay: Double, attempt: Int) throws -> Int {
        let dir = try CLITempDirectory.make("http-backfill-\(delay)-\(attempt)")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess([try BackfillCLITests.fixture(in: dir), "--loop", "--port", "0"])
        defer { _ = server.stop() }
        let channels = BackfillCLITests.channels
        let service = try Live(
            ["capture", "--dir", "\(dir)/service", "--join-rate", "1000"] + channels, server: server)
        defer { _ = service.chatcap.stop(with: SIGKILL) }
        _ = try Self.poll(seconds: 10) {
            try ServeRecentMessagesCLITests.curl(service.url + "/healthz").status == 200 ? true : nil
        }
        let proxy = Process()
        let proxyPort = try startPythonServer(
            proxy,
            arguments: [Fixtures.root + "/Tests/Support/drop_once_proxy.py", "\(server.port)", "2", "\(delay)", "0.5"],
            what: "the forwarder")
        defer {
            kill(proxy.processIdentifier, SIGKILL)
            proxy.waitUntilExit()
        }
        let backfilled = try ChatcapProcess(
            ["capture", "--dir", "\(dir)/backfilled", "--recent-messages", service.url] + channels + [
                "--host", "127.0.0.1", "--port", "\(proxyPort)", "--plain", "--status", "none", "--reconnect-base",
                "0.05", "--reconnect-max", "0.1", "--join-rate", "1000", "--duration", "10",
                "--recent-messages-wait", "8",
            ])
        #expect(backfilled.exitStatus(within: 30) == 0, "\(backfilled.stderr)")
        usleep(500_000)
        #expect(service.chatcap.stop() == 0, "\(service.chatcap.stderr)")

        // What A stored is what serve played (A never dropped): B's audit against it.
        let played = try CLI.run(["replay", "\(dir)/service", "--format", "raw"])
        // Received by A when its `time` tag says: the audit's rule for the last second before B's stop.
        let served = played.text.split(separator: "\r\n").compactMap {
            BackfillCLITests.served(
                $0, at: LineTags.value("time", in: $0).map { BackfillCLITests.wallMs(String($0)) } ?? 0)
        }
        let gaps = try BackfillCLITests.gaps("\(dir)/backfilled")
        #expect(gaps.count == channels.count, "one gap per channel, from the one cut: \(gaps)")
        #expect(gaps.allSatisfy { $0["backfill"] as? String == "closed" }, "\(gaps)")
        let audit = try BackfillCLITests.audit("\(dir)/backfilled", served: served)
        #expect(audit.captured > 500, "\(audit)")
        #expect(audit.missing == 0, "\(audit)")
        #expect(audit.historical > 0, "\(audit)")
        #expect(audit.doubled == 0, "\(audit)")
        let recovered = gaps.compactMap { $0["recovered"] as? Int }.reduce(0, +)
        #expect(recovered == audit.historical)
        let dropped = backfilled.stderr.firstMatch(of: /, (\d+) live lines? already recovered \(written once\)/)
        return dropped.map { Int($0.1) ?? 0 } ?? 0
    }
}
