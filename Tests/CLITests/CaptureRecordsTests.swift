import ChatTestSupport
import Foundation
import Testing

/// Capture's own records read back (issue 13 item 5): `replay` writes them as the typed `gap` and
/// `session` records `tail` writes, `--type gap`/`session` select them, `stats` counts gaps,
/// reconnects and join outcomes, and a restart stores the hole between two runs (and a run that
/// ended without `stop`) as records too.
@Suite(.serialized, .timeLimit(.minutes(20))) struct CaptureRecordsTests {
    /// Two capture runs in the form `CaptureWriter` writes: the first with an older gap record (epoch
    /// milliseconds in its text, no `reason` tag), the second one after a restart.
    static let session = [
        "@time=2025-11-21T04:40:00.000Z :chatcap CAPTURE start * :capture of pixelharbor lunafrost started",
        "@time=2025-11-21T04:40:00.100Z :chatcap CAPTURE connected * :connected (connection 1)",
        "@time=2025-11-21T04:40:00.200Z :chatcap CAPTURE capabilities * :capabilities granted: twitch.tv/tags twitch.tv/commands",
        "@time=2025-11-21T04:40:00.300Z :chatcap CAPTURE joined #pixelharbor :joined #pixelharbor",
        "@time=2025-11-21T04:40:05.000Z :chatcap CAPTURE join-failed #lunafrost :could not join #lunafrost: This channel does not exist or has been suspended. (msg_channel_suspended)",
        "@time=2025-11-21T04:41:00.000Z :chatcap CAPTURE disconnected * :disconnected: the server closed the connection",
        "@time=2025-11-21T04:41:00.000Z :chatcap CAPTURE reconnect * :reconnecting in 1000 ms (attempt 1)",
        "@time=2025-11-21T04:41:01.200Z :chatcap CAPTURE connected * :connected (connection 2)",
        "@time=2025-11-21T04:41:01.500Z :chatcap CAPTURE joined #pixelharbor :joined #pixelharbor",
        "@time=2025-11-21T04:41:01.500Z;gap-from=2025-11-21T04:40:59.000Z;gap-to=2025-11-21T04:41:01.500Z :chatcap CAPTURE gap #pixelharbor :gap in #pixelharbor from 1763700059000 to 1763700061500 (2500 ms): the server closed the connection",
        "@time=2025-11-21T04:42:00.000Z :chatcap CAPTURE back-pressure * :back-pressure 1: stopped reading the socket for 120 ms while the disk caught up",
        "@time=2025-11-21T04:43:00.000Z :chatcap CAPTURE stop * :capture stopped after 12 lines",
        "@time=2025-11-21T05:00:00.000Z;gap-from=2025-11-21T04:43:00.000Z;gap-to=2025-11-21T05:00:00.000Z;reason=capture\\swas\\snot\\srunning\\s(stopped,\\sthen\\sstarted\\sagain) :chatcap CAPTURE gap #pixelharbor :gap in #pixelharbor from 2025-11-21T04:43:00.000Z to 2025-11-21T05:00:00.000Z (1020000 ms): capture was not running (stopped, then started again)",
        "@time=2025-11-21T05:00:00.000Z :chatcap CAPTURE start * :capture of pixelharbor started",
    ]
    static let chat = [
        "@time=2025-11-21T04:40:10.000Z;id=a;tmi-sent-ts=1763700009990 :ann!ann@ann.tmi.twitch.tv PRIVMSG #pixelharbor :before",
        "@time=2025-11-21T04:41:30.000Z;id=b;tmi-sent-ts=1763700089990 :ann!ann@ann.tmi.twitch.tv PRIVMSG #pixelharbor :after",
    ]

    /// A capture directory holding ``session`` and ``chat`` as gzip files.
    static func captureDirectory() throws -> (InputTempDirectory, String) {
        let dir = try InputTempDirectory()
        for (sub, lines) in [("_session", session), ("pixelharbor", chat)] {
            let plain = try dir.write("\(sub).txt", Array(lines.map { $0 + "\r\n" }.joined().utf8))
            let run = try CLI.shell(
                "mkdir -p '\(dir.path)/cap/\(sub)' && gzip -c '\(plain)' > '\(dir.path)/cap/\(sub)/2025-11-21.log.gz' && rm '\(plain)'"
            )
            #expect(run.status == 0, "\(run.stderr)")
        }
        return (dir, dir.path + "/cap")
    }

    static func jq(_ arguments: [String], _ filter: String) throws -> [String] {
        let quoted = arguments.map { "'\($0)'" }.joined(separator: " ")
        let run = try CLI.shell("\(CLI.shellBinary) replay \(quoted) --format json | jq -c '\(filter)'")
        #expect(run.status == 0, "\(run.stderr)")
        return run.text.split(separator: "\n").map(String.init)
    }

    @Test("replay writes capture records as the typed gap and session records of tail, old and new forms")
    func typedRecords() throws {
        let (dir, cap) = try Self.captureDirectory()
        defer { _ = dir }
        let gaps = try Self.jq([cap], #"select(.type == "gap")"#)
        #expect(
            gaps == [
                #"{"type":"gap","channel":"pixelharbor","ts":"2025-11-21T04:41:01.500Z","about":null,"from":"2025-11-21T04:40:59.000Z","to":"2025-11-21T04:41:01.500Z","duration_ms":2500,"reason":"the server closed the connection"}"#,
                #"{"type":"gap","channel":"pixelharbor","ts":"2025-11-21T05:00:00.000Z","about":null,"from":"2025-11-21T04:43:00.000Z","to":"2025-11-21T05:00:00.000Z","duration_ms":1020000,"reason":"capture was not running (stopped, then started again)"}"#,
            ])
        let sessions = try Self.jq([cap], #"select(.type == "session") | [.channel, .event, .detail] | @json"#)
        #expect(sessions.count == 12)
        #expect(sessions.first == #""[null,\"start\",\"capture of pixelharbor lunafrost started\"]""#)
        #expect(
            sessions.contains(
                #""[\"lunafrost\",\"join_failed\",\"could not join #lunafrost: This channel does not exist or has been suspended. (msg_channel_suspended)\"]""#
            ), "\(sessions)")
        #expect(
            sessions.contains(
                #""[null,\"back_pressure\",\"back-pressure 1: stopped reading the socket for 120 ms while the disk caught up\"]""#
            ))
        let unknown = try Self.jq([cap], #"select(.type == "unknown")"#)
        #expect(unknown.isEmpty, "\(unknown)")
        // The same records validate against the schema, with every optional field.
        let schema = try CLI.shell(
            "\(CLI.shellBinary) replay '\(cap)' --format json --with-tags --with-raw --apply-moderation | python3 Scripts/check_ndjson_schema.py docs/ndjson.schema.json -"
        )
        #expect(schema.status == 0, "\(schema.text)\(schema.stderr)")
    }

    @Test("--type gap and --type session select the records; --channel keeps a channel's records")
    func typeFilter() throws {
        let (dir, cap) = try Self.captureDirectory()
        defer { _ = dir }
        func count(_ args: [String]) throws -> Int {
            let r = try CLI.run(["replay", cap, "--format", "raw"] + args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            return r.lineCount
        }
        #expect(try count(["--type", "gap"]) == 2)
        #expect(try count(["--type", "session"]) == 12)
        #expect(try count(["--type", "gap", "--channel", "pixelharbor"]) == 2)
        #expect(try count(["--type", "session", "--channel", "lunafrost"]) == 1)
        #expect(try count(["--type", "unknown"]) == 0)
    }

    @Test("text output describes gaps and session events in words, times in RFC 3339")
    func textForm() throws {
        let (dir, cap) = try Self.captureDirectory()
        defer { _ = dir }
        let run = try CLI.run([
            "replay", cap, "--format", "text", "--color", "never", "--type", "gap", "--type", "session",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 14)
        #expect(
            lines.contains(
                "04:41:01 #pixelharbor -- gap: not captured from 2025-11-21T04:40:59.000Z to 2025-11-21T04:41:01.500Z (2.500 s): the server closed the connection"
            ), "\(lines)")
        #expect(
            lines.contains(
                "04:40:05 #lunafrost -- capture join failed: could not join #lunafrost: This channel does not exist or has been suspended. (msg_channel_suspended)"
            ), "\(lines)")
        #expect(lines.first == "04:40:00 -- capture start: capture of pixelharbor lunafrost started", "\(lines)")
    }

    @Test("stats counts runs, reconnects, join outcomes and gaps, in text and JSON")
    func stats() throws {
        let (dir, cap) = try Self.captureDirectory()
        defer { _ = dir }
        let text = try CLI.run(["stats", cap])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.text.contains("capture runs: 2 (0 ended without stop)\n"), "\(text.text)")
        #expect(text.text.contains("reconnects: 1\n"), "\(text.text)")
        #expect(text.text.contains("joins: 2 joined, 1 failed\n"), "\(text.text)")
        #expect(text.text.contains("gaps: 2 (1022.500 s)\n  pixelharbor: 2\n"), "\(text.text)")
        #expect(text.text.contains("  gap: 2\n") && text.text.contains("  session: 12\n"), "\(text.text)")
        let json = try CLI.shell("\(CLI.shellBinary) stats '\(cap)' --json | jq -c .capture")
        #expect(
            json.text
                == #"{"records":14,"runs":2,"ended_without_stop":0,"connections":2,"reconnects":1,"disconnects":1,"joined":2,"join_failed":1,"back_pressure":1,"gaps":2,"gap_ms":1022500,"gap_channels":{"pixelharbor":2}}"#
                + "\n", "\(json.text)\(json.stderr)")
    }

    @Test("a restart stores the hole as a gap; a run killed without stop is recorded, with a gap from its last line")
    func restartAndKill() throws {
        let dir = try CLITempDirectory.make("capture-restart")
        defer { CLITempDirectory.remove(dir) }
        var text = ""
        for i in 0..<20_000 {
            text += "@id=m\(i);tmi-sent-ts=\(1_763_700_000_000 + i * 10) :u!u@u PRIVMSG #c :\(i)\r\n"
        }
        try text.write(toFile: "\(dir)/feed.irc", atomically: true, encoding: .utf8)
        let server = try ServeProcess.onFreePort(["\(dir)/feed.irc", "--speed", "1"])
        defer { server.kill() }
        let common = [
            "c", "--dir", "\(dir)/cap", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain", "--status",
            "none",
        ]
        // 1. A clean run (ends with stop), then a second one: the hole between them is a gap record.
        let first = try CLI.run(["capture"] + common + ["--duration", "1.5"])
        #expect(first.status == 0, "\(first.stderr)")
        Thread.sleep(forTimeInterval: 0.5)
        let second = try CLI.run(["capture"] + common + ["--duration", "1.5"])
        #expect(second.status == 0, "\(second.stderr)")
        // Connection life (connected, capabilities, disconnected) aside, the records in order.
        let life = [#""connected""#, #""capabilities""#, #""disconnected""#]
        var records = try Self.jq(
            ["\(dir)/cap"], #"select(.type == "gap" or .type == "session") | [.type, .event // .reason]"#
        ).filter { r in !life.contains { r.contains($0) } }
        #expect(
            records == [
                #"["session","start"]"#, #"["session","joined"]"#, #"["session","stop"]"#, #"["session","start"]"#,
                #"["gap","capture was not running (stopped, then started again)"]"#, #"["session","joined"]"#,
                #"["session","stop"]"#,
            ])
        // The restart gap runs from the first run's stop to the second run's JOIN (nothing said before
        // it reaches the second run).
        let stops = try Self.jq(["\(dir)/cap"], #"select(.event == "stop") | .ts"#)
        let joins = try Self.jq(["\(dir)/cap"], #"select(.event == "joined") | .ts"#)
        let gap = try Self.jq(["\(dir)/cap"], #"select(.type == "gap") | [.from, .to]"#)
        #expect(stops.count == 2 && joins.count == 2 && gap.count == 1)
        if stops.count == 2 && joins.count == 2 {
            #expect(gap == ["[\(stops[0]),\(joins[1])]"])
        }
        // 2. A run killed without stop: the next run says so, and the gap starts at its last line.
        let killed = try ChatcapProcess(["capture"] + common + ["--duration", "30"])
        Thread.sleep(forTimeInterval: 2.5)
        _ = killed.stop(with: SIGKILL)
        Thread.sleep(forTimeInterval: 0.5)
        let after = try CLI.run(["capture"] + common + ["--duration", "1"])
        #expect(after.status == 0, "\(after.stderr)")
        #expect(after.stderr.contains("ended without a stop record"), "\(after.stderr)")
        records = try Self.jq(
            ["\(dir)/cap"], #"select(.type == "gap" or .type == "session") | [.type, .event // .reason, .detail]"#)
        let filtered = records.filter { r in !life.contains { r.contains($0) } }
        let k = filtered.firstIndex { $0.contains("ended_without_stop") } ?? 0
        #expect(filtered.count == k + 5, "\(filtered)")
        if filtered.count == k + 5 {
            #expect(
                filtered[k].hasPrefix(
                    #"["session","ended_without_stop","the previous capture run ended without a stop record"#),
                "\(filtered)")
            #expect(filtered[k + 1] == #"["session","start","capture of c started"]"#)
            #expect(
                filtered[k + 2]
                    == #"["gap","capture was not running (the previous run ended without a stop record)",null]"#)
            #expect(
                filtered[k + 3].hasPrefix(#"["session","joined""#) && filtered[k + 4].hasPrefix(#"["session","stop""#))
        }
        // The gap starts at the last line the killed run stored (the newest time before the restart)
        // and ends at the new run's JOIN.
        let restart = try Self.jq(["\(dir)/cap"], #"select(.type == "session" and .event == "start") | .ts"#).last ?? ""
        let rejoin = try Self.jq(["\(dir)/cap"], #"select(.type == "session" and .event == "joined") | .ts"#).last ?? ""
        let times = try CLI.shell(
            "\(CLI.shellBinary) replay '\(dir)/cap' --format irc | jq -r '.tags.time // empty' | sort")
        let lastBefore = times.text.split(separator: "\n").map(String.init).filter { "\"\($0)\"" < restart }.last
        let gapFrom = try Self.jq(["\(dir)/cap"], #"select(.type == "gap") | [.from, .to]"#)
        #expect(gapFrom.count == 3)
        #expect(gapFrom.last == "[\"\(lastBefore ?? "?")\",\(rejoin)]", "\(gapFrom) \(rejoin)")
    }

    @Test(
        "10,000 channels: the start record names the count, channels records list every channel, and replay of _session skips nothing",
        .timeLimit(.minutes(20)))
    func startOfManyChannels() throws {
        let dir = try CLITempDirectory.make("capture-many-start")
        defer { CLITempDirectory.remove(dir) }
        // Logins of 11 to 13 bytes, about Twitch's mean: 10,000 of them are some 130 KB in one list.
        let channels = (0..<10_000).map { "channel_\($0)" }
        try (channels.joined(separator: "\n") + "\n").write(
            toFile: "\(dir)/channels.txt", atomically: true, encoding: .utf8)
        try "@id=m;tmi-sent-ts=1763700000000 :u!u@u PRIVMSG #channel_0 :hi\r\n".write(
            toFile: "\(dir)/feed.irc", atomically: true, encoding: .utf8)
        let server = try ServeProcess.onFreePort(["\(dir)/feed.irc", "--speed", "1"])
        defer { server.kill() }
        let capture = try CLI.run([
            "capture", "--channels-file", "\(dir)/channels.txt", "--dir", "\(dir)/cap", "--host", "127.0.0.1",
            "--port", "\(server.port)", "--plain", "--status", "none", "--duration", "1",
        ])
        #expect(capture.status == 0, "\(capture.stderr)")
        let replay = try CLI.shell("\(CLI.shellBinary) replay '\(dir)/cap/_session' --format raw")
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(!replay.stderr.contains("skipped"), "\(replay.stderr)")
        let records = replay.text.split(separator: "\r\n").map(String.init)
        #expect(records.allSatisfy { $0.utf8.count < 16_384 }, "\(records.map(\.utf8.count).max() ?? 0) bytes")
        let start = records.filter { $0.contains(" :chatcap CAPTURE start * :") }
        #expect(
            start.count == 1
                && start[0].hasSuffix(
                    ":capture of 10000 channels started (listed in the 17 channels records that follow)"),
            "\(start.map { $0.prefix(200) })")
        let listed = records.compactMap {
            $0.split(separator: " :chatcap CAPTURE channels * :channels ").dropFirst().first
        }
        #expect(listed.count == 17)
        #expect(listed.first?.hasPrefix("1-") == true && listed.last?.contains("-10000 of 10000: ") == true)
        let names = listed.flatMap { $0.split(separator: ": ", maxSplits: 1)[1].split(separator: " ").map(String.init) }
        #expect(names == channels)
    }
}
