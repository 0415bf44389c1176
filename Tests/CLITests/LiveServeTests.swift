import ChatTestSupport
import Foundation
import Testing

/// `chatcap tail` against `chatcap serve` (our fake Twitch server) on 127.0.0.1, processes started and
/// stopped by PID: every served line arrives in order in every format, RECONNECT is honoured, a
/// stalled server is detected by the PONG timeout, and a server killed and restarted 20 times
/// leaves exactly-once output with a gap record per outage.
@Suite(.serialized, .timeLimit(.minutes(20))) struct LiveServeTests {
    /// `chatcap serve arguments… --port port` (0: a free one).
    static func serve(_ arguments: [String], port: Int = 0) throws -> ServeProcess {
        try ServeProcess(arguments + ["--port", "\(port)"])
    }

    /// Runs `chatcap tail` for at most `seconds`, returning its output.
    static func tail(_ arguments: [String], seconds: Double) throws -> CLIRun {
        try CLI.run(["tail"] + arguments + ["--duration", "\(seconds)"])
    }

    static func tlsMaterial(in dir: String) throws { try TestPKI.make(in: dir) }

    /// The lines of `fixture` whose channel is `#channel`, as bytes without terminators.
    static func channelLines(_ fixture: String, _ channel: String) throws -> [[UInt8]] {
        FramerVerifier.oracleLines(try Fixtures.bytes("lines/\(fixture)")).filter {
            String(decoding: $0, as: UTF8.self).contains(" #\(channel) ")
                || String(decoding: $0, as: UTF8.self).hasSuffix(" #\(channel)")
        }
    }

    @Test("tail over TLS receives every served line of its channel, in order, in every format")
    func everyLineInOrder() throws {
        let dir = try CLITempDirectory.make("serve-tls")
        defer { CLITempDirectory.remove(dir) }
        try Self.tlsMaterial(in: dir)
        let expected = try Self.channelLines("privmsg.irc", "pixelharbor")
        #expect(expected.count > 10)
        let served: [UInt8] = expected.flatMap { $0 + [13, 10] }
        for format in ["raw", "json", "irc", "text"] {
            // A server of its own for each format: the log's first pass (later passes have fresh ids)
            // goes to the first connection.
            let server = try Self.serve([
                "Fixtures/lines/privmsg.irc", "--speed", "max", "--loop", "--keep-time",
                "--tls-cert", "\(dir)/server.pem", "--tls-key", "\(dir)/server.key",
            ])
            defer { _ = server.stop(with: SIGKILL) }
            let options = ["--format", format, "--color", "never"]
            let run = try Self.tail(
                ["pixelharbor", "--host", "127.0.0.1", "--port", "\(server.port)", "--ca-file", "\(dir)/ca.pem"]
                    + options, seconds: 2)
            #expect(run.status == 0, "\(format): \(run.stderr)")
            // raw: the served lines byte for byte (--keep-time). Every other format: the lines `replay`
            // writes for the same served lines (the formats' own tests pin those). In the same order,
            // from the first; only the channel's chat lines are compared (tail also writes its own
            // records and the server's JOIN echo).
            let want: [[UInt8]]
            let got: [[UInt8]]
            if format == "raw" {
                want = expected
                got = FramerVerifier.oracleLines(run.stdout)
            } else {
                let oracle = try CLI.run(["replay", "-"] + options, stdin: served)
                #expect(oracle.status == 0, "\(format): \(oracle.stderr)")
                want = oracle.stdout.split(separator: UInt8(ascii: "\n")).map(Array.init)
                got = run.stdout.split(separator: UInt8(ascii: "\n")).map(Array.init)
            }
            #expect(want.count == expected.count, "\(format): \(want.count) lines expected")
            guard let start = got.firstIndex(of: want[0]) else {
                Issue.record("\(format): the first served line never arrived: \(run.stderr)")
                continue
            }
            let wanted = Set(want)
            let chat = Array(got[start...].filter { wanted.contains($0) }.prefix(want.count))
            let differ = zip(chat, want).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? chat.count
            #expect(chat == want, "\(format): \(chat.count) of \(want.count) lines, the first difference at \(differ)")
        }
    }

    @Test("tail --format json writes ts null for a line without a time of its own, as docs/ndjson.md says")
    func untimedLinesHaveNullTs() throws {
        let server = try Self.serve(["Fixtures/lines/privmsg.irc", "--speed", "max"])
        defer { _ = server.stop(with: SIGKILL) }
        let run = try Self.tail(
            ["pixelharbor", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain", "--format", "json"],
            seconds: 1.5)
        #expect(run.status == 0, "\(run.stderr)")
        let objects = run.text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        // The server's echo of our JOIN has no time tag: its ts is null (it was the time of receipt).
        let joins = objects.filter { $0["type"] as? String == "join" }
        #expect(joins.count == 1, "\(run.text)")
        #expect(joins.allSatisfy { $0["ts"] is NSNull }, "\(joins)")
        // Chat lines keep the time the server gave them.
        let chat = objects.filter { $0["type"] as? String == "privmsg" }
        #expect(!chat.isEmpty && chat.allSatisfy { ($0["ts"] as? String)?.count == 24 }, "\(run.text)")
    }

    @Test("RECONNECT is honoured: the client reconnects, rejoins, records a gap and goes on")
    func reconnect() throws {
        let server = try Self.serve([
            "Fixtures/lines/privmsg.irc", "--speed", "max", "--reconnect-after", "5", "--loop",
        ])
        defer { _ = server.stop(with: SIGKILL) }
        let run = try Self.tail(
            [
                "pixelharbor", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain",
                "--format", "json", "--reconnect-base", "0.1", "--reconnect-max", "0.2",
            ], seconds: 3)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("RECONNECT"), "\(run.stderr)")
        let joins = run.text.split(separator: "\n").filter { $0.contains("\"event\":\"joined\"") }
        #expect(joins.count >= 2, "rejoined after RECONNECT")
        #expect(run.text.contains("\"type\":\"gap\""))
    }

    @Test(
        "tail reconnecting after --drop-after gets no message twice; tmi-sent-ts is now (shared timeline, times rebased)"
    )
    func reconnectWithoutDuplicates() throws {
        let server = try Self.serve(["Fixtures/lines/privmsg.irc", "--speed", "max", "--loop", "--drop-after", "7"])
        defer { _ = server.stop(with: SIGKILL) }
        let started = Int64(Date().timeIntervalSince1970 * 1000)
        let run = try Self.tail(
            [
                "pixelharbor", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain", "--format", "raw",
                "--reconnect-base", "0.05", "--reconnect-max", "0.1",
            ], seconds: 3)
        #expect(run.status == 0, "\(run.stderr)")
        let chat = run.text.split(separator: "\r\n").filter { $0.contains(" PRIVMSG #pixelharbor ") }
        let ids = chat.compactMap { LineTags.value("id", in: $0) }
        #expect(ids.count == chat.count)
        // Each connection's lines follow the server's echo of our JOIN: every connection the server
        // dropped brought exactly the 7 lines --drop-after lets through; only the last one, which
        // --duration may have ended before its drop, can have fewer.
        var perConnection: [Int] = []
        for line in run.text.split(separator: "\r\n") {
            if line.hasSuffix(" JOIN #pixelharbor") {
                perConnection.append(0)
            } else if line.contains(" PRIVMSG #pixelharbor ") && !perConnection.isEmpty {
                perConnection[perConnection.count - 1] += 1
            }
        }
        let dropped = run.stderr.components(separatedBy: "disconnected: the server closed the connection").count - 1
        #expect(perConnection.count >= 4, "several connections: \(perConnection)")
        #expect(dropped == perConnection.count || dropped == perConnection.count - 1, "\(dropped) drops")
        #expect(perConnection.prefix(dropped).allSatisfy { $0 == 7 }, "lines per connection: \(perConnection)")
        #expect(perConnection.dropFirst(dropped).allSatisfy { $0 <= 7 }, "lines per connection: \(perConnection)")
        #expect(chat.count == perConnection.reduce(0, +), "no chat line outside a connection's JOIN")
        #expect(Set(ids).count == ids.count, "\(ids.count - Set(ids).count) message ids received twice")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let sent = chat.compactMap { LineTags.value("tmi-sent-ts", in: $0).flatMap { Int64($0) } }
        #expect(sent.count == chat.count)
        #expect(
            sent.allSatisfy { $0 >= started - 2_000 && $0 <= now + 2_000 }, "tmi-sent-ts is not now: \(sent.prefix(3))")
    }

    @Test("serve's keepalive: tail answers every PING and stays connected")
    func keepaliveAnswered() throws {
        let server = try ServeProcess([
            "Fixtures/lines/privmsg.irc", "--speed", "max", "--ping-interval", "1", "--pong-timeout", "1", "--port",
            "0",
        ])
        let run = try Self.tail(
            ["pixelharbor", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain", "--format", "raw"],
            seconds: 3.5)
        #expect(run.status == 0, "\(run.stderr)")
        let pings = run.text.split(separator: "\r\n").filter { $0 == "PING :tmi.twitch.tv" }.count
        #expect(pings == 3, "a PING a second, each answered: \(pings)")
        #expect(!run.stderr.contains("reconnect"), "\(run.stderr)")
        #expect(server.stop() == 0)
        #expect(!server.stderr.contains("no PONG"), "\(server.stderr)")
        #expect(server.stderr.contains("disconnected: 24 lines sent"), "\(server.stderr)")
    }

    @Test("a stalled server (no PONG) is detected and the client reconnects")
    func stalledServer() throws {
        let server = try Self.serve(["Fixtures/lines/privmsg.irc", "--speed", "max", "--stall-after", "3"])
        defer { _ = server.stop(with: SIGKILL) }
        let run = try Self.tail(
            [
                "pixelharbor", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain",
                "--format", "json", "--idle-timeout", "0.5", "--pong-timeout", "0.5",
                "--reconnect-base", "0.1", "--reconnect-max", "0.2",
            ], seconds: 4)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("no PONG"), "\(run.stderr)")
        #expect(run.text.contains("\"type\":\"gap\""))
    }

    @Test(
        "the server killed and restarted 20 times: every line printed once, in order, a gap per outage",
        arguments: ["tcp", "websocket"])
    func killedAndRestarted(transport: String) throws {
        let dir = try CLITempDirectory.make("faults")
        defer { CLITempDirectory.remove(dir) }
        // Instance k serves its own lines "k-i", 5 ms apart, so each instance is cut off mid-stream.
        let rounds = 20
        for k in 0..<rounds {
            var text = ""
            for i in 0..<400 {
                text += "@id=m\(k)-\(i);tmi-sent-ts=\(1_763_700_000_000 + i * 5) :u!u@u PRIVMSG #c :\(k)-\(i)\r\n"
            }
            try text.write(toFile: "\(dir)/\(k).irc", atomically: true, encoding: .utf8)
        }
        // Over WebSocket, every instance listens on the same --ws-port too.
        let wsPort: Int? = transport == "websocket" ? Int(try SocketLoopbackListener.freePort()) : nil
        let wsArguments = wsPort.map { ["--ws-port", "\($0)"] } ?? []
        var server = try Self.serve(["\(dir)/0.irc", "--speed", "1"] + wsArguments)
        let port = server.port
        let connect =
            wsPort.map { ["--transport", "websocket", "--port", "\($0)"] } ?? ["--port", "\(port)"]
        let run = try CLI.start(
            ["tail", "c", "--host", "127.0.0.1"] + connect + [
                "--plain", "--format", "json",
                "--reconnect-base", "0.05", "--reconnect-max", "0.1", "--healthy-after", "0.2",
                "--duration", "30",
            ])
        let (tail, out, err) = (run.process, run.stdout, run.stderr)
        defer { if tail.isRunning { kill(tail.processIdentifier, SIGKILL) } }
        // Read output concurrently so that the pipe never fills.
        nonisolated(unsafe) var stdout = Data()
        let reader = Thread { stdout = out.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        for k in 1..<rounds {
            Thread.sleep(forTimeInterval: 0.6)
            _ = server.stop(with: SIGKILL)
            server = try Self.serve(["\(dir)/\(k).irc", "--speed", "1"] + wsArguments, port: Int(port))
        }
        Thread.sleep(forTimeInterval: 0.6)
        _ = server.stop(with: SIGKILL)
        Thread.sleep(forTimeInterval: 0.3)
        kill(tail.processIdentifier, SIGINT)
        tail.waitUntilExit()
        while reader.isExecuting || !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        let lines = String(decoding: stdout, as: UTF8.self).split(separator: "\n")
        let texts = lines.filter { $0.contains("\"type\":\"privmsg\"") }.compactMap { line -> String? in
            guard let r = line.range(of: "\"text\":\"") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != "\"" })
        }
        #expect(Set(texts).count == texts.count, "no line printed twice")
        var perInstance: [Int: [Int]] = [:]
        for t in texts {
            let parts = t.split(separator: "-").compactMap { Int($0) }
            if parts.count == 2 { perInstance[parts[0], default: []].append(parts[1]) }
        }
        #expect(perInstance.count >= rounds - 2, "lines from (nearly) every instance: \(perInstance.keys.sorted())")
        for (k, seen) in perInstance {
            #expect(seen == Array(0..<seen.count), "instance \(k): in order and without holes")
        }
        let gaps = lines.filter { $0.contains("\"type\":\"gap\"") }
        #expect(gaps.count >= rounds - 1, "a gap record per outage (\(gaps.count))")
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(tail.terminationStatus == 0, "\(stderr.suffix(2000))")
    }
}
