import ChatTestSupport
import Foundation
import Glibc
import Testing

/// Many channels live (issue #16 item 6): `--channels-file` read and validated, channels pooled over
/// several connections in one loop, each JOIN outcome reported, and every line of every channel received.
@Suite(.serialized, .timeLimit(.minutes(20))) struct ManyChannelsCLITests {

    /// Generates a log of `lines` lines over `channels` channels into `dir`/`name` with the project's
    /// generator; returns its path, its chat lines (PRIVMSG) as received, and their channels.
    static func generatedLog(
        in dir: String, _ name: String, lines: Int, channels count: Int
    ) throws -> (log: String, privmsgs: [String], channels: Set<Substring>) {
        let log = dir + "/" + name
        let generated = try CLI.shell(
            "python3 Scripts/generate_fixtures.py --lines \(lines) --channels \(count) --out '\(log)' 2>/dev/null")
        #expect(generated.status == 0)
        let privmsgs = FramerVerifier.oracleLines(try [UInt8](Data(contentsOf: URL(fileURLWithPath: log))))
            .map { String(decoding: $0, as: UTF8.self) }.filter { $0.contains(" PRIVMSG #") }
        let channels = Set(privmsgs.map { $0.split(separator: " PRIVMSG #")[1].split(separator: " ")[0] })
        #expect(channels.count == count)
        return (log, privmsgs, channels)
    }

    @Test(
        "tail --channels-file: 100 channels over 4 connections, every JOIN reported, every line of every channel received"
    )
    func everyLineOfEveryChannel() throws {
        let dir = try CLITempDirectory.make("many")
        defer { CLITempDirectory.remove(dir) }
        let (log, privmsgs, channels) = try Self.generatedLog(in: dir, "many.irc", lines: 3000, channels: 100)
        let file = dir + "/channels.txt"
        // Written with CR LF, as an editor on Windows saves it (issue #35: such a file was read as one line).
        let listing =
            "# the bench channels\r\n\r\n"
            + channels.sorted().enumerated().map { i, c in
                i % 3 == 0 ? "#\(c)  # with a hash and a comment" : String(c)
            }.joined(separator: "\r\n") + "\r\n"
        try listing.write(toFile: file, atomically: true, encoding: .utf8)

        // --from-start: every channel plays from the log's start however late its connection joins it
        // (issue #12 item 13); without it a channel joined later would join the log where it is, as a
        // live channel. --keep-time: the lines are compared byte for byte.
        let server = try ServeProcess([log, "--speed", "10", "--from-start", "--keep-time", "--port", "0"])
        defer { _ = server.stop(with: SIGKILL) }
        let out = dir + "/out.irc"
        let tail = try ChatcapProcess(
            [
                "tail", "--channels-file", file, "--host", "127.0.0.1", "--port", "\(server.port)", "--plain",
                "--channels-per-connection", "30", "--join-rate", "1000", "--connect-interval", "0.05",
                "--format", "raw", "--duration", "30",
            ], stdoutFile: out)
        #expect(tail.waitForStderr(containing: "100 of 100 channels joined in", timeoutMs: 15_000), "\(tail.stderr)")
        #expect(tail.stderr.contains("over 4 connections"), "\(tail.stderr)")
        let wanted = Set(privmsgs)
        var missing = wanted
        let deadline = Date().addingTimeInterval(20)
        while !missing.isEmpty && Date() < deadline {
            usleep(300_000)
            let received = String(decoding: FileManager.default.contents(atPath: out) ?? Data(), as: UTF8.self)
            missing.subtract(received.split(separator: "\r\n").map(String.init))
        }
        #expect(tail.stop(with: SIGINT) == 0, "\(tail.stderr)")
        #expect(missing.isEmpty, "\(missing.count) of \(wanted.count) chat lines never arrived")
        // Each JOIN outcome is reported once per channel.
        let reports = tail.stderr.split(separator: "\n")
        for channel in channels {
            let outcomes = reports.count { $0.hasSuffix("joined #\(channel)") }
            #expect(outcomes == 1, "\(outcomes) JOIN outcomes for \(channel)")
        }
    }

    @Test("a bad --channels-file is a usage error naming file and line")
    func badFile() throws {
        let dir = try CLITempDirectory.make("badfile")
        defer { CLITempDirectory.remove(dir) }
        let file = dir + "/channels.txt"
        try "# comment\npixelharbor\nnot a login!\n".write(toFile: file, atomically: true, encoding: .utf8)
        for command in ["tail", "capture"] {
            var args = [command, "--channels-file", file]
            if command == "capture" { args += ["--dir", dir + "/cap"] }
            let run = try CLI.run(args)
            #expect(run.status == 64, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("\(file):3:"), "\(command): \(run.stderr)")
        }
        // CR LF endings: the same line is named, and a login too long is blamed on its length.
        try "# comment\r\npixelharbor\r\n\(String(repeating: "a", count: 30))\r\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let long = try CLI.run(["tail", "--channels-file", file])
        #expect(long.status == 64, "\(long.stderr)")
        #expect(
            long.stderr.contains("\(file):3:") && long.stderr.contains("30 characters; a login has at most 25"),
            "\(long.stderr)")
        let missing = try CLI.run(["tail", "--channels-file", dir + "/nope.txt"])
        #expect(missing.status == 64)
        #expect(missing.stderr.contains("cannot read"), "\(missing.stderr)")
        try "# nothing here\n\n".write(toFile: file, atomically: true, encoding: .utf8)
        let empty = try CLI.run(["tail", "--channels-file", file])
        #expect(empty.status == 64)
        #expect(empty.stderr.contains("lists no channel"), "\(empty.stderr)")
    }
}
