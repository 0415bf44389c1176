import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `serve --http-port`: the recent-messages v2 API from the shared timeline, end to end — a real
/// `chatcap serve`, an IRC client that joins, and curl.
@Suite struct ServeRecentMessagesCLITests {
    /// `chatcap serve arguments… --port 0 --http-port 0`, and the HTTP URL it said it listens on.
    static func serve(_ arguments: [String]) throws -> (serve: ServeProcess, url: String) {
        let serve = try ServeProcess(arguments + ["--port", "0", "--http-port", "0"])
        return (serve, try #require(serve.httpURL))
    }

    struct Answer: Decodable, Equatable {
        var messages: [String]
        var error: String?
        var errorCode: String?

        enum CodingKeys: String, CodingKey {
            case messages, error
            case errorCode = "error_code"
        }
    }

    /// `curl` of `url`: the status and the body.
    static func curl(_ url: String, method: String = "GET", timeout: Double = 5) throws -> (status: Int, body: String) {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-m", "\(timeout)", "-X", method, "-w", "\n%{http_code}", url]
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let newline = try #require(text.lastIndex(of: "\n"))
        return (Int(text[text.index(after: newline)...]) ?? 0, String(text[..<newline]))
    }

    static func answer(_ url: String) throws -> Answer {
        let (status, body) = try curl(url)
        #expect(status == 200, "\(url): \(body)")
        return try JSONDecoder().decode(Answer.self, from: Data(body.utf8))
    }

    /// The line without the tags the service adds, and the `rm-received-ts` it had.
    static func strip(_ line: String) throws -> (line: String, receivedAt: Int64, deleted: Bool) {
        let deleted = line.hasPrefix("@rm-deleted=1;")
        var rest = Substring(line.dropFirst(deleted ? "@rm-deleted=1;".count : 1))
        #expect(rest.hasPrefix("rm-received-ts="), "\(line)")
        rest = rest.dropFirst("rm-received-ts=".count)
        let digits = rest.prefix { $0.isNumber }
        let receivedAt = try #require(Int64(digits))
        rest = rest.dropFirst(digits.count)
        #expect(rest.hasPrefix(";historical=1"), "\(line)")
        rest = rest.dropFirst(";historical=1".count)
        return (rest.hasPrefix(";") ? "@" + rest.dropFirst() : String(rest.dropFirst()), receivedAt, deleted)
    }

    static let exportedVerbs: Set<Substring> = [
        "PRIVMSG", "CLEARCHAT", "CLEARMSG", "USERNOTICE", "NOTICE", "ROOMSTATE",
    ]

    /// The verb of a tagged line from a server.
    static func verb(_ line: String) -> Substring {
        let words = line.split(separator: " ", maxSplits: 3)
        return words.count > 2 ? words[2] : ""
    }

    /// Which lines the service marks `rm-deleted` (an oracle written from its rules): every line
    /// before the last whole-chat CLEARCHAT; PRIVMSG and USERNOTICE whose `id` a later CLEARMSG names
    /// or whose `user-id` a later CLEARCHAT times out or bans.
    static func expectedDeleted(_ lines: [String]) -> [Bool] {
        lines.indices.map { i in
            let later = lines[(i + 1)...]
            if later.contains(where: { verb($0) == "CLEARCHAT" && LineTags.value("target-user-id", in: $0) == nil }) {
                return true
            }
            guard ["PRIVMSG", "USERNOTICE"].contains(verb(lines[i])) else { return false }
            if let id = LineTags.value("id", in: lines[i]),
                later.contains(where: { verb($0) == "CLEARMSG" && LineTags.value("target-msg-id", in: $0) == id })
            {
                return true
            }
            if let user = LineTags.value("user-id", in: lines[i]),
                later.contains(where: { verb($0) == "CLEARCHAT" && LineTags.value("target-user-id", in: $0) == user })
            {
                return true
            }
            return false
        }
    }

    @Test(
        "answers the lines serve played, with historical, rm-received-ts and rm-deleted, and the options",
        .timeLimit(.minutes(20)))
    func playedLines() throws {
        let (server, url) = try Self.serve(["Fixtures/lines/moderation.irc", "--speed", "max"])
        let api = url + "/api/v2/recent-messages/pixelharbor"
        let notJoined = "The bot is currently not joined to this channel (in progress or failed previously)"
        #expect(try Self.answer(api) == Answer(messages: [], error: notJoined, errorCode: "channel_not_joined"))

        let start = Int64(Date().timeIntervalSince1970 * 1000)
        let client = try ServeLineClient(port: server.port)
        client.send("CAP REQ :twitch.tv/tags twitch.tv/commands", "NICK justinfan123", "JOIN #pixelharbor")
        #expect(server.waitForStderr(containing: "end of the log", timeoutMs: 60_000))
        var received: [String] = []
        while let line = client.line(timeoutMs: 500) { received.append(line) }
        let end = Int64(Date().timeIntervalSince1970 * 1000)
        // What the timeline played: after the JOIN's answer (which ends with its ROOMSTATE).
        let joinAnswer = try #require(received.firstIndex { Self.verb($0) == "ROOMSTATE" })
        let played = received[(joinAnswer + 1)...].filter {
            Self.exportedVerbs.contains(Self.verb($0)) && $0.contains(" #pixelharbor")
        }
        #expect(played.count == 14)

        let answer = try Self.answer(api)
        #expect(answer.error == nil && answer.errorCode == nil)
        let stripped = try answer.messages.map(Self.strip)
        #expect(stripped.map(\.line) == Array(played))
        // Serve dates a line `due + (wall - monotonic)`, each clock read cut to the millisecond: up to
        // 1 ms before the instant the test read (seen under load: 1795924059744 against a start of …745).
        #expect(
            stripped.allSatisfy { (start - 1...end).contains($0.receivedAt) },
            "\(start)...\(end): \(stripped.map(\.receivedAt))")
        #expect(stripped.map(\.deleted) == Self.expectedDeleted(Array(played)))
        #expect(stripped.filter(\.deleted).count == 11)
        let cleared = try #require(answer.messages.first { $0.contains("id=73e7a299-2995-4a6c-a933-91c20ce74394;") })
        #expect(cleared.hasPrefix("@rm-deleted=1;rm-received-ts="))

        let noModeration = try Self.answer(api + "?hide_moderation_messages=true").messages
        #expect(noModeration == answer.messages.filter { !["CLEARCHAT", "CLEARMSG"].contains(Self.verb($0)) })
        #expect(noModeration.count < answer.messages.count)
        let noModerated = try Self.answer(api + "?hideModeratedMessages=true").messages
        #expect(noModerated == answer.messages.filter { !$0.hasPrefix("@rm-deleted=1;") })
        let notices = try Self.answer(api + "?clearchatToNotice=true").messages
        #expect(notices.count == answer.messages.count)
        #expect(
            notices.contains {
                $0.hasSuffix(" :tmi.twitch.tv NOTICE #pixelharbor :trollface99 has been timed out for 10m.")
            })
        #expect(
            notices.contains {
                $0.hasSuffix(" :tmi.twitch.tv NOTICE #pixelharbor :Chat has been cleared by a moderator.")
            })
        #expect(!notices.contains { Self.verb($0) == "CLEARCHAT" })
        #expect(try Self.answer(api + "?limit=3").messages == Array(answer.messages.suffix(3)))

        #expect(
            try Self.answer(url + "/api/v2/recent-messages/nosuchchannel")
                == Answer(messages: [], error: notJoined, errorCode: "channel_not_joined"))
        let invalid = try Self.curl(url + "/api/v2/recent-messages/Not-A-Login")
        #expect(invalid.status == 400)
        #expect(invalid.body.hasSuffix(#""error_code":"invalid_channel_login"}"#))
        let badQuery = try Self.curl(api + "?limit=many")
        #expect(badQuery.status == 400)
        #expect(badQuery.body.hasSuffix(#""error_code":"invalid_query"}"#))
        let post = try Self.curl(api, method: "POST")
        #expect(post.status == 405)
        #expect(
            post.body
                == #"{"status":405,"status_message":"Method Not Allowed","error":"Method Not Allowed","error_code":"method_not_allowed"}"#
        )
        for path in ["/", "/metrics", "/api/v2/recent-messages/"] {
            let missing = try Self.curl(url + path)
            #expect(missing.status == 404, "\(path)")
            #expect(
                missing.body
                    == #"{"status":404,"status_message":"Not Found","error":"Not Found","error_code":"not_found"}"#)
        }
        #expect(server.stop() == 0)
    }

    @Test(
        "lines the timeline played while the only client was away are in the history (what backfill asks for)",
        .timeLimit(.minutes(20)))
    func linesDuringAGap() throws {
        // privmsg.irc spans 30 s of #pixelharbor: at 20× it plays in 1.5 s; the client is dropped after 3.
        let (server, url) = try Self.serve(["Fixtures/lines/privmsg.irc", "--speed", "20", "--drop-after", "3"])
        let first = try ServeLineClient(port: server.port)
        first.send("CAP REQ :twitch.tv/tags twitch.tv/commands", "NICK justinfan123", "JOIN #pixelharbor")
        var seen: [String] = []
        while let line = first.line(timeoutMs: 3_000) {
            if Self.verb(line) == "PRIVMSG" { seen.append(line) }
        }
        #expect(first.ended)
        #expect(seen.count == 3)
        usleep(2_000_000)  // the rest of the log is due meanwhile, with nobody listening
        let second = try ServeLineClient(port: server.port)
        second.send("CAP REQ :twitch.tv/tags twitch.tv/commands", "NICK justinfan123", "JOIN #pixelharbor")
        #expect(server.waitForStderr(containing: "end of the log", timeoutMs: 60_000))
        let answer = try Self.answer(url + "/api/v2/recent-messages/pixelharbor")
        let lines = try answer.messages.map { try Self.strip($0).line }
        #expect(Array(lines.prefix(3)) == seen)
        let marker = " PRIVMSG #pixelharbor :"
        let texts = try Fixtures.bytes("lines/privmsg.irc").split(separator: 0x0A).compactMap { bytes -> String? in
            let line = String(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes, as: UTF8.self)
            return line.range(of: marker).map { String(line[$0.upperBound...]) }
        }
        #expect(texts.count == 24)
        let played = lines.map { line in line.range(of: marker).map { String(line[$0.upperBound...]) } ?? line }
        #expect(played == texts)
        #expect(server.stop() == 0)
    }

    @Test(
        "200 idle connections to the HTTP port do not keep curl from an answer within 2 s; the bound holds; a taken port exits 74",
        .timeLimit(.minutes(20)))
    func idleConnections() throws {
        let (server, url) = try Self.serve(["Fixtures/lines/privmsg.irc", "--speed", "max", "--http-history", "5"])
        let client = try ServeLineClient(port: server.port)
        client.send("CAP REQ :twitch.tv/tags", "NICK justinfan123", "JOIN #pixelharbor")
        #expect(server.waitForStderr(containing: "end of the log", timeoutMs: 60_000))
        let httpPort = try #require(url.split(separator: ":").last.flatMap { UInt16($0) })
        var idle: [Int32] = []
        defer { for descriptor in idle { close(descriptor) } }
        for _ in 0..<200 {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = httpPort.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            try #require(result == 0, "connect: errno \(errno)")
            idle.append(descriptor)
        }
        usleep(200_000)  // the listener has accepted them
        let started = Date()
        let (status, body) = try Self.curl(url + "/api/v2/recent-messages/pixelharbor", timeout: 2)
        let seconds = Date().timeIntervalSince(started)
        #expect(status == 200, "\(body)")
        #expect(seconds < 2, "answered after \(seconds) s")
        let answer = try JSONDecoder().decode(Answer.self, from: Data(body.utf8))
        #expect(answer.messages.count == 5)
        // Its port is taken: a second serve on it says so and exits 74.
        let second = try CLI.run(["serve", "Fixtures/lines/privmsg.irc", "--port", "0", "--http-port", "\(httpPort)"])
        #expect(second.status == 74)
        #expect(
            second.stderr.contains("cannot listen for HTTP on 127.0.0.1:\(httpPort): Address already in use"),
            "\(second.stderr)")
        #expect(
            answer.messages.last?.hasSuffix(" PRIVMSG #pixelharbor ::) hi chat") ?? false,
            "\(answer.messages.last ?? "")")
        #expect(server.stop() == 0)
    }

    @Test(
        "SIGTERM stops serve with --http-port with 0 also when started with no signal blocked", .timeLimit(.minutes(20))
    )
    func sigtermWithListener() throws {
        // Python clears the signal mask the test runner may pass on, starts serve, waits for both
        // 'listening on' lines and sends SIGTERM: the listener's thread must not take it.
        let script = """
            import signal, subprocess
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            codes = []
            for _ in range(3):
                p = subprocess.Popen([\(CLI.shellBinary.replacingOccurrences(of: "'", with: "\"")), "serve", \
            "Fixtures/lines/privmsg.irc", "--port", "0", "--http-port", "0"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
                p.stdout.readline(); p.stdout.readline()
                p.send_signal(signal.SIGTERM)
                codes.append(p.wait(timeout=10))
            print(codes)
            """
        let run = try CLI.shell("python3 -c '\(script)'")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "[0, 0, 0]\n")
    }

    @Test("serve --help documents the HTTP options and why exposing the listener needs care")
    func help() throws {
        let run = try CLI.run(["serve", "--help"])
        #expect(run.status == 0)
        let help = run.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in [
            "--http-port <port> Also answer HTTP on this port (0 to 65535; 0 picks a free one, see the 'listening on "
                + "http://HOST:PORT' line): GET /api/v2/recent-messages/<login>, the recent-messages v2 API; capture "
                + "and tail also GET /metrics (Prometheus) and GET /healthz.",
            "--http-host <host> The address the HTTP listener binds (default: 127.0.0.1, this machine only). Any other "
                + "address hands the recent chat of every channel to whoever can reach it, without authentication or "
                + "TLS: put a reverse proxy with TLS and access rules in front instead.",
            "--http-history <n> With --http-port: lines kept per channel for GET /api/v2/recent-messages, the last ones "
                + "serve played, 1 to 100000 (default: 2500, as capture and tail; the public service keeps fewer, give "
                + "500 to answer as it does).",
        ] {
            #expect(help.contains(text), "help lacks '\(text)'")
        }
    }

    @Test(
        "HTTP options that cannot apply are refused with 64",
        arguments: [
            (["--http-history", "5"], "--http-history applies only with --http-port"),
            (
                ["--http-port", "0", "--recent-messages-limit", "5"],
                "serve's --recent-messages-limit is now --http-history"
            ),
            (["--http-host", "127.0.0.1"], "--http-host applies only with --http-port"),
            (["--http-port", "0", "--from-start"], "--from-start gives each client its own"),
            (["--http-port", "7000", "--port", "7000"], "--http-port must differ from --port"),
            (["--http-port", "0", "--http-history", "0"], "must be 1 to 100000"),
        ])
    func refused(arguments: [String], says: String) throws {
        let run = try CLI.run(["serve", "Fixtures/lines/privmsg.irc"] + arguments)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains(says), "\(run.stderr)")
    }
}
