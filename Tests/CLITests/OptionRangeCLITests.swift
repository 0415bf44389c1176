import ChatTestSupport
import Foundation
import Glibc
import Testing

/// Every numeric option of every command has a documented range: a value outside it (also `nan`,
/// `inf`, a negative number, or a number too large for the type) is a usage error (exit 64) that
/// names the option and the range, never a trap (exit 132/134) or a runaway allocation.
@Suite(.timeLimit(.minutes(20))) struct OptionRangeCLITests {
    /// One numeric option of one command: the arguments that make the rest of the command line valid,
    /// the option, its range as the message gives it, and values just outside that range.
    struct Row: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var option: String
        var range: String
        var outside: [String]
        var testDescription: String { "\(arguments[0]) \(option)" }
    }

    static let log = "Fixtures/lines/privmsg.irc"

    /// The options ConnectionOptions gives `tail`, `capture` and `watch`.
    static func connection(_ arguments: [String]) -> [Row] {
        [
            Row(arguments: arguments, option: "--port", range: "1 to 65535", outside: ["0", "65536"]),
            Row(
                arguments: arguments, option: "--duration", range: "0.001 to 31536000 seconds",
                outside: ["0", "0.0009", "31536001"]),
            Row(
                arguments: arguments, option: "--idle-timeout", range: "0.1 to 86400 seconds",
                outside: ["0", "0.09", "86401"]),
            Row(
                arguments: arguments, option: "--pong-timeout", range: "0.1 to 86400 seconds",
                outside: ["0", "86401"]),
            Row(
                arguments: arguments, option: "--reconnect-base", range: "0.01 to 3600 seconds",
                outside: ["0", "3601"]),
            Row(
                arguments: arguments, option: "--reconnect-max", range: "0.01 to 3600 seconds",
                outside: ["0", "3601"]),
            Row(
                arguments: arguments, option: "--healthy-after", range: "0.01 to 86400 seconds",
                outside: ["0", "86401"]),
            Row(arguments: arguments, option: "--join-rate", range: "1 to 10000", outside: ["0", "10001"]),
            Row(arguments: arguments, option: "--channels-per-connection", range: "1 to 90", outside: ["0", "91"]),
            Row(
                arguments: arguments, option: "--connect-interval", range: "0 to 3600 seconds",
                outside: ["-0.001", "3601"]),
        ]
    }

    /// `load`'s options (a `--status-interval` of 1e300 trapped converting to milliseconds).
    static func load(_ arguments: [String]) -> [Row] {
        [
            Row(arguments: arguments, option: "--batch-rows", range: "1 to 1000000", outside: ["0", "1000001"]),
            Row(
                arguments: arguments, option: "--batch-delay", range: "0.05 to 60 seconds",
                outside: ["0", "0.049", "61"]),
            Row(arguments: arguments, option: "--max-open-files", range: "2 to 65536", outside: ["1", "65537"]),
            Row(
                arguments: arguments, option: "--retry-max", range: "0.1 to 300 seconds", outside: ["0.09", "301"]),
            Row(arguments: arguments, option: "--timeout", range: "1 to 3600 seconds", outside: ["0.9", "3601"]),
            Row(
                arguments: arguments, option: "--status-interval", range: "0.1 to 86400 seconds",
                outside: ["0", "86401"]),
        ]
    }

    static let rows: [Row] =
        [
            Row(arguments: ["replay", log], option: "--capacity", range: "1 to 1000000", outside: ["0", "1000001"]),
            Row(
                arguments: ["replay", log], option: "--speed", range: "max or 0.001 to 1000000",
                outside: ["0", "1000001"]),
            Row(arguments: ["dump", log], option: "--capacity", range: "1 to 1000000", outside: ["0", "1000001"]),
            Row(arguments: ["dump", log], option: "--last", range: "1 to 1000000", outside: ["0", "1000001"]),
            Row(arguments: ["stats", log], option: "--capacity", range: "1 to 1000000", outside: ["0", "1000001"]),
            Row(arguments: ["watch", log], option: "--capacity", range: "1 to 1000000", outside: ["0", "1000001"]),
            Row(arguments: ["watch", log], option: "--speed", range: "max or 0.001 to 1000000", outside: ["0.0009"]),
            Row(arguments: ["tail", "pixelharbor"], option: "--capacity", range: "1 to 1000000", outside: ["0"]),
            // Issue #35 R5: 100,000 was accepted, and any answer past the 16 MiB read limit failed whole.
            Row(
                arguments: ["tail", "pixelharbor", "--recent-messages", "http://127.0.0.1:1"],
                option: "--recent-messages-limit", range: "1 to 20000", outside: ["0", "20001", "100000"]),
            Row(
                arguments: ["capture", "pixelharbor", "--dir", "/nonexistent/capture"], option: "--level",
                range: "1 to 9", outside: ["0", "10"]),
            Row(
                arguments: ["capture", "pixelharbor", "--dir", "/nonexistent/capture"], option: "--max-open-files",
                range: "2 to 65536", outside: ["1", "65537"]),
            Row(
                arguments: ["capture", "pixelharbor", "--dir", "/nonexistent/capture"], option: "--status-interval",
                range: "0.1 to 86400 seconds", outside: ["0", "86401"]),
            Row(
                arguments: ["capture", "pixelharbor", "--dir", "/nonexistent/capture"], option: "--flush-interval",
                range: "0.1 to 60 seconds", outside: ["0", "0.09", "60.1"]),
            Row(
                arguments: ["capture", "--dir", "/nonexistent/capture", "--channels-file", log],
                option: "--reload-on-change", range: "0.1 to 3600 seconds", outside: ["0", "0.09", "3601"]),
            Row(
                arguments: ["tail", "--channels-file", log], option: "--reload-on-change", range: "0.1 to 3600 seconds",
                outside: ["0", "3601"]),
            Row(arguments: ["serve", log], option: "--port", range: "0 to 65535", outside: ["65536"]),
            Row(arguments: ["serve", log], option: "--speed", range: "max or 0.001 to 1000000", outside: ["0"]),
            Row(
                arguments: ["serve", log], option: "--reconnect-after", range: "0 to 1000000000",
                outside: ["1000000001"]),
            Row(
                arguments: ["serve", log, "--reconnect-after", "5"], option: "--reconnect-grace",
                range: "0 to 600 seconds", outside: ["-1", "601"]),
            Row(arguments: ["serve", log], option: "--drop-after", range: "0 to 1000000000", outside: ["1000000001"]),
            Row(
                arguments: ["serve", log], option: "--stall-after", range: "0 to 1000000000", outside: ["1000000001"]),
        ]
        + [
            Row(
                arguments: ["logs", "--dir", "/nonexistent/capture"], option: "--http-port", range: "0 to 65535",
                outside: ["65536"]),
            Row(
                arguments: ["logs", "--dir", "/nonexistent/capture", "--http-port", "0"], option: "--max-answer-mib",
                range: "1 to 4096 MiB", outside: ["0", "4097"]),
            Row(
                arguments: ["logs", "--dir", "/nonexistent/capture", "--http-port", "0"], option: "--max-connections",
                range: "1 to 10000", outside: ["0", "10001"]),
            Row(
                arguments: ["logs", "--dir", "/nonexistent/capture", "--http-port", "0"], option: "--request-timeout",
                range: "1 to 3600 seconds", outside: ["0", "3601"]),
            Row(
                arguments: ["logs", "--dir", "/nonexistent/capture", "--http-port", "0"], option: "--max-range-days",
                range: "1 to 36600 days", outside: ["0", "36601"]),
            Row(
                arguments: ["logs", "--dir", "/nonexistent/capture", "--http-port", "0"], option: "--max-limit",
                range: "1 to 100000000", outside: ["0", "100000001"]),
        ]
        + load(["load", "/nonexistent/capture", "--clickhouse", "http://127.0.0.1:1/"])
        + connection(["tail", "pixelharbor"])
        + connection(["capture", "pixelharbor", "--dir", "/nonexistent/capture"])
        + connection(["watch", "pixelharbor"])

    /// What every numeric option refuses, besides its own `outside` values.
    static let extreme = ["1e300", "1e-300", "-1", "nan", "inf", "-inf", "4294967296", "1152921504606846976", "ten"]

    @Test("a numeric option outside its range is a usage error (64) naming the option and the range", arguments: rows)
    func outOfRange(row: Row) throws {
        for value in Self.extreme + row.outside {
            // 1e-300 lies inside 0 to 3600 (and 0 to 600).
            if value == "1e-300" && ["--connect-interval", "--reconnect-grace"].contains(row.option) { continue }
            let run = try CLI.run(row.arguments + ["\(row.option)=\(value)"])
            #expect(run.status == 64, "\(row.arguments[0]) \(row.option)=\(value): \(run.status) \(run.stderr)")
            let first = run.stderr.split(separator: "\n").first.map(String.init) ?? ""
            #expect(
                first.hasPrefix("Error: The value '\(value)' is invalid for '\(row.option) <")
                    && first.hasSuffix(">': must be \(row.range)"),
                "\(row.arguments[0]) \(row.option)=\(value): \(first)")
        }
    }

    @Test("every numeric option's help states its range", arguments: rows)
    func helpStatesRange(row: Row) throws {
        let run = try CLI.run([row.arguments[0], "--help"])
        #expect(run.status == 0)
        // The option's entry under OPTIONS: its line and the indented lines after it.
        let lines = run.text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let at = lines.firstIndex(where: { $0.hasPrefix("  \(row.option) <") }) else {
            Issue.record("\(row.arguments[0]) --help lacks \(row.option)")
            return
        }
        var entry = [lines[at]]
        for line in lines[(at + 1)...] {
            guard line.hasPrefix("     ") else { break }
            entry.append(line)
        }
        let description = entry.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
        // The range as help shows it: without the unit (the sentence says "seconds") and "max or".
        let range = row.range.replacingOccurrences(of: " seconds", with: "").replacingOccurrences(
            of: "max or ", with: "")
        #expect(description.contains(range), "\(row.arguments[0]): \(description)")
    }

    @Test("the sizes of capture --buffer and --rotate have ranges too")
    func captureSizes() throws {
        let capture = ["capture", "pixelharbor", "--dir", "/nonexistent/capture"]
        for value in ["0", "1023K", "5G", "99999999999999999999G", "-1", "nan"] {
            let run = try CLI.run(capture + ["--buffer=\(value)"])
            #expect(run.status == 64)
            #expect(
                run.stderr.hasPrefix("Error: --buffer must be a size from 1M to 4G, such as 16M (got '\(value)')"),
                "\(value): \(run.stderr)")
        }
        for value in ["0", "1", "63K", "1025G", "99999999999999999999G", "-1", "nan"] {
            let run = try CLI.run(capture + ["--rotate=\(value)"])
            #expect(run.status == 64)
            #expect(
                run.stderr.hasPrefix(
                    "Error: --rotate must be daily, hourly or a size from 64K to 1024G such as 100M (got '\(value)')"),
                "\(value): \(run.stderr)")
        }
    }

    @Test("the ends of each range are accepted: a huge --capacity on a short log stays small")
    func rangeEnds() throws {
        for arguments in [
            ["replay", Self.log, "--capacity", "1000000", "--format", "raw"],
            ["replay", Self.log, "--capacity", "1", "--format", "raw"],
            ["dump", Self.log, "--capacity", "1000000", "--last", "1000000"],
            ["replay", Self.log, "--speed", "1000000", "--format", "raw"],
        ] {
            let run = try CLI.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.lineCount > 0, "\(arguments)")
        }
    }

    @Test("replay --speed 0.001 over a log spanning 8,000 years waits for the next line instead of trapping")
    func slowestSpeedOverAFarFuture() throws {
        let log = [
            "@tmi-sent-ts=0 :a!a@a.tmi.twitch.tv PRIVMSG #c :first\r\n",
            "@tmi-sent-ts=253402300799999 :a!a@a.tmi.twitch.tv PRIVMSG #c :in the year 9999\r\n",
        ].joined()
        let directory = try InputTempDirectory()
        let path = directory.path + "/far.irc"
        try log.write(toFile: path, atomically: true, encoding: .utf8)
        let replay = try CLI.start(["replay", path, "--speed", "0.001", "--format", "raw"])
        // The signal comes once the first line is out, not after a fixed time.
        var bytes = replay.readThroughFirstLine()
        usleep(500_000)  // time for the wait for the far line to begin (where it trapped)
        #expect(replay.process.isRunning, "replay ended early: \(replay.process.terminationStatus)")
        kill(replay.process.processIdentifier, SIGINT)
        replay.process.waitUntilExit()
        bytes.append(replay.stdout.fileHandleForReading.readDataToEndOfFile())
        let out = String(decoding: bytes, as: UTF8.self)
        #expect(replay.process.terminationStatus == 0)
        #expect(out == "@tmi-sent-ts=0 :a!a@a.tmi.twitch.tv PRIVMSG #c :first\r\n")
    }
}
