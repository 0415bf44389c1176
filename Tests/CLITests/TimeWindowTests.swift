import ChatTestSupport
import Foundation
import Testing

/// `replay --since/--until`: lines without a time of their own are inside the window of the line
/// before them; a bare date in `--until` includes that day; an empty window is a usage error.
@Suite(.timeLimit(.minutes(20))) struct TimeWindowTests {
    // 2025-11-21T04:40:00Z and 5 s later.
    static let log = """
        @id=a;tmi-sent-ts=1763700000000 :ann!ann@a PRIVMSG #c :first\r
        :bob!bob@bob.tmi.twitch.tv JOIN #c\r
        @msg-id=host_on :tmi.twitch.tv NOTICE #c :Now hosting\r
        @id=b;tmi-sent-ts=1763700005000 :ann!ann@a PRIVMSG #c :second\r
        :cid!cid@cid.tmi.twitch.tv PART #c\r

        """

    func run(_ extra: [String], log: String = Self.log) throws -> (status: Int32, types: [String], stderr: String) {
        let dir = try InputTempDirectory()
        let path = try dir.write("w.irc", Array(log.utf8))
        let run = try CLI.run(["replay", path, "--format", "json"] + extra)
        let types = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n").map { line in
            let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return "\(o?["type"] ?? "?")\(o?["id"].map { ":\($0)" } ?? "")"
        }
        return (run.status, types, run.stderr)
    }

    @Test(
        "lines without a timestamp inside the window are kept, with and without --apply-moderation",
        arguments: [false, true])
    func untimedLinesInside(moderation: Bool) throws {
        let m = moderation ? ["--apply-moderation"] : []
        let all = try run(["--since", "2025-11-21T04:40:00Z", "--until", "2025-11-21T04:41:00Z"] + m)
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.types == ["privmsg:a", "join", "notice", "privmsg:b", "part"])
        // JOIN and NOTICE have the first line's time, the PART the second's.
        let later = try run(["--since", "2025-11-21T04:40:01Z"] + m)
        #expect(later.types == ["privmsg:b", "part"])
        let earlier = try run(["--until", "2025-11-21T04:40:01Z"] + m)
        #expect(earlier.types == ["privmsg:a", "join", "notice"])
    }

    @Test("a bare date in --until includes that day; --since that day starts at its midnight")
    func bareDates() throws {
        // A millisecond either side of each midnight UTC around 2025-11-21 (1763683200000 is its start).
        let edges = """
            @id=a;tmi-sent-ts=1763683199999 :ann!ann@a PRIVMSG #c :20th, last millisecond\r
            @id=b;tmi-sent-ts=1763683200000 :ann!ann@a PRIVMSG #c :21st, midnight\r
            @id=c;tmi-sent-ts=1763700000000 :ann!ann@a PRIVMSG #c :21st, 04:40\r
            @id=d;tmi-sent-ts=1763769599999 :ann!ann@a PRIVMSG #c :21st, last millisecond\r
            @id=e;tmi-sent-ts=1763769600000 :ann!ann@a PRIVMSG #c :22nd, midnight\r

            """
        let day = try run(["--since", "2025-11-21", "--until", "2025-11-21"], log: edges)
        #expect(day.status == 0, "\(day.stderr)")
        #expect(day.types == ["privmsg:b", "privmsg:c", "privmsg:d"])
        let since = try run(["--since", "2025-11-21"], log: edges)
        #expect(since.types == ["privmsg:b", "privmsg:c", "privmsg:d", "privmsg:e"])
        let until = try run(["--until", "2025-11-20"], log: edges)
        #expect(until.types == ["privmsg:a"])
        let before = try run(["--until", "2025-11-20"])
        #expect(before.types.isEmpty)
    }

    @Test(
        "--since not earlier than --until is a usage error",
        arguments: [
            ["--since", "2025-11-21T05:00:00Z", "--until", "2025-11-21T04:00:00Z"],
            ["--since", "2025-11-21T04:00:00Z", "--until", "2025-11-21T04:00:00Z"],
            ["--since", "2025-11-22", "--until", "2025-11-21"],
        ])
    func emptyWindow(arguments: [String]) throws {
        let r = try run(arguments)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("must be earlier than --until"), "\(r.stderr)")
    }

    @Test("--until keeps the lines before the input's first timed line; --since leaves them out")
    func untimedLinesBeforeTheFirstTimedOne() throws {
        // A capture starts with the server's JOIN echo, which has no time of its own.
        let log = ":bob!bob@bob.tmi.twitch.tv JOIN #c\r\n" + Self.log
        let until = try run(["--until", "2025-11-21T04:40:01Z"], log: log)
        #expect(until.status == 0, "\(until.stderr)")
        #expect(until.types == ["join", "privmsg:a", "join", "notice"])
        let since = try run(["--since", "2025-11-21T04:40:00Z"], log: log)
        #expect(since.types == ["privmsg:a", "join", "notice", "privmsg:b", "part"])
    }

    @Test("--speed paces only the lines inside --since/--until: the excluded time is not waited through")
    func speedSkipsExcludedTime() throws {
        // 100 s of chat before the window and 99 s after it: 19.9 s of waiting at --speed 10 when the
        // excluded lines are paced too; inside the window the two lines are 1 s apart (0.1 s).
        let log = """
            @id=a;tmi-sent-ts=1763700000000 :ann!ann@a PRIVMSG #c :before\r
            @id=b;tmi-sent-ts=1763700100000 :ann!ann@a PRIVMSG #c :inside\r
            @id=c;tmi-sent-ts=1763700101000 :ann!ann@a PRIVMSG #c :inside too\r
            @id=d;tmi-sent-ts=1763700200000 :ann!ann@a PRIVMSG #c :after\r

            """
        let started = Date()
        let window = try run(
            ["--since", "2025-11-21T04:41:00Z", "--until", "2025-11-21T04:42:30Z", "--speed", "10"], log: log)
        let seconds = Date().timeIntervalSince(started)
        #expect(window.status == 0, "\(window.stderr)")
        #expect(window.types == ["privmsg:b", "privmsg:c"])
        #expect(seconds < 5, "took \(seconds) s")
    }
}
