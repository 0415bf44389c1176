import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `capture` killed with `kill -9` again and again mid-stream, each run restarting on the files the
/// last one left open: the repair must end every unfinished member at its last flush point, so no file
/// ever holds a cut line, or a cut line with the next run's first line glued to it (issue 23: 68 of 87
/// crashed files had one before the fix). And nothing is lost silently: every message id serve played
/// while a run was joined is in a file or inside a `gap` the capture recorded (``CrashIdAudit``).
///
/// `CRASH_CYCLES` sets the number of kills (default 4 here; `make crashloop` runs 30 of each kind).
@Suite(.serialized, .timeLimit(.minutes(20))) struct CrashRepairCLITests {
    static let channels = ["pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns", "ottertech", "mossyforge"]
    static var cycles: Int { ProcessInfo.processInfo.environment["CRASH_CYCLES"].flatMap { Int($0) } ?? 4 }

    @Test(
        "kill -9 and restart, again and again: every line of every file is whole, none glued; every id served is stored or inside a gap",
        arguments: [("1", "tcp"), ("6", "tcp"), ("1", "websocket")])
    func killLoop(level: String, transport: String) throws {
        let dir = try CLITempDirectory.make("crash-loop-\(level)-\(transport)")
        // KEEP_TEST_DIRS=1 keeps the capture, what serve played (played.tsv) and the kill times (kills.txt).
        let keep = CLITempDirectory.keeps
        defer { CLITempDirectory.remove(dir) }
        let feed = "\(dir)/feed.irc"
        let generate = try InputShell.run(
            "python3 Scripts/generate_fixtures.py --lines 60000 --channels 6 --out \(InputShell.quote(feed)) 2>&1")
        try #require(generate.status == 0, "\(String(decoding: generate.output, as: UTF8.self))")
        // The chat the server can send: every stored chat line must be one of these, whole.
        let served = Set(
            try String(contentsOfFile: feed, encoding: .utf8).components(separatedBy: "\r\n").map(Self.normalised))
        let server = try ServeProcess(
            [feed, "--port", "0", "--speed", "max", "--loop"] + (transport == "websocket" ? ["--ws-port", "0"] : []))
        defer { _ = server.stop(with: SIGKILL) }
        // What serve plays, written down by a client of its own (on the TCP port whatever the capture uses).
        let recorder = try CrashIdAudit.Recorder(
            port: server.port, channels: Self.channels, path: "\(dir)/played.tsv")
        let port = transport == "websocket" ? server.webSocketPort! : server.port
        let capture = [
            "capture", "--dir", "\(dir)/cap", "--host", "127.0.0.1", "--port", "\(port)", "--plain", "--status", "none",
            "--level", level, "--transport", transport,
        ]
        var repairs = 0
        var kills: [Int64] = []
        var generator = SystemRandomNumberGenerator()
        for cycle in 0...Self.cycles {
            let before = Self.chatBytes(in: "\(dir)/cap")
            let run = try ChatcapProcess(capture + Self.channels)
            // Wait until this run writes chat (it connected, joined and repaired what the last one left),
            // then kill it at a random moment between flushes.
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline && Self.chatBytes(in: "\(dir)/cap") <= before && run.isRunning { usleep(20_000) }
            try #require(Self.chatBytes(in: "\(dir)/cap") > before, "run \(cycle) wrote no chat: \(run.stderr)")
            usleep(UInt32.random(in: 300_000...1_300_000, using: &generator))
            if run.stderr.contains("finished the gzip member an earlier run left open") { repairs += 1 }
            if cycle < Self.cycles {
                kills.append(Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
                _ = run.stop(with: SIGKILL)
            } else {
                #expect(run.stop(with: SIGINT) == 0, "the last run stops cleanly: \(run.stderr)")
            }
        }
        // The repairs ran (else the test proves nothing), and said what they dropped.
        #expect(repairs > 0, "no restart found an unfinished member to repair")
        let played = recorder.stop()

        var files = 0
        var lines = 0
        var ids = CrashIdAudit()
        for channel in Self.channels + ["_session"] {
            let folder = "\(dir)/cap/\(channel)"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".gz")
            {
                let path = "\(folder)/\(name)"
                files += 1
                #expect(
                    try InputShell.run("gzip -t \(InputShell.quote(path))").status == 0, "\(path) is not whole gzip")
                let text = try InputShell.run("zcat \(InputShell.quote(path))").output
                #expect(text.isEmpty || text.last == 0x0A, "\(path) ends in a cut line")
                for line in String(decoding: text, as: UTF8.self).components(separatedBy: "\r\n").dropLast() {
                    lines += 1
                    ids.take(Substring(line))
                    let check = Self.check(line, served: served)
                    if let problem = check {
                        Issue.record("\(path): \(problem): \(line.prefix(300))")
                        return
                    }
                }
            }
        }
        #expect(files >= Self.channels.count && lines > 1_000, "\(files) files, \(lines) lines")

        // Every id served while a run was joined: stored, or inside a gap. The kills lost messages that
        // the gaps hold (else the gaps were not put to the test).
        let audit = ids.audit(played: played, kills: kills)
        if keep {
            try kills.map { "\($0)\n" }.joined().write(toFile: "\(dir)/kills.txt", atomically: true, encoding: .utf8)
        }
        print("CrashRepairCLITests level \(level) \(transport), \(Self.cycles) kills: \(audit)")
        #expect(audit.required > 1_000 && audit.stored > 1_000, "\(audit)")
        #expect(audit.missingCount == 0, "\(audit)")
        #expect(audit.inGap > 0, "no message was lost to a kill: \(audit)")
    }

    /// Tags whose values serve rewrites (times rebased, ids derived in later passes of a looping log)
    /// have their values left out; everything else must be as sent.
    static func normalised(_ line: String) -> String {
        guard line.hasPrefix("@"), let space = line.firstIndex(of: " ") else { return line }
        let rewritten: Set<Substring> = [
            "id", "tmi-sent-ts", "rm-received-ts", "target-msg-id", "reply-parent-msg-id", "reply-thread-parent-msg-id",
            "source-id",
        ]
        let tags = line[line.index(after: line.startIndex)..<space].split(
            separator: ";", omittingEmptySubsequences: false
        )
        .map { tag in rewritten.contains(tag.prefix { $0 != "=" }) ? String(tag.prefix { $0 != "=" }) : String(tag) }
        return "@" + tags.joined(separator: ";") + line[space...]
    }

    /// Bytes of the channels' capture files on disk.
    static func chatBytes(in directory: String) -> UInt64 {
        channels.reduce(0) { $0 + chatBytes(in: directory, channel: $1) }
    }

    /// Bytes of one channel's capture files on disk.
    static func chatBytes(in directory: String, channel: String) -> UInt64 {
        let folder = "\(directory)/\(channel)"
        return (try? FileManager.default.contentsOfDirectory(atPath: folder))?.reduce(0) { total, name in
            let size = (try? FileManager.default.attributesOfItem(atPath: "\(folder)/\(name)")[.size]) as? UInt64
            return total + (size ?? 0)
        } ?? 0
    }

    /// Why `line` (as stored, without CR LF) is not a whole line: `nil` when it is.
    static func check(_ line: String, served: Set<String>) -> String? {
        guard line.hasPrefix("@time=") else { return "no time tag first" }
        guard line.components(separatedBy: "@time=").count == 2 else { return "two lines glued together" }
        // Without capture's time tag, chat is exactly a line the server sent.
        let afterTime = line.drop { $0 != ";" && $0 != " " }
        let original = afterTime.first == ";" ? "@" + afterTime.dropFirst() : String(afterTime.dropFirst())
        let words = original.split(separator: " ", maxSplits: 3)
        let command = words.first { !$0.hasPrefix("@") && !$0.hasPrefix(":") }
        if let command, ["PRIVMSG", "USERNOTICE", "CLEARCHAT", "CLEARMSG"].contains(String(command)) {
            guard served.contains(normalised(original)) else {
                return "a chat line the server never sent (cut or glued)"
            }
        }
        return nil
    }
}
