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
        var served = Set<String>()
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: feed))).withUnsafeBufferPointer { log in
            ByteSearch.forEachLine(in: log) { served.insert(Self.normalised($0)) }
        }
        // As fast as each client reads, not paced: a paced serve (`--speed 40`) closed the recorder when
        // it fell behind on a busy machine (it read Python-slow beside a debug capture), and the audit
        // then had nothing to hold the files against.
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
                var problem: String? = nil
                text.withUnsafeBufferPointer { file in
                    ByteSearch.forEachLine(in: file) { line in
                        guard problem == nil else { return }
                        lines += 1
                        ids.take(line)
                        if let why = Self.check(line, served: served) {
                            problem = "\(path): \(why): \(ByteSearch.string(line, 0..<min(300, line.count)))"
                        }
                    }
                }
                if let problem {
                    Issue.record(Comment(rawValue: problem))
                    return
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
        var line = line
        return line.withUTF8 { normalised($0) }
    }

    /// ``normalised(_:)`` of a line's bytes. Its searches are libc's (``ByteSearch``): the suite
    /// normalises every line of the feed and every stored chat line (60,000 and more a case), and in a
    /// debug build loops of its own over the bytes were most of the suite's CPU.
    static func normalised(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let n = bytes.count
        guard n > 0, bytes[0] == UInt8(ascii: "@") else { return ByteSearch.string(bytes, 0..<n) }
        let space = ByteSearch.first(UInt8(ascii: " "), in: bytes, from: 0, to: n)
        guard space < n else { return ByteSearch.string(bytes, 0..<n) }
        return String(unsafeUninitializedCapacity: n) { out in
            var count = 0
            func copy(_ range: Range<Int>) {
                guard !range.isEmpty else { return }
                memcpy(out.baseAddress! + count, bytes.baseAddress! + range.lowerBound, range.count)
                count += range.count
            }
            out[0] = UInt8(ascii: "@")
            count = 1
            // Each `;`-separated tag of `1 ..< space`, empty ones too.
            var start = 1
            while start <= space {
                let end = ByteSearch.first(UInt8(ascii: ";"), in: bytes, from: start, to: space)
                let keyEnd = ByteSearch.first(UInt8(ascii: "="), in: bytes, from: start, to: end)
                if start > 1 {
                    out[count] = UInt8(ascii: ";")
                    count += 1
                }
                let rewritten = rewrittenKeys.contains { ByteSearch.equals(bytes, start..<keyEnd, $0) }
                copy(start..<(rewritten ? keyEnd : end))
                start = end + 1
            }
            copy(space..<n)
            return count
        }
    }

    /// The tags ``normalised(_:)`` keeps only the keys of.
    static let rewrittenKeys: [[UInt8]] = [
        "id", "tmi-sent-ts", "rm-received-ts", "target-msg-id", "reply-parent-msg-id", "reply-thread-parent-msg-id",
        "source-id",
    ].map { Array($0.utf8) }

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
        var line = line
        return line.withUTF8 { check($0, served: served) }
    }

    /// ``check(_:served:)`` of a line's bytes, searched as ``normalised(_:)`` searches them.
    static func check(_ bytes: UnsafeBufferPointer<UInt8>, served: Set<String>) -> String? {
        let time: [UInt8] = Array("@time=".utf8)
        let n = bytes.count
        guard ByteSearch.equals(bytes, 0..<min(time.count, n), time) else { return "no time tag first" }
        if ByteSearch.find(time, in: bytes, from: time.count) != nil { return "two lines glued together" }
        // Without capture's time tag, chat is exactly a line the server sent.
        let end = min(
            ByteSearch.first(UInt8(ascii: ";"), in: bytes, from: time.count, to: n),
            ByteSearch.first(UInt8(ascii: " "), in: bytes, from: time.count, to: n))
        var original: [UInt8]
        if end < n && bytes[end] == UInt8(ascii: ";") {
            original = [UInt8(ascii: "@")]
            original.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[(end + 1)...]))
        } else {
            original = Array(UnsafeBufferPointer(rebasing: bytes[min(end + 1, n)...]))
        }
        return original.withUnsafeBufferPointer { line -> String? in
            // The command: the first of the first three words that is neither tags nor a prefix (the
            // rest of the line, after them, is one more word).
            var command: Range<Int>? = nil
            var i = 0
            var words = 0
            while command == nil && words < 4 {
                while i < line.count && line[i] == UInt8(ascii: " ") { i += 1 }
                guard i < line.count else { break }
                let j = words < 3 ? ByteSearch.first(UInt8(ascii: " "), in: line, from: i, to: line.count) : line.count
                if line[i] != UInt8(ascii: "@") && line[i] != UInt8(ascii: ":") { command = i..<j }
                words += 1
                i = j
            }
            guard let command, chatCommands.contains(where: { ByteSearch.equals(line, command, $0) }) else {
                return nil
            }
            return served.contains(normalised(line)) ? nil : "a chat line the server never sent (cut or glued)"
        }
    }

    /// The commands whose lines ``check(_:served:)`` finds among those served.
    static let chatCommands: [[UInt8]] = ["PRIVMSG", "USERNOTICE", "CLEARCHAT", "CLEARMSG"].map { Array($0.utf8) }

    @Test(
        "a stored line is whole when, without capture's time tag and with serve's rewritten values left out, it was served"
    )
    func lineCheck() {
        let sent = "@badges=;id=a1;tmi-sent-ts=5;color=#FF0000 :u!u@u.tmi.twitch.tv PRIVMSG #c :hi there"
        #expect(
            Self.normalised(sent) == "@badges=;id;tmi-sent-ts;color=#FF0000 :u!u@u.tmi.twitch.tv PRIVMSG #c :hi there")
        #expect(Self.normalised("@;id=x; :u PRIVMSG #c :a") == "@;id; :u PRIVMSG #c :a")
        #expect(Self.normalised(":u PRIVMSG #c :no tags") == ":u PRIVMSG #c :no tags")
        let served: Set<String> = [Self.normalised(sent)]
        let stored =
            "@time=2026-11-14T10:00:00.000Z;badges=;id=b2;tmi-sent-ts=9;color=#FF0000 :u!u@u.tmi.twitch.tv PRIVMSG #c :hi there"
        #expect(Self.check(stored, served: served) == nil)
        #expect(
            Self.check(String(stored.dropLast(3)), served: served) == "a chat line the server never sent (cut or glued)"
        )
        #expect(Self.check(String(stored.dropFirst()), served: served) == "no time tag first")
        #expect(Self.check(stored + "@time=2026-11-14T10:00:00.001Z :x", served: served) == "two lines glued together")
        #expect(Self.check(String(stored.replacing("color=#FF0000", with: "color=#00FF00")), served: served) != nil)
        // Lines other than chat are not looked up: a capture record, a JOIN.
        #expect(Self.check("@time=2026-11-14T10:00:00.000Z :chatcap CAPTURE joined #c", served: served) == nil)
        #expect(Self.check("@time=2026-11-14T10:00:00.000Z :u!u@u JOIN #c", served: served) == nil)
    }
}
