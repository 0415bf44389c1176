import ChatTestSupport
import Foundation
import Glibc
import Testing

/// SIGHUP re-reads `--channels-file` while capture runs: the added channel is joined, the removed
/// one parted and its file finished, every other channel goes on without a gap or a reconnect.
/// `chatcap serve --loop` plays six generated channels; what it played is written down independently
/// by `Tests/Support/recent_messages_service.py record` (an IRC client of serve joined to all six).
@Suite(.serialized) struct ChannelReloadCLITests {
    static let kept = ["pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns"]

    /// The `time` tags (wall ms) of a channel's PRIVMSG and USERNOTICE lines in a capture.
    static func receiveTimes(_ dir: String, _ channel: String) throws -> [Int64] {
        let run = try CLI.run(["replay", dir + "/" + channel, "--format", "raw"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.text.split(separator: "\r\n").filter { BackfillCLITests.message($0) != nil }.map {
            BackfillCLITests.wallMs(LineTags.value("time", in: $0).map(String.init))
        }
    }

    /// Whether `gzip -t` accepts every file of a channel: each gzip member in them is finished.
    static func finished(_ dir: String) throws -> Bool {
        try CLI.shell("gzip -t '\(dir)'/*.log.gz").status == 0
    }

    /// Waits (at most `seconds`) for `condition`.
    static func wait(seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return try condition()
    }

    @Test(
        "SIGHUP with one channel added and one removed: the new one joined, the old one parted and finished, the rest without gap, reconnect or missing id; a broken file keeps the list",
        .timeLimit(.minutes(20)))
    func addAndRemove() throws {
        let dir = try CLITempDirectory.make("reload")
        defer { CLITempDirectory.remove(dir) }
        let serve = try ServeProcess([try BackfillCLITests.fixture(in: dir), "--port", "0", "--loop"])
        defer { _ = serve.stop() }
        let log = dir + "/recorded.log"
        let recorder = Process()
        _ = try startPythonServer(
            recorder,
            arguments: [BackfillCLITests.script, "record", "\(serve.port)", "100", log] + BackfillCLITests.channels,
            what: "the recorder")
        defer {
            kill(recorder.processIdentifier, SIGKILL)
            recorder.waitUntilExit()
        }

        let file = dir + "/channels.txt"
        let capturing = dir + "/capture"
        try (["# six channels, five captured"] + Self.kept + ["ottertech"]).joined(separator: "\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let capture = try ChatcapProcess([
            "capture", "--dir", capturing, "--channels-file", file, "--host", "127.0.0.1", "--port", "\(serve.port)",
            "--plain", "--status", "none", "--join-rate", "1000", "--duration", "60",
        ])
        let all = Self.kept + ["ottertech"]
        #expect(
            Self.wait(seconds: 10) { all.allSatisfy { FileManager.default.fileExists(atPath: capturing + "/" + $0) } },
            "every channel's directory: \(capture.stderr)")
        sleep(2)

        // One added, one removed.
        try (Self.kept + ["mossyforge"]).joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        capture.signal(SIGHUP)
        let said = "channel list reloaded from \(file): joining #mossyforge, parting #ottertech; 5 channels"
        #expect(capture.waitForStderr(containing: said), "\(capture.stderr)")
        // The removed channel's file is finished at once; the others stay open (an unfinished member).
        #expect(try Self.wait(seconds: 3) { try Self.finished(capturing + "/ottertech") })
        #expect(!(try Self.finished(capturing + "/pixelharbor")), "kept channels' files are not closed")
        sleep(3)

        // A file that no longer parses keeps the list in force.
        try (Self.kept + ["not a login!"]).joined(separator: "\n").write(
            toFile: file, atomically: true, encoding: .utf8)
        capture.signal(SIGHUP)
        let refused =
            "channel list not reloaded from \(file): \(file):5: 'not a login!' is not a channel login "
            + "(letters, digits and _); keeping the 5 channels in force"
        #expect(capture.waitForStderr(containing: refused), "\(capture.stderr)")
        sleep(2)
        #expect(capture.stop() == 0, "\(capture.stderr)")
        kill(recorder.processIdentifier, SIGKILL)
        recorder.waitUntilExit()

        // The records: the reload, the part, the refused reload; one connection all along.
        let records = try CLI.run(["replay", capturing, "--format", "json", "--type", "session"]).text
            .split(separator: "\n").map {
                try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        let events = records.compactMap { $0["event"] as? String }
        #expect(events.filter { $0 == "connected" }.count == 1, "no reconnect: \(events)")
        #expect(events.filter { $0 == "disconnected" }.count == 1, "only the stop: \(events)")
        let reload = try #require(records.first { $0["event"] as? String == "reload" })
        #expect(reload["detail"] as? String == said)
        let parted = try #require(records.first { $0["event"] as? String == "parted" })
        #expect(parted["channel"] as? String == "ottertech")
        #expect(
            records.first { $0["event"] as? String == "reload_failed" }?["detail"] as? String == refused,
            "\(events)")
        #expect(events.filter { $0 == "parted" }.count == 1)
        #expect(try BackfillCLITests.gaps(capturing).isEmpty, "no gap for any channel")
        let reloadedAt = BackfillCLITests.wallMs(reload["ts"])

        // serve saw the PART: its echo came back (stored in _session, a line of a channel not joined).
        let session = try CLI.run(["replay", capturing + "/_session", "--format", "raw"]).text
        #expect(session.contains(" PART #ottertech\r\n"), "serve's PART echo")

        // The removed channel: nothing received after the reload in its file, though serve went on.
        let otter = try Self.receiveTimes(capturing, "ottertech")
        #expect(otter.count > 50, "\(otter.count) ottertech lines before the reload")
        #expect(
            otter.allSatisfy { $0 <= reloadedAt }, "last ottertech line at \(otter.max() ?? 0), reload \(reloadedAt)")
        let served = BackfillCLITests.served(log)
        #expect(served.count { $0.channel == "ottertech" && $0.ms > reloadedAt + 1_000 } > 50, "serve played on")
        // The added channel: only lines received after the reload.
        let mossy = try Self.receiveTimes(capturing, "mossyforge")
        #expect(mossy.count > 50, "\(mossy.count) mossyforge lines")
        #expect(mossy.allSatisfy { $0 >= reloadedAt })
        // The others: before and after the reload, no id served between their first and last missing.
        for channel in Self.kept {
            let times = try Self.receiveTimes(capturing, channel)
            #expect(times.contains { $0 < reloadedAt } && times.contains { $0 > reloadedAt + 2_000 }, "#\(channel)")
        }
        let audit = try BackfillCLITests.audit(capturing, served: served)
        #expect(audit.captured > 1_000, "\(audit)")
        #expect(audit.missing == 0, "\(audit)")
        #expect(audit.doubled == 0, "\(audit)")
        // The PART echo at least (and any ottertech line serve sent before it had the PART).
        #expect(capture.stderr.contains(" lines of channels not joined stored in _session"), "\(capture.stderr)")
    }

    @Test(
        "--shard still applies at a reload: only the shard's new channels are joined; a file that leaves the shard none, or cannot be read, keeps the list",
        .timeLimit(.minutes(20)))
    func shardKept() throws {
        let dir = try CLITempDirectory.make("reload-shard")
        defer { CLITempDirectory.remove(dir) }
        let serve = try ServeProcess([try BackfillCLITests.fixture(in: dir), "--port", "0", "--loop"])
        defer { _ = serve.stop() }
        // Shard 1 of 2 (crc32 % 2 == 0): lunafrost and mossyforge; pixelharbor, grimfang_tv, ottertech are shard 2.
        let file = dir + "/channels.txt"
        try "lunafrost\npixelharbor\n".write(toFile: file, atomically: true, encoding: .utf8)
        let capturing = dir + "/capture"
        // Under systemd: STATUS= counts the channels of the list in force.
        let notify = try NotifyListener()
        defer { notify.stop() }
        let capture = try ChatcapProcess(
            [
                "capture", "--dir", capturing, "--channels-file", file, "--shard", "1/2", "--host", "127.0.0.1",
                "--port", "\(serve.port)", "--plain", "--status", "none", "--status-interval", "0.2", "--join-rate",
                "1000", "--duration", "60",
            ], environment: ["NOTIFY_SOCKET": notify.name])
        #expect(Self.wait(seconds: 10) { FileManager.default.fileExists(atPath: capturing + "/lunafrost") })
        #expect(notify.wait(seconds: 5) { $0.hasPrefix("STATUS=1 of 1 channels joined") } != nil)
        try "lunafrost\npixelharbor\nmossyforge\nottertech\ngrimfang_tv\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        capture.signal(SIGHUP)
        #expect(
            capture.waitForStderr(
                containing: "channel list reloaded from \(file) (shard 1/2): joining #mossyforge; 2 channels"),
            "\(capture.stderr)")
        #expect(Self.wait(seconds: 10) { FileManager.default.fileExists(atPath: capturing + "/mossyforge") })
        #expect(
            notify.wait(seconds: 5) { $0.hasPrefix("STATUS=2 of 2 channels joined") } != nil,
            "\(notify.datagrams.map(\.text).suffix(3))")
        try "pixelharbor\nottertech\n".write(toFile: file, atomically: true, encoding: .utf8)
        capture.signal(SIGHUP)
        #expect(
            capture.waitForStderr(
                containing: "channel list not reloaded from \(file): shard 1/2 keeps none of the 2 channels listed; "
                    + "keeping the 2 channels in force"), "\(capture.stderr)")
        // A file that cannot be read keeps it too.
        try FileManager.default.removeItem(atPath: file)
        capture.signal(SIGHUP)
        #expect(
            capture.waitForStderr(
                containing: "channel list not reloaded from \(file): --channels-file: cannot read \(file): "
                    + "No such file or directory; keeping the 2 channels in force"), "\(capture.stderr)")
        sleep(1)
        #expect(capture.stop() == 0, "\(capture.stderr)")
        let channels = try FileManager.default.contentsOfDirectory(atPath: capturing).filter { !$0.hasPrefix("_") }
        #expect(channels.sorted() == ["lunafrost", "mossyforge"])
        #expect(!capture.stderr.contains("parted"), "\(capture.stderr)")
    }

    @Test(
        "tail: SIGHUP joins the added channels (one on a new connection when the first is full) and parts the removed one, without a reconnect",
        .timeLimit(.minutes(20)))
    func tailReload() throws {
        let dir = try CLITempDirectory.make("reload-tail")
        defer { CLITempDirectory.remove(dir) }
        let serve = try ServeProcess([try BackfillCLITests.fixture(in: dir), "--port", "0", "--loop"])
        defer { _ = serve.stop() }
        let file = dir + "/channels.txt"
        try "pixelharbor\n".write(toFile: file, atomically: true, encoding: .utf8)
        let output = dir + "/tail.json"
        let tail = try ChatcapProcess(
            [
                "tail", "--channels-file", file, "--channels-per-connection", "2", "--host", "127.0.0.1", "--port",
                "\(serve.port)", "--plain", "--format", "json", "--join-rate", "1000", "--duration", "60",
            ], stdoutFile: output)
        #expect(tail.waitForStderr(containing: "1 of 1 channel joined"), "\(tail.stderr)")
        try "pixelharbor\nlunafrost\nottertech\n".write(toFile: file, atomically: true, encoding: .utf8)
        tail.signal(SIGHUP)
        #expect(
            tail.waitForStderr(
                containing: "channel list reloaded from \(file): joining #lunafrost #ottertech; 3 channels"),
            "\(tail.stderr)")
        #expect(tail.waitForStderr(containing: "joined #ottertech"), "\(tail.stderr)")
        sleep(2)
        try "lunafrost\nottertech\n".write(toFile: file, atomically: true, encoding: .utf8)
        tail.signal(SIGHUP)
        #expect(
            tail.waitForStderr(containing: "channel list reloaded from \(file): parting #pixelharbor; 2 channels"),
            "\(tail.stderr)")
        sleep(3)
        #expect(tail.stop() == 0, "\(tail.stderr)")

        let objects = try (String(contentsOfFile: output, encoding: .utf8)).split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let sessions = objects.filter { $0["type"] as? String == "session" }
        let events = sessions.compactMap { $0["event"] as? String }
        #expect(events.filter { $0 == "connected" }.count == 2, "the first connection and one for ottertech: \(events)")
        #expect(events.filter { $0 == "disconnected" }.count == 2, "both stopped at the end, nothing else: \(events)")
        #expect(!objects.contains { $0["type"] as? String == "gap" })
        let parted = try #require(sessions.first { $0["event"] as? String == "parted" })
        #expect(parted["channel"] as? String == "pixelharbor")
        let partedAt = BackfillCLITests.wallMs(parted["ts"])
        let chat = { (channel: String) in
            objects.filter { $0["type"] as? String == "privmsg" && $0["channel"] as? String == channel }
                .map { BackfillCLITests.wallMs($0["ts"]) }
        }
        #expect(chat("lunafrost").count > 50 && chat("ottertech").count > 50)
        #expect(chat("pixelharbor").contains { $0 < partedAt })
        #expect(!chat("pixelharbor").contains { $0 > partedAt + 1_000 }, "no pixelharbor chat sent after the PART")
    }

    @Test(
        "a SIGHUP while the file is being rewritten waits until it is whole: nothing parted, the added channel joined (issue #35 R8)",
        .timeLimit(.minutes(20)))
    func reloadWhileRewritten() throws {
        let dir = try CLITempDirectory.make("reload-torn")
        defer { CLITempDirectory.remove(dir) }
        let serve = try ServeProcess([try BackfillCLITests.fixture(in: dir), "--port", "0", "--loop"])
        defer { _ = serve.stop() }
        let file = dir + "/channels.txt"
        let five = Self.kept + ["ottertech"]
        try (five.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let tail = try ChatcapProcess(
            [
                "tail", "--channels-file", file, "--host", "127.0.0.1", "--port", "\(serve.port)", "--plain",
                "--format",
                "raw", "--join-rate", "1000", "--duration", "60",
            ], stdoutFile: dir + "/tail.irc")
        #expect(tail.waitForStderr(containing: "5 of 5 channels joined"), "\(tail.stderr)")
        // Rewritten in place, as `cat new > list` or a script writing line by line does: truncated,
        // two lines, the signal, then the rest a moment later.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data((five.prefix(2).joined(separator: "\n") + "\n").utf8))
        tail.signal(SIGHUP)
        usleep(150_000)
        try handle.write(contentsOf: Data((five.dropFirst(2).joined(separator: "\n") + "\nmossyforge\n").utf8))
        try handle.close()
        #expect(
            tail.waitForStderr(containing: "channel list reloaded from \(file): joining #mossyforge; 6 channels"),
            "\(tail.stderr)")
        #expect(!tail.stderr.contains("parting"), "a torn list was applied: \(tail.stderr)")
        #expect(tail.stop() == 0, "\(tail.stderr)")
    }

    @Test(
        "after a reload, reconnects rejoin the added channel and not the removed one",
        .timeLimit(.minutes(20)))
    func rejoinsAfterReload() throws {
        let dir = try CLITempDirectory.make("reload-rejoin")
        defer { CLITempDirectory.remove(dir) }
        // serve closes every connection after 400 lines (about a second of the six channels).
        let serve = try ServeProcess([
            try BackfillCLITests.fixture(in: dir), "--port", "0", "--loop", "--drop-after", "400",
        ])
        defer { _ = serve.stop() }
        let file = dir + "/channels.txt"
        try "pixelharbor\nottertech\n".write(toFile: file, atomically: true, encoding: .utf8)
        let capturing = dir + "/capture"
        let capture = try ChatcapProcess([
            "capture", "--dir", capturing, "--channels-file", file, "--host", "127.0.0.1", "--port", "\(serve.port)",
            "--plain", "--status", "none", "--join-rate", "1000", "--reconnect-base", "0.05", "--reconnect-max", "0.1",
            "--duration", "60",
        ])
        #expect(Self.wait(seconds: 10) { FileManager.default.fileExists(atPath: capturing + "/ottertech") })
        try "pixelharbor\nmossyforge\n".write(toFile: file, atomically: true, encoding: .utf8)
        capture.signal(SIGHUP)
        #expect(
            capture.waitForStderr(
                containing: "channel list reloaded from \(file): joining #mossyforge, parting #ottertech; 2 channels"),
            "\(capture.stderr)")
        sleep(5)
        #expect(capture.stop() == 0, "\(capture.stderr)")

        let records = try CLI.run(["replay", capturing, "--format", "json", "--type", "session"]).text
            .split(separator: "\n").map {
                try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
            }
        let reload = try #require(records.firstIndex { $0["event"] as? String == "reload" })
        let after = records[reload...]
        let joins = { (channel: String) in
            after.count { $0["event"] as? String == "joined" && $0["channel"] as? String == channel }
        }
        let connections = after.count { $0["event"] as? String == "connected" }
        #expect(connections >= 2, "serve dropped the connection at least twice after the reload: \(connections)")
        // Joined at the reload (unless the connection was down then), and on every connection after it
        // (but a last one the stop cut short of its JOIN echoes).
        #expect((connections - 1)...(connections + 1) ~= joins("mossyforge"), "\(joins("mossyforge"))")
        #expect((connections - 1)...connections ~= joins("pixelharbor"), "\(joins("pixelharbor"))")
        #expect(joins("ottertech") == 0, "never rejoined")
        // Nor asked for: serve echoes a JOIN of ours (anonymous: justinfan…), which would land in _session.
        let session = try CLI.run(["replay", capturing + "/_session", "--format", "raw"]).text
        #expect(
            !session.split(separator: "\r\n").contains {
                $0.contains(" :justinfan") && $0.hasSuffix(" JOIN #ottertech")
            },
            "no JOIN of ottertech after the reload")
        // A gap of ottertech open at the reload (the connection was down) ends there; none after it.
        let reloadedAt = BackfillCLITests.wallMs(records[reload]["ts"])
        let otterGaps = try BackfillCLITests.gaps(capturing).filter { $0["channel"] as? String == "ottertech" }
        #expect(otterGaps.allSatisfy { BackfillCLITests.wallMs($0["to"]) <= reloadedAt }, "\(otterGaps)")
    }

    @Test(
        "--reload-on-change: a change of the file reloads without a signal, once; a broken file is said once",
        .timeLimit(.minutes(20)))
    func reloadOnChange() throws {
        let dir = try CLITempDirectory.make("reload-change")
        defer { CLITempDirectory.remove(dir) }
        let serve = try ServeProcess([try BackfillCLITests.fixture(in: dir), "--port", "0", "--loop"])
        defer { _ = serve.stop() }
        let file = dir + "/channels.txt"
        try "pixelharbor\nottertech\n".write(toFile: file, atomically: true, encoding: .utf8)
        let capturing = dir + "/capture"
        let capture = try ChatcapProcess([
            "capture", "--dir", capturing, "--channels-file", file, "--reload-on-change", "0.2", "--host",
            "127.0.0.1", "--port", "\(serve.port)", "--plain", "--status", "none", "--join-rate", "1000",
            "--duration", "60",
        ])
        #expect(Self.wait(seconds: 10) { FileManager.default.fileExists(atPath: capturing + "/ottertech") })
        // A rename over the file, as editors and ConfigMap updates do.
        try "pixelharbor\nmossyforge\n".write(toFile: file, atomically: true, encoding: .utf8)
        let said = "channel list reloaded from \(file): joining #mossyforge, parting #ottertech; 2 channels"
        #expect(capture.waitForStderr(containing: said), "\(capture.stderr)")
        #expect(Self.wait(seconds: 10) { FileManager.default.fileExists(atPath: capturing + "/mossyforge") })
        // Written in place, broken: said once, however many looks follow.
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("pixelharbor\nmossy forge\n".utf8))
        try handle.close()
        #expect(capture.waitForStderr(containing: "channel list not reloaded from \(file): \(file):2:"))
        sleep(2)
        #expect(capture.stop() == 0, "\(capture.stderr)")
        let lines = capture.stderr.split(separator: "\n")
        #expect(lines.count { $0.contains("channel list reloaded") } == 1, "\(capture.stderr)")
        #expect(lines.count { $0.contains("channel list not reloaded") } == 1, "\(capture.stderr)")
    }
}
