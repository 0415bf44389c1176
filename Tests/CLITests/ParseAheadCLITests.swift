import ChatTestSupport
import Foundation
import Testing

/// `replay`, `dump` and `stats` with `--parse-ahead on` and `off`: the same output, diagnostics and
/// exit status byte for byte; and a reader that goes away (`| head -1`) ends the run promptly, the
/// reader thread with it.
@Suite(.timeLimit(.minutes(20))) struct ParseAheadCLITests {
    /// Inputs with a bit of everything: every fixture log, a generated log and its gzip, a damaged
    /// gzip, an empty file.
    final class Inputs: @unchecked Sendable {  // immutable after init
        let dir: InputTempDirectory
        let paths: [String]

        init() throws {
            dir = try InputTempDirectory.removedAtExit("parse-ahead-cli")
            let generated = sampleChatLines(5000, channel: "gen", start: 1_763_699_000_000, text: "generated")
            let plain = try dir.write("gen.log", generated)
            let zipped = try dir.write(
                "gen2.log", sampleChatLines(3000, channel: "zip", start: 1_763_699_000_500, text: "zipped"))
            let gzip = try InputShell.run("gzip " + InputShell.quote(zipped))
            precondition(gzip.status == 0, "gzip: \(gzip.errors)")
            let gz = zipped + ".gz"
            let compressed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: gz)))
            let damaged = try dir.write("cut.log.gz", Array(compressed[0..<(compressed.count / 2)]))
            let empty = try dir.write("empty.log", [])
            let fixtures = try Fixtures.lineFiles().map { "Fixtures/lines/" + $0 }
            paths = fixtures + [plain, gz, damaged, empty]
            // One lane (the reader thread frames, both threads parse): every fixture log in one file,
            // then a dated day file of the generated chat after it, read one after the other.
            var joined: [UInt8] = []
            for path in fixtures { joined += [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
            // A CR inside a line (its warning comes right before it) and a line without a time.
            joined += Array(":u!u@u PRIVMSG #c :bare\rcr\r\n:u!u@u PRIVMSG #c :untimed\r\n".utf8)
            let day1 = try dir.write("2025-11-20.log", joined)
            let day2 = try dir.write("2025-11-21.log", generated)
            oneLane = [day1, day2]
        }

        /// Inputs read as one lane.
        let oneLane: [String]
    }

    static let inputs = Result { try Inputs() }

    static let commands: [[String]] = [
        ["replay", "--format", "json", "--report-limit", "0"],
        ["replay", "--format", "raw"],
        ["replay", "--format", "irc"],
        ["replay", "--format", "text", "--color", "never", "--apply-moderation"],
        ["dump", "--with-raw"],
        ["stats"],
        ["stats", "--json"],
    ]

    @Test("the same stdout, stderr and exit status with the stage on and off", arguments: commands)
    func sameOutput(command: [String]) throws {
        let (off, on, auto) = try Self.runEachMode(command, try Self.inputs.get().paths)
        #expect(on.status == off.status && auto.status == off.status)
        // The damaged gzip is said (exit 0: a damaged input is counted, not fatal without --strict).
        #expect(off.status == 0)
        #expect(off.stderr.contains("cut.log.gz") || off.text.contains("cut.log.gz"), "\(off.stderr)")
    }

    @Test(
        "one lane, its parse shared between the threads: the same stdout, stderr and exit status", arguments: commands)
    func sameOutputOneLane(command: [String]) throws {
        let (off, on, auto) = try Self.runEachMode(command, try Self.inputs.get().oneLane)
        #expect(auto.stderr == off.stderr)
        #expect(off.status == 0 && on.status == 0 && auto.status == 0)
    }

    /// `command` over `paths` with the stage off, on and auto; the same stdout from each, and the
    /// same stderr on and off once each run's `--parse-ahead-report` line is taken out. That line says
    /// the stage ran with `on` (blocks handed over) and not with `off`: were `on` to fall back to one
    /// thread silently, every comparison here would still hold.
    private static func runEachMode(_ command: [String], _ paths: [String]) throws -> (
        off: CLIRun, on: CLIRun, auto: CLIRun
    ) {
        let report = ["--parse-ahead-report"]
        var off = try CLI.run(command + paths + ["--parse-ahead", "off"] + report)
        var on = try CLI.run(command + paths + ["--parse-ahead", "on"] + report)
        var auto = try CLI.run(command + paths + report)
        let offReport = takeReport(&off)
        let onReport = takeReport(&on)
        _ = takeReport(&auto)
        #expect(offReport == "parse-ahead: off", "\(command): \(off.stderr)")
        let blocks = onReport.flatMap { $0.split(separator: " ").dropFirst(2).first }.flatMap { Int($0) } ?? 0
        #expect(onReport?.hasPrefix("parse-ahead: on, ") == true && blocks > 0, "\(command): \(onReport ?? on.stderr)")
        #expect(off.stdout.count > 1000, "\(off.stderr)")
        #expect(on.stdout == off.stdout)
        #expect(auto.stdout == off.stdout)
        #expect(on.stderr == off.stderr)
        return (off, on, auto)
    }

    /// Takes the `chatcap: parse-ahead: …` line out of `run`'s stderr; returns it without the prefix.
    private static func takeReport(_ run: inout CLIRun) -> String? {
        var found: String? = nil
        let kept = run.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
            guard line.hasPrefix("chatcap: parse-ahead: ") else { return true }
            found = String(line.dropFirst("chatcap: ".count))
            return false
        }
        run.stderr = kept.joined(separator: "\n")
        return found
    }

    @Test("--strict and descriptor exhaustion give the same exit status and message either way")
    func sameExitStatuses() throws {
        let paths = try Self.inputs.get().paths
        let strict = try ["on", "off"].map { mode in
            try CLI.run(["replay", "--format", "raw", "--strict", "--parse-ahead", mode] + paths)
        }
        for run in strict { #expect(run.status == 65, "\(run.stderr)") }
        #expect(strict[0].stderr == strict[1].stderr, "on: \(strict[0].stderr)\noff: \(strict[1].stderr)")
        #expect(strict[0].stderr.contains("chatcap: summary: "), "\(strict[0].stderr)")
        let dir = try InputTempDirectory("parse-ahead-exhausted")
        let first = try dir.write(
            "a.log",
            Array("@tmi-sent-ts=1000 :a!a@a PRIVMSG #c :a1\r\n@tmi-sent-ts=3000 :a!a@a PRIVMSG #c :a3\r\n".utf8))
        let second = try dir.write("b.log", Array("@tmi-sent-ts=2000 :b!b@b PRIVMSG #c :b2\r\n".utf8))
        for command in ["replay", "stats", "dump"] {
            // Under ulimit -n 4 only descriptor 3 is free: the first file takes it.
            let on = try CLI.run([command, first, second, "--parse-ahead", "on"], descriptorLimit: 4)
            let off = try CLI.run([command, first, second, "--parse-ahead", "off"], descriptorLimit: 4)
            #expect(on.status == 66, "\(command): \(on.stderr)")
            #expect(on.stderr == off.stderr && on.stdout == off.stdout, "\(command)")
            #expect(on.stderr.contains("chatcap: error: \(second): cannot open: Too many open files"), "\(on.stderr)")
        }
    }

    /// 400,000 lines a millisecond apart (about 40 MB), written by awk.
    static func bigLog(in dir: InputTempDirectory) throws -> String {
        let log = dir.path + "/big.log"
        let made = try CLI.shell(
            "awk 'BEGIN { for (i = 0; i < 400000; i++) printf \"@tmi-sent-ts=%.0f;id=%d :u%d!u@u.tmi.twitch.tv "
                + "PRIVMSG #c :hello there %d\\r\\n\", 1763699201000 + i, i, i % 977, i }' > '\(log)'")
        #expect(made.status == 0)
        return log
    }

    @Test(
        "replay … | head -1, and SIGINT of a paced replay, end a large log at once with the stage on: the reader thread does not read on"
    )
    func endsPromptly() throws {
        let dir = try InputTempDirectory("parse-ahead-ends")
        let log = try Self.bigLog(in: dir)
        func seconds(_ command: String) throws -> (Double, CLIRun) {
            let start = ContinuousClock.now
            let run = try CLI.shell(command)
            let elapsed = ContinuousClock.now - start
            return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, run)
        }
        let (whole, all) = try seconds("\(CLI.shellBinary) replay --format raw --parse-ahead on '\(log)' | wc -l")
        #expect(all.text.trimmingCharacters(in: .whitespacesAndNewlines) == "400000")
        let (head, first) = try seconds(
            "\(CLI.shellBinary) replay --format raw --parse-ahead on '\(log)' | head -1; echo \"${PIPESTATUS[0]}\"")
        #expect(first.text.hasPrefix("@tmi-sent-ts=1763699201000;id=0 "))
        // Bytes, not Characters: the line ends in CRLF, one Character in Swift.
        #expect(Array(first.stdout.suffix(3)) == Array("\n0\n".utf8), "replay exits 0 when its reader goes away")
        #expect(first.lineCount == 2)
        // Reading on to the end would take about as long as the whole run.
        #expect(head < whole / 4, "head -1 took \(head) s, the whole log \(whole) s")

        // Paced at real time (a line a millisecond): the reader thread fills its blocks and waits
        // until SIGINT ends the replay, with the lines so far written and exit 0.
        let replay = try CLI.start(["replay", log, "--format", "raw", "--speed", "1", "--parse-ahead", "on"])
        // The signal comes once the first line is out: beside two CPU hogs the debug build had written
        // nothing after a fixed 0.5 s.
        var out = replay.readThroughFirstLine()
        #expect(replay.process.isRunning, "replay ended early: \(replay.process.terminationStatus)")
        let start = ContinuousClock.now
        kill(replay.process.processIdentifier, SIGINT)
        out.append(replay.stdout.fileHandleForReading.readDataToEndOfFile())
        replay.process.waitUntilExit()
        let stopped = ContinuousClock.now - start
        let stopSeconds = Double(stopped.components.seconds) + Double(stopped.components.attoseconds) / 1e18
        #expect(stopSeconds < whole / 4, "SIGINT took \(stopSeconds) s, the whole log \(whole) s")
        #expect(replay.process.terminationStatus == 0)
        let lines = out.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        #expect(lines > 0 && lines < 100_000, "\(lines) lines written")
        #expect(out.starts(with: Array("@tmi-sent-ts=1763699201000;id=0 ".utf8)))
    }
}
