import ChatTestSupport
import Foundation
import Testing

/// `chatcap capture` against `chatcap serve` on 127.0.0.1 (processes stopped by PID, bounded time):
/// round trips through `replay`, a `kill -9` mid-stream, and a full file system.
@Suite(.serialized, .timeLimit(.minutes(20))) struct CaptureCLITests {

    static func zcat(_ path: String) throws -> String {
        String(decoding: try CLI.shell("zcat \(path) 2>/dev/null; true").stdout, as: UTF8.self)
    }

    /// The lines of `text` split on CRLF or LF.
    static func lines(_ bytes: [UInt8]) -> [[UInt8]] { FramerVerifier.oracleLines(bytes) }

    /// Strips a leading `time` tag added by capture.
    static func stripTime(_ line: String) -> String {
        guard line.hasPrefix("@time=") else { return line }
        let afterStamp = line.index(line.startIndex, offsetBy: 6 + 24)
        return line[afterStamp] == ";"
            ? "@" + line[line.index(after: afterStamp)...] : String(line[line.index(after: afterStamp)...])
    }

    @Test("serve → capture --verbatim → replay --format raw reproduces the served lines of the channel exactly")
    func verbatimRoundTrip() throws {
        let dir = try CLITempDirectory.make("capture-raw")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess.onFreePort(["Fixtures/lines/privmsg.irc", "--speed", "max", "--keep-time"])
        defer { server.kill() }
        let run = try CLI.run([
            "capture", "pixelharbor", "--dir", dir, "--host", "127.0.0.1", "--port", "\(server.port)",
            "--plain", "--verbatim", "--duration", "2", "--status", "none",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // With stderr not a terminal, the joins are said once they are settled (issue #35: nothing was).
        #expect(run.stderr.contains("chatcap: 1 of 1 channel joined in "), "\(run.stderr)")
        #expect(run.stderr.contains(" s over 1 connection\n"), "\(run.stderr)")
        let expected = try LiveServeTests.channelLines("privmsg.irc", "pixelharbor")
        let replay = try CLI.run(["replay", "--format", "raw", dir])
        #expect(replay.status == 0, "\(replay.stderr)")
        let got = Self.lines(replay.stdout).filter { !String(decoding: $0, as: UTF8.self).contains(" CAPTURE ") }
        guard let first = got.firstIndex(of: expected[0]) else {
            Issue.record("the first served line is not in the capture: \(run.stderr)")
            return
        }
        #expect(Array(got[first..<min(got.count, first + expected.count)]) == expected)
        // The channel directory holds nothing but the channel's lines (and our JOIN's replies).
        let channelOnly = try CLI.run(["replay", "--format", "raw", dir + "/pixelharbor"])
        #expect(Self.lines(channelOnly.stdout).filter { expected.contains($0) }.count == expected.count)
    }

    @Test("with the default time tag, replay --format irc gives the served atoms plus that one tag")
    func timeTagRoundTrip() throws {
        let dir = try CLITempDirectory.make("capture-irc")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess.onFreePort(["Fixtures/lines/privmsg.irc", "--speed", "max", "--keep-time"])
        defer { server.kill() }
        let before = Date().timeIntervalSince1970
        let run = try CLI.run([
            "capture", "pixelharbor", "--dir", dir, "--host", "127.0.0.1", "--port", "\(server.port)",
            "--plain", "--duration", "2", "--status", "none",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let served = try CLI.run(["replay", "--format", "irc", "Fixtures/lines/privmsg.irc"])
        let expected = served.text.split(separator: "\n").filter { $0.contains("\"#pixelharbor\"") }.map(String.init)
        let captured = try CLI.run(["replay", "--format", "irc", dir + "/pixelharbor"])
        #expect(captured.status == 0, "\(captured.stderr)")
        var got: [String] = []
        let stamp = /"time":"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)"/
        for line in captured.text.split(separator: "\n") {
            guard let m = line.firstMatch(of: stamp) else {
                Issue.record("no time tag: \(line)")
                continue
            }
            let t = ISO8601DateFormatter.withFractions.date(from: String(m.1))!.timeIntervalSince1970
            #expect(t >= before - 1 && t <= Date().timeIntervalSince1970 + 1, "receive time \(m.1)")
            var s = String(line)
            s = s.replacingOccurrences(of: "{\"tags\":{\"time\":\"\(m.1)\"},", with: "")
            s = s.replacingOccurrences(of: "\"time\":\"\(m.1)\",", with: "")
            if s.hasPrefix("{\"source\"") || s.hasPrefix("{\"verb\"") || s.hasPrefix("{\"tags\"") {
                got.append(s)
            } else {
                got.append("{" + s)
            }
        }
        got = got.map { $0.hasPrefix("{{") ? String($0.dropFirst()) : $0 }
        guard let first = got.firstIndex(of: expected[0]) else {
            Issue.record("the first served line is not in the capture:\n\(got.prefix(3))\nexpected \(expected[0])")
            return
        }
        #expect(Array(got[first..<min(got.count, first + expected.count)]) == expected)
    }

    @Test("kill -9: every line received more than 1 s before the kill is readable by zcat")
    func crashKeepsFlushedLines() throws {
        let dir = try CLITempDirectory.make("capture-crash")
        defer { CLITempDirectory.remove(dir) }
        // 20,000 numbered lines 1 ms apart, served in real time: about 1,000 lines/s.
        var text = ""
        for i in 0..<20_000 {
            text += "@id=m\(i);tmi-sent-ts=\(1_763_700_000_000 + i) :u!u@u PRIVMSG #c :\(i)\r\n"
        }
        try text.write(toFile: "\(dir)/feed.irc", atomically: true, encoding: .utf8)
        let server = try ServeProcess.onFreePort(["\(dir)/feed.irc", "--speed", "1", "--keep-time"])
        defer { server.kill() }
        let capture = try ChatcapProcess(
            [
                "capture", "c", "--dir", "\(dir)/cap", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain",
                "--status", "none", "--duration", "30",
            ])
        Thread.sleep(forTimeInterval: 3.5)
        let killedAt = Int64(Date().timeIntervalSince1970 * 1000)
        _ = capture.stop(with: SIGKILL)
        // The channel's file also holds our JOIN echo and the names list: keep the chat.
        let stored = try Self.zcat("\(dir)/cap/c/*.log.gz").split(separator: "\r\n").map(String.init)
            .filter { $0.contains(" PRIVMSG #c :") }
        try #require(stored.count > 500, "only \(stored.count) lines stored")
        // A gapless prefix of what was served …
        for (i, line) in stored.enumerated() {
            guard Self.stripTime(line) == "@id=m\(i);tmi-sent-ts=\(1_763_700_000_000 + i) :u!u@u PRIVMSG #c :\(i)"
            else {
                Issue.record("line \(i) is \(line)")
                break
            }
        }
        // … reaching to within a second of the kill (lines arrive continuously, so nothing received
        // before that point is missing).
        let last = stored.last!
        let stamp = String(last.dropFirst(6).prefix(24))
        let lastMs = Int64(ISO8601DateFormatter.withFractions.date(from: stamp)!.timeIntervalSince1970 * 1000)
        #expect(lastMs >= killedAt - 1000, "last stored line received \(killedAt - lastMs) ms before the kill")
    }

    @Test("disk full: exit 74, a message naming the file, earlier data readable")
    func diskFull() throws {
        let dir = try CLITempDirectory.make("capture-full")
        defer { CLITempDirectory.remove(dir) }
        let mountPoint = "\(dir)/small"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mount = try CLI.shell("mount -t tmpfs -o size=64k tmpfs '\(mountPoint)'")
        guard mount.status == 0 else {
            Issue.record("cannot mount a tmpfs (root needed): \(mount.stderr)")
            return
        }
        defer { _ = try? CLI.shell("umount '\(mountPoint)'") }
        var text = ""
        for i in 0..<5_000 {
            text +=
                "@id=m\(i);tmi-sent-ts=\(1_763_700_000_000 + i) :u!u@u PRIVMSG #c :\(i) \(UInt64(i) &* 0x9E37_79B9_7F4A_7C15)\r\n"
        }
        try text.write(toFile: "\(dir)/feed.irc", atomically: true, encoding: .utf8)
        let server = try ServeProcess.onFreePort(["\(dir)/feed.irc", "--speed", "max", "--loop"])
        defer { server.kill() }
        let run = try CLI.run([
            "capture", "c", "--dir", "\(mountPoint)/cap", "--host", "127.0.0.1", "--port", "\(server.port)",
            "--plain", "--status", "none", "--duration", "30",
        ])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("No space left on device"), "\(run.stderr)")
        #expect(run.stderr.contains("\(mountPoint)/cap/"), "the message names the file: \(run.stderr)")
        let stored = try Self.zcat("\(mountPoint)/cap/c/*.log.gz").split(separator: "\r\n")
            .filter { $0.contains(" PRIVMSG #c :") }
        #expect(stored.count > 100, "earlier lines readable")
        #expect(stored.allSatisfy { $0.hasPrefix("@time=") })
    }

    @Test("a directory that cannot be created is reported before connecting, exit 74")
    func badDirectory() throws {
        let dir = try CLITempDirectory.make("capture-bad")
        defer { CLITempDirectory.remove(dir) }
        try "x".write(toFile: "\(dir)/file", atomically: true, encoding: .utf8)
        // Port 9 on 127.0.0.1 refuses: a connection attempt would show up as a reconnect message.
        let run = try CLI.run([
            "capture", "c", "--dir", "\(dir)/file/cap", "--host", "127.0.0.1", "--port", "9", "--plain",
            "--duration", "5",
        ])
        #expect(run.status == 74)
        #expect(run.stderr.contains("\(dir)/file") && run.stderr.contains("Not a directory"), "\(run.stderr)")
        #expect(!run.stderr.contains("connect"), "\(run.stderr)")
    }
}

extension ISO8601DateFormatter {
    nonisolated(unsafe) static let withFractions: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }()
}
