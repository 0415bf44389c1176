import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `capture --opt-out FILE`: the lines of the channels and users it lists are not written, nor served
/// by `--http-port`'s logs API; a SIGHUP reads the file again. A second capture without the list,
/// beside it on the same `chatcap serve --loop`, is the control: it shows the withheld lines were sent,
/// and that nothing else was lost.
@Suite(.serialized) struct CaptureOptOutCLITests {
    /// A frequent `user-id` of the fixture that is no channel's `room-id` (its lines are spread over the
    /// whole loop; the most frequent, 164272509, is #pixelharbor's own id: listing it withholds the channel).
    static let userId = "585885835"

    /// `(time ms, id, channel, line)` of every PRIVMSG and USERNOTICE of a capture.
    static func messages(_ dir: String) throws -> [(time: Int64, id: Substring, channel: Substring, line: Substring)] {
        let run = try CLI.run(["replay", dir, "--format", "raw"])
        #expect(run.status == 0, "\(run.stderr)")
        return run.text.split(separator: "\r\n").compactMap { line in
            guard let message = BackfillCLITests.message(line) else { return nil }
            return (
                BackfillCLITests.wallMs(LineTags.value("time", in: line).map(String.init)), message.id,
                message.channel, line
            )
        }
    }

    @Test(
        "listed channels and users are never written nor served; SIGHUP adds a channel from then on; the control capture got them all; a bad file is exit 66",
        .timeLimit(.minutes(20)))
    func withheld() throws {
        let dir = try CLITempDirectory.make("optout")
        defer { CLITempDirectory.remove(dir) }
        let fixture = try BackfillCLITests.fixture(in: dir)
        let sent = try String(contentsOfFile: fixture, encoding: .utf8)
        #expect(sent.components(separatedBy: "user-id=\(Self.userId)").count > 10, "the user speaks in the fixture")
        let serve = try ServeProcess([fixture, "--port", "0", "--loop"])
        defer { _ = serve.stop() }
        let file = dir + "/optout.txt"
        try "# opted out\r\nOtterTech\r\n\(Self.userId)\r\n".write(toFile: file, atomically: true, encoding: .utf8)
        let common = [
            "--host", "127.0.0.1", "--port", "\(serve.port)", "--plain", "--status", "none", "--join-rate", "1000",
            "--duration", "60",
        ]
        let control = try ChatcapProcess(["capture", "--dir", dir + "/control"] + BackfillCLITests.channels + common)
        let capture = try ChatcapProcess(
            ["capture", "--dir", dir + "/capture", "--opt-out", file, "--http-port", "0"] + BackfillCLITests.channels
                + common)
        #expect(capture.waitForStderr(containing: "6 of 6 channels joined", timeoutMs: 20_000), "\(capture.stderr)")
        let url = try #require(capture.stderr.firstMatch(of: #/listening on (http://127\.0\.0\.1:\d+)/#)).1
        sleep(9)
        // Over HTTP: the channel and the user are refused, another channel is served.
        func status(_ path: String) throws -> String {
            try CLI.shell("curl -s -o /dev/null -w '%{http_code}' '\(url)\(path)'").text
        }
        #expect(try status("/channel/ottertech") == "403")
        #expect(try status("/channel/pixelharbor/userid/\(Self.userId)") == "403")
        #expect(try status("/channel/pixelharbor") == "303", "another channel: to its latest day")
        #expect(try status("/channels") == "200")
        let channels = try CLI.shell("curl -s '\(url)/channels'").text
        #expect(channels.contains("pixelharbor") && !channels.contains("ottertech"), "\(channels)")

        try "ottertech\n\(Self.userId)\nlunafrost\n".write(toFile: file, atomically: true, encoding: .utf8)
        capture.signal(SIGHUP)
        #expect(
            capture.waitForStderr(containing: "opt-out reloaded: 2 logins, 1 ids", timeoutMs: 10_000),
            "\(capture.stderr)")
        let reloaded = Int64(Date().timeIntervalSince1970 * 1000)
        sleep(6)
        #expect(try status("/channel/lunafrost") == "403")
        #expect(capture.stop(with: SIGINT) == 0, "\(capture.stderr)")
        #expect(control.stop(with: SIGINT) == 0, "\(control.stderr)")

        let captured = try Self.messages(dir + "/capture")
        let all = try Self.messages(dir + "/control")
        #expect(captured.count > 1_000 && all.count > captured.count, "\(captured.count) of \(all.count)")
        let ofUser = { (m: (time: Int64, id: Substring, channel: Substring, line: Substring)) in
            LineTags.value("user-id", in: m.line) == Substring(Self.userId)
        }
        #expect(all.contains(where: ofUser), "the control received the user's lines")
        #expect(!captured.contains(where: ofUser), "no line of the opted-out user")
        #expect(all.contains { $0.channel == "ottertech" } && !captured.contains { $0.channel == "ottertech" })
        #expect(!FileManager.default.fileExists(atPath: dir + "/capture/ottertech"), "no file of the channel")
        // lunafrost: written until the reload, none after it (a second for the reload to be read).
        #expect(captured.contains { $0.channel == "lunafrost" && $0.time < reloaded - 3_000 })
        #expect(!captured.contains { $0.channel == "lunafrost" && $0.time > reloaded + 1_000 })
        #expect(all.contains { $0.channel == "lunafrost" && $0.time > reloaded + 1_000 })
        // Nothing else lost: the control's other lines while both ran are all in the capture. A listed
        // login is also a user (a channel's owner speaking in another channel, as in shared chat).
        let start = (captured.map(\.time).min() ?? 0) + 2_000
        let end = (captured.map(\.time).max() ?? 0) - 2_000
        let ids = Set(captured.map(\.id))
        let listed = ["ottertech", "lunafrost"]
        let isListed = { (m: (time: Int64, id: Substring, channel: Substring, line: Substring)) in
            let login = LineTags.value("login", in: m.line) ?? m.line.firstMatch(of: #/ :([a-z0-9_]+)!/#)?.1
            return listed.contains(String(m.channel)) || listed.contains(String(login ?? "")) || ofUser(m)
        }
        let inWindow = all.filter { $0.time > start && $0.time < end }
        let missing = inWindow.filter { !isListed($0) && !ids.contains($0.id) }
        #expect(
            missing.isEmpty && inWindow.count > 1_000,
            "\(missing.count) of the control's \(inWindow.count) lines in the window not captured: \(missing.prefix(3))"
        )
        // Counted (at least the control's listed messages while both ran), the reload recorded in _session.
        let count = capture.stderr.firstMatch(of: #/(\d+) lines withheld by --opt-out/#).map { Int($0.1) ?? 0 } ?? 0
        let withheldInWindow = inWindow.filter { isListed($0) && !ids.contains($0.id) }.count
        #expect(withheldInWindow > 100 && count >= withheldInWindow, "\(count), \(withheldInWindow): \(capture.stderr)")
        let session = try CLI.shell("zcat '\(dir)/capture/_session/'*.log.gz | grep -c 'opt-out reloaded'")
        #expect(session.text.hasPrefix("1"), "\(session.text)")

        // A file that is not a list: said, exit 66, nothing started.
        try "fine\nnot a login!\n".write(toFile: file, atomically: true, encoding: .utf8)
        let bad = try CLI.run(["capture", "--dir", dir + "/bad", "--opt-out", file, "x"] + common)
        #expect(bad.status == 66, "\(bad.stderr)")
        #expect(bad.stderr.contains("--opt-out \(file): line 2: 'not a login!'"), "\(bad.stderr)")
    }
}
