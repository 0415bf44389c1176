import ChatTestSupport
import Foundation
import Glibc
import Testing

/// Output that is never lost and never chatty (issue #16 item 5): `replay` into a regular file while
/// paced or following gets its lines within a fraction of a second, keeps every line on SIGINT and
/// SIGTERM, and into a pipe makes a few dozen `write(2)`s for 20,000 lines.
@Suite(.serialized, .timeLimit(.minutes(20))) struct OutputFlushCLITests {

    /// A generated log of `lines` lines (tmi-sent-ts ~300 messages/s).
    static func generated(_ lines: Int, in dir: String) throws -> String {
        let path = dir + "/log.irc"
        let run = try CLI.shell("python3 Scripts/generate_fixtures.py --lines \(lines) --out '\(path)' 2>/dev/null")
        #expect(run.status == 0)
        return path
    }

    static func lines(of path: String) -> [Substring] {
        let text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    }

    static func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }

    @Test(
        "a paced replay into a regular file grows while it runs and keeps every line on the signal",
        arguments: [SIGINT, SIGTERM])
    func pacedReplayInterrupted(signal: Int32) throws {
        let dir = try CLITempDirectory.make("paced")
        defer { CLITempDirectory.remove(dir) }
        let log = try Self.generated(5_000, in: dir)
        let full = try CLI.run(["replay", log, "--format", "json"])
        #expect(full.status == 0)
        let expected = full.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let out = dir + "/out.json"
        let replay = try ChatcapProcess(["replay", log, "--format", "json", "--speed", "1"], stdoutFile: out)
        // Lines reach the file while the replay goes on (at least every 0.1 s), not only at the end.
        // (30 s: a hang guard; a busy machine may take seconds to start the debug build.)
        #expect(Self.waitUntil(seconds: 30) { Self.lines(of: out).count >= 20 }, "nothing written while paced")
        usleep(500_000)
        let before = Self.lines(of: out).count
        let sent = Date()
        #expect(replay.stop(with: signal) == 0, "\(replay.stderr)")
        let elapsed = Date().timeIntervalSince(sent)
        let after = Self.lines(of: out)
        // Every line written before the signal is there, in order, each whole; and the file was at
        // most 0.1 s (~30 lines at ~300 lines/s) plus the exit time behind.
        #expect(after.count >= before)
        #expect(after.count < expected.count, "the replay should have been interrupted")
        #expect(Array(after) == Array(expected.prefix(after.count)))
        #expect(
            after.count - before <= 60 + Int(elapsed * 400), "\(before) lines before the signal, \(after.count) after")
    }

    @Test("replay --follow into a regular file: appended lines arrive while it runs, and Ctrl-C keeps them all")
    func followIntoFile() throws {
        let dir = try CLITempDirectory.make("follow")
        defer { CLITempDirectory.remove(dir) }
        let log = try Self.generated(300, in: dir)
        let all = FramerVerifier.oracleLines(try [UInt8](Data(contentsOf: URL(fileURLWithPath: log))))
        let grow = dir + "/grow.irc"
        func append(_ range: Range<Int>) throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: grow))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(all[range].flatMap { $0 + [13, 10] }))
            try handle.close()
        }
        _ = FileManager.default.createFile(atPath: grow, contents: nil)
        try append(0..<100)
        let out = dir + "/out.json"
        let replay = try ChatcapProcess(["replay", "--follow", grow, "--format", "json"], stdoutFile: out)
        #expect(Self.waitUntil(seconds: 3) { Self.lines(of: out).count == 100 }, "\(Self.lines(of: out).count) of 100")
        try append(100..<250)
        #expect(Self.waitUntil(seconds: 3) { Self.lines(of: out).count == 250 }, "\(Self.lines(of: out).count) of 250")
        #expect(replay.stop(with: SIGINT) == 0, "\(replay.stderr)")
        #expect(Self.lines(of: out).count == 250)
    }

    @Test("20,000 lines replayed into a pipe take a few dozen write(2) calls (strace)")
    func fewWritesToPipe() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            Issue.record("strace is missing (make deps)")
            return
        }
        let dir = try CLITempDirectory.make("writes")
        defer { CLITempDirectory.remove(dir) }
        let log = try Self.generated(20_000, in: dir)
        let trace = dir + "/trace.txt"
        let run = try CLI.shell(
            "strace -f -e trace=write -e signal=none -o '\(trace)' \(CLI.shellBinary) replay '\(log)' --format raw --color never | wc -l"
        )
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text.trimmingCharacters(in: .whitespacesAndNewlines) == "20000")
        let writes = String(decoding: FileManager.default.contents(atPath: trace) ?? Data(), as: UTF8.self)
            .split(separator: "\n").filter { $0.contains("write(1,") }
        #expect(writes.count > 0 && writes.count <= 40, "\(writes.count) writes to standard output")
    }
}
