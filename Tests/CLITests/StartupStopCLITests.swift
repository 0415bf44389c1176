import ChatTestSupport
import Foundation
import Glibc
import Testing

/// A stop signal at any moment of capture's start-up ends the run promptly (issue #35 R10): while it
/// reads the files a kill -9 left (seconds for a busy capture), connects or joins. The runs are
/// started as a script's `cmd &` starts them, with SIGINT ignored: before the fix the handler was
/// installed only after that reading, so a SIGINT then was lost (the run went on for good) and a
/// SIGTERM killed it without a `stop` record.
@Suite(.serialized, .timeLimit(.minutes(20))) struct StartupStopCLITests {
    static let channels = ["pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns", "ottertech", "mossyforge"]
    static var trials: Int { ProcessInfo.processInfo.environment["STARTUP_STOP_TRIALS"].flatMap { Int($0) } ?? 20 }

    @Test(
        "SIGINT and SIGTERM at random moments of start-up after a kill -9: every run stops within 5 s, with a stop record"
    )
    func stopDuringStartup() throws {
        let dir = try CLITempDirectory.make("startup-stop")
        defer { CLITempDirectory.remove(dir) }
        let feed = "\(dir)/feed.irc"
        let generate = try InputShell.run(
            "python3 Scripts/generate_fixtures.py --lines 60000 --channels 6 --out \(InputShell.quote(feed)) 2>&1")
        try #require(generate.status == 0, "\(String(decoding: generate.output, as: UTF8.self))")
        let server = try ServeProcess([feed, "--port", "0", "--speed", "max", "--loop"])
        defer { _ = server.stop(with: SIGKILL) }
        let arguments = [
            "capture", "--dir", "\(dir)/cap", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain", "--status",
            "none",
        ]
        // A capture at full speed, killed: the next run has files to read and repair first.
        let first = try ChatcapProcess(arguments + Self.channels)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline && CrashRepairCLITests.chatBytes(in: "\(dir)/cap") < 4 << 20 { usleep(50_000) }
        _ = first.stop(with: SIGKILL)
        try #require(CrashRepairCLITests.chatBytes(in: "\(dir)/cap") >= 4 << 20, "the first run wrote too little")
        let killed = "\(dir)/killed"
        try #require(
            try InputShell.run("cp -a \(InputShell.quote("\(dir)/cap")) \(InputShell.quote(killed))").status == 0)

        var generator = SystemRandomNumberGenerator()
        var stopped: [Double] = []
        var beforeStart = 0
        for trial in 0..<Self.trials {
            let run = "\(dir)/run\(trial)"
            try #require(try InputShell.run("cp -a \(InputShell.quote(killed)) \(InputShell.quote(run))").status == 0)
            let signal = trial % 2 == 0 ? SIGINT : SIGTERM
            let process = try Self.startIgnoringInterrupt(
                ["capture", "--dir", run] + arguments.dropFirst(3) + Self.channels, stderr: "\(run).err")
            // From the moment the command's code runs (it ignores SIGPIPE first thing) to well past the
            // reading of the old files, the connect and the joins.
            try #require(
                Self.waitUntilIgnoring(SIGPIPE, pid: process.processIdentifier), "trial \(trial) never started")
            // Every fourth trial later (3 to 6 s), past start-up even on a busy machine: its stop record
            // is then always asked for (below).
            let delay: ClosedRange<UInt32> = trial % 4 == 3 ? 3_000_000...6_000_000 : 0...1_500_000
            usleep(UInt32.random(in: delay, using: &generator))
            let sent = Date()
            kill(process.processIdentifier, signal)
            let end = Date().addingTimeInterval(5)
            while process.isRunning && Date() < end { usleep(10_000) }
            let running = process.isRunning
            if running {
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            let took = Date().timeIntervalSince(sent)
            #expect(!running, "trial \(trial) (signal \(signal)) still running 5 s after the signal")
            // 0, or (stopped before the chat was reached or a channel joined) 69 as with --duration: an
            // empty capture must not look like a quiet chat (HandshakeDeadlineTests). Never killed by the signal.
            let said = (try? String(contentsOfFile: "\(run).err", encoding: .utf8)) ?? ""
            let status = process.terminationStatus
            #expect(
                process.terminationReason == .exit
                    && (status == 0
                        || (status == 69
                            && (said.contains("no channel was joined") || said.contains("never reached the chat")))),
                "trial \(trial) (signal \(signal)): \(process.terminationReason == .exit ? "exit" : "killed by signal") \(status): \(said)"
            )
            stopped.append(took)
            // The session's records: this run's start is followed by its stop, or the run stopped while
            // reading the old files and wrote nothing.
            let records = try Self.records(in: "\(run)/_session")
            let starts = records.count { $0 == "start" }
            if starts == 2 {
                #expect(records.last == "stop", "trial \(trial): records end with \(records.suffix(3))")
            } else {
                #expect(starts == 1, "trial \(trial): \(starts) start records")
                beforeStart += 1
            }
            try? FileManager.default.removeItem(atPath: run)
            try? FileManager.default.removeItem(atPath: "\(run).err")
        }
        print(
            "StartupStopCLITests: \(stopped.count) runs stopped, slowest \(stopped.max() ?? 0) s after the signal; "
                + "\(beforeStart) while reading the old files")
        // Some run got past its start record, so that a stop record was asked of it.
        #expect(beforeStart < Self.trials, "every one of \(Self.trials) runs stopped before its start record")
    }

    /// Starts `chatcap arguments…` through `sh` with SIGINT ignored, as `cmd &` in a script does.
    static func startIgnoringInterrupt(_ arguments: [String], stderr: String) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "trap '' INT; exec \"$0\" \"$@\"", CLI.binary] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: Fixtures.root)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: stderr, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderr))
        try process.run()
        return process
    }

    /// Waits (at most 20 s) until the process `pid` ignores `signal` (`SigIgn` in /proc/PID/status).
    static func waitUntilIgnoring(_ signal: Int32, pid: Int32) -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            if let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigIgn:") }),
                let mask = UInt64(line.dropFirst("SigIgn:".count).trimmingCharacters(in: .whitespaces), radix: 16),
                mask & (1 << UInt64(signal - 1)) != 0, status.contains("chatcap")
            {
                return true
            }
            usleep(5_000)
        }
        return false
    }

    /// The events of the `CAPTURE` records in the session files, in order.
    static func records(in folder: String) throws -> [String] {
        var events: [String] = []
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        where name.hasSuffix(".gz") {
            let text = try InputShell.run("zcat \(InputShell.quote("\(folder)/\(name)"))").output
            for line in String(decoding: text, as: UTF8.self).split(separator: "\r\n") {
                let words = line.split(separator: " ", maxSplits: 4)
                if words.count >= 3, words[1] == ":chatcap", words[2] == "CAPTURE", words.count >= 4 {
                    events.append(String(words[3]))
                }
            }
        }
        return events
    }
}
