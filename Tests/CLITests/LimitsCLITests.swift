import ChatTestSupport
import Foundation
import Glibc
import Testing

/// Issue #12 items 6 and 14, end to end: lines of channels past the store's channel limit are written
/// or counted as dropped, always in the summary, and the exit status says so; `--report-limit N`
/// (0 for all) sets how many problems are described one by one.
@Suite(.timeLimit(.minutes(20))) struct LimitsCLITests {
    /// A file of `channels` channels × `rounds` lines (channel c of round r is line
    /// `r * channels + c + 1`), CRLF-terminated.
    static func chat(_ dir: InputTempDirectory, channels: Int, rounds: Int) throws -> (path: String, lines: [String]) {
        var lines: [String] = []
        lines.reserveCapacity(channels * rounds)
        for r in 0..<rounds { for c in 0..<channels { lines.append(":u!u@u PRIVMSG #c\(c) :line \(r)") } }
        let path = try dir.write("chat.irc", Array(lines.map { $0 + "\r\n" }.joined().utf8))
        return (path, lines)
    }

    /// Output lines without their CRLF.
    static func rawLines(_ run: CLIRun) -> [String] {
        run.text.split(separator: "\r\n").map(String.init)
    }

    /// Stderr lines that report a line of `file`.
    static func reports(_ run: CLIRun, _ file: String = "chat.irc") -> [Substring] {
        run.stderr.split(separator: "\n").filter { $0.contains("\(file):") }
    }

    @Test(
        "replay of 262,145 channels, one past the store's real limit: all 262,145 lines written, the last one counted as untracked, --strict exits 65"
    )
    func realChannelLimit() throws {
        let dir = try InputTempDirectory()
        let chat = try Self.chat(dir, channels: 262_145, rounds: 1)
        let run = try CLI.run(["replay", chat.path, "--format", "raw", "--strict"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.lineCount == 262_145)
        #expect(Self.rawLines(run).last == ":u!u@u PRIVMSG #c262144 :line 0")
        #expect(
            run.stderr.contains(
                "chat.irc:262145: channel #c262144 is past the limit of 262144 channels: written without moderation or de-duplication"
            ), "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "summary: 262145 lines read, 262145 written, 1 untracked (channels past the limit of 262144: no moderation or de-duplication)"
            ), "\(run.stderr)")
    }

    @Test(
        "replay --channel-limit 64 of 70 channels: 140 of 140 lines written in order, 12 reported and counted untracked"
    )
    func replayPastLimit() throws {
        let dir = try InputTempDirectory()
        let chat = try Self.chat(dir, channels: 70, rounds: 2)
        let summary =
            "chatcap: summary: 140 lines read, 140 written, 12 untracked (channels past the limit of 64: no moderation or de-duplication)"
        let run = try CLI.run(["replay", chat.path, "--format", "raw", "--channel-limit", "64"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.rawLines(run) == chat.lines)
        #expect(run.stderr.split(separator: "\n").contains(Substring(summary)), "\(run.stderr)")
        let reported = Self.reports(run)
        #expect(reported.count == 12, "\(run.stderr)")
        for (line, report) in zip([65, 66, 67, 68, 69, 70, 135, 136, 137, 138, 139, 140], reported) {
            #expect(report.contains("chat.irc:\(line): channel #c"), "\(report)")
        }

        let strict = try CLI.run(["replay", chat.path, "--format", "raw", "--channel-limit", "64", "--strict"])
        #expect(strict.status == 65, "\(strict.stderr)")
        #expect(strict.lineCount == 140)

        // Held for moderation (one entry per ring: every line pushes the previous one out): still
        // every line, in input order.
        let held = try CLI.run([
            "replay", chat.path, "--format", "json", "--with-raw", "--channel-limit", "64", "--apply-moderation",
            "--capacity", "1",
        ])
        #expect(held.status == 0, "\(held.stderr)")
        let heldRaw = held.text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["raw"] as? String
        }
        #expect(heldRaw == chat.lines)
        #expect(held.stderr.split(separator: "\n").contains(Substring(summary)), "\(held.stderr)")
    }

    @Test(
        "dump --channel-limit 64 of 70 channels: 64 windows (128 lines), the 12 lines past the limit counted as dropped, exit 65"
    )
    func dumpPastLimit() throws {
        let dir = try InputTempDirectory()
        let chat = try Self.chat(dir, channels: 70, rounds: 2)
        let run = try CLI.run(["dump", chat.path, "--channel-limit", "64"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.lineCount == 128)
        #expect(
            run.stderr.contains(
                "chatcap: summary: 140 lines read, 128 written, 12 dropped (channels past the limit of 64)"),
            "\(run.stderr)")
        #expect(run.stderr.contains("chatcap: error: 12 lines were not kept (see the summary)"), "\(run.stderr)")
        #expect(Self.reports(run).count == 12, "\(run.stderr)")
        #expect(run.stderr.contains("chat.irc:65: channel #c64 is past the limit of 64 channels: dropped"))
    }

    @Test("--channel-limit outside 1…262144 is a usage error")
    func channelLimitRange() throws {
        for value in ["0", "262145"] {
            let run = try CLI.run(["replay", "Fixtures/lines/privmsg.irc", "--channel-limit", value])
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stderr.contains("--channel-limit must be 1 to 262144"), "\(run.stderr)")
        }
    }

    // MARK: --report-limit

    /// 30 malformed lines between two good ones (lines 2 to 31).
    static func malformed(_ dir: InputTempDirectory) throws -> String {
        let lines = [":u!u@u PRIVMSG #a :first"] + (0..<30).map { _ in "@bad" } + [":u!u@u PRIVMSG #a :last"]
        return try dir.write("bad.irc", Array(lines.map { $0 + "\r\n" }.joined().utf8))
    }

    static let onlyCounted = "chatcap: (further problems are only counted; see the summary)"

    @Test(
        "replay and dump --report-limit 0 describe all 30 problems; 3 describe three, then say the rest are only counted"
    )
    func reportLimit() throws {
        let dir = try InputTempDirectory()
        let path = try Self.malformed(dir)
        for command in ["replay", "dump"] {
            let all = try CLI.run([command, path, "--report-limit", "0"])
            #expect(all.status == 0, "\(command): \(all.stderr)")
            let reported = Self.reports(all, "bad.irc")
            #expect(reported.count == 30, "\(command): \(all.stderr)")
            for (i, report) in reported.enumerated() {
                #expect(report.hasPrefix("chatcap: \(path):\(i + 2): malformed line"), "\(command): \(report)")
            }
            #expect(!all.stderr.contains("only counted"), "\(command)")
            #expect(all.stderr.contains("summary: 2 lines read"), "\(command): \(all.stderr)")
            #expect(all.stderr.contains("30 malformed"), "\(command): \(all.stderr)")

            let three = try CLI.run([command, path, "--report-limit", "3"])
            #expect(three.status == 0, "\(command): \(three.stderr)")
            #expect(Self.reports(three, "bad.irc").count == 3, "\(command): \(three.stderr)")
            let lines = three.stderr.split(separator: "\n").map(String.init)
            #expect(lines.filter { $0 == Self.onlyCounted }.count == 1, "\(command): \(three.stderr)")
            #expect(lines.firstIndex(of: Self.onlyCounted) == 3, "\(command): \(three.stderr)")

            let standard = try CLI.run([command, path])
            #expect(Self.reports(standard, "bad.irc").count == 20, "\(command): \(standard.stderr)")
            #expect(standard.stderr.contains(Self.onlyCounted), "\(command)")
        }
    }

    @Test("stats --report-limit: 0 lists all 30 problems, 3 lists three and counts the rest, 100 by default")
    func statsReportLimit() throws {
        let dir = try InputTempDirectory()
        let path = try Self.malformed(dir)
        for (args, listed) in [(["--report-limit", "0"], 30), (["--report-limit", "3"], 3), ([], 30)] {
            let json = try CLI.shell(
                "\(CLI.shellBinary) stats '\(path)' --json \(args.joined(separator: " ")) | jq -c '[.malformed, (.problems | length)]'"
            )
            #expect(json.text == "[30,\(listed)]\n", "\(args): \(json.stderr)")
        }
        let text = try CLI.run(["stats", path, "--report-limit", "3"])
        #expect(text.status == 0)
        #expect(text.text.contains("  … and 27 more\n"), "\(text.text)")
        // The default itself: 30 problems are all listed under any limit of 30 or more, so 150 of them.
        let many = try dir.write("many.irc", Array(Array(repeating: "@bad\r\n", count: 150).joined().utf8))
        let byDefault = try CLI.shell(
            "\(CLI.shellBinary) stats '\(many)' --json | jq -c '[.malformed, (.problems | length)]'")
        #expect(byDefault.text == "[150,100]\n", "\(byDefault.text) \(byDefault.stderr)")
    }

    @Test("--report-limit -1 is a usage error (64) with a clear message, in every command that has it")
    func negativeReportLimit() throws {
        let commands: [[String]] = [
            ["replay", "Fixtures/lines/privmsg.irc"], ["dump", "Fixtures/lines/privmsg.irc"],
            ["stats", "Fixtures/lines/privmsg.irc"], ["tail", "somechannel"], ["watch", "Fixtures/lines/privmsg.irc"],
        ]
        for command in commands {
            let run = try CLI.run(command + ["--report-limit=-1"])
            #expect(run.status == 64, "\(command): \(run.stderr)")
            #expect(
                run.stderr.contains("--report-limit must be 0 (describe every problem) or a positive count, not -1"),
                "\(command): \(run.stderr)")
            let spaced = try CLI.run(command + ["--report-limit", "-1"])
            #expect(spaced.status == 64, "\(command): \(spaced.stderr)")
            #expect(spaced.stderr.contains("--report-limit"), "\(command): \(spaced.stderr)")
        }
    }

    @Test("help: every command with --report-limit states its default and that 0 describes all")
    func help() throws {
        for (command, standard) in [("replay", 20), ("dump", 20), ("stats", 100), ("tail", 20), ("watch", 20)] {
            let run = try CLI.run([command, "--help"])
            #expect(run.status == 0)
            let help = run.text.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
            #expect(help.contains("--report-limit <n>"), "\(command): \(run.text)")
            #expect(help.contains("0 describes all. (default: \(standard))"), "\(command): \(run.text)")
            #expect(help.contains("only counted"), "\(command)")
            #expect(!help.contains("--channel-limit"), "\(command): the test-only option is hidden")
        }
    }

    @Test("replay --memory-report (hidden, for make bench) says what the rings hold: 70 channels, 140 lines")
    func memoryReport() throws {
        let dir = try InputTempDirectory()
        let chat = try Self.chat(dir, channels: 70, rounds: 2)
        let run = try CLI.run(["replay", chat.path, "--format", "raw", "--memory-report"])
        #expect(run.status == 0 && Self.rawLines(run) == chat.lines, "\(run.stderr)")
        let report = run.stderr.split(separator: "\n").filter { $0.hasPrefix("chatcap: memory: ") }
        #expect(report.count == 1, "\(run.stderr)")
        #expect(report.first?.hasPrefix("chatcap: memory: 70 channels, 140 entries, 0.0 MB of lines held") == true)
        let help = try CLI.run(["replay", "--help"])
        #expect(!help.text.contains("--memory-report"), "hidden from --help")
    }
}
