import ChatTestSupport
import Foundation
import Testing

/// `replay --dedupe SECONDS`: two captures of one channel (two hosts) merge into one stream without
/// doubles; the dropped lines are counted in the summary.
@Suite(.timeLimit(.minutes(20))) struct DedupeTests {
    static let t = 1_763_700_000_000

    /// A capture host's file: lines `ids` of #luna with their own time tag `skewMs` after tmi-sent-ts.
    static func host(_ ids: [Int], skewMs: Int) -> String {
        ids.map { i in
            "@id=m\(i);tmi-sent-ts=\(t + i * 1000);time=\(isoTime(t + i * 1000 + skewMs)) :u!u@u PRIVMSG #luna :message \(i)\r\n"
        }.joined() + ":tmi.twitch.tv PING :x\r\n"
    }

    static func isoTime(_ ms: Int) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    static func ids(_ run: CLIRun) -> [String] {
        run.text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
    }

    @Test("two hosts' captures of one channel: every message once, in time order, the repeats counted")
    func twoHosts() throws {
        let dir = try InputTempDirectory()
        // Host A missed 4-6 (a reconnect), host B missed 0-1 (started later).
        let a = try dir.write("a/luna/2025-11-21.log", Array(Self.host([0, 1, 2, 3, 7, 8, 9], skewMs: 20).utf8))
        let b = try dir.write("b/luna/2025-11-21.log", Array(Self.host([2, 3, 4, 5, 6, 7, 8, 9], skewMs: 45).utf8))
        let doubled = try CLI.run(["replay", a, b, "--format", "json", "--type", "privmsg"])
        #expect(Self.ids(doubled).count == 15)
        let merged = try CLI.run(["replay", a, b, "--format", "json", "--type", "privmsg", "--dedupe", "60"])
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(Self.ids(merged) == (0...9).map { "m\($0)" })
        #expect(merged.stderr.contains("5 repeated message ids dropped (--dedupe)"), "\(merged.stderr)")
    }

    @Test("the window: an id seen again after it is kept; a line without an id repeated in one input stays")
    func window() throws {
        let dir = try InputTempDirectory()
        let log =
            "@id=r;tmi-sent-ts=\(Self.t) :u!u@u PRIVMSG #luna :once\r\n"
            + "@id=r;tmi-sent-ts=\(Self.t + 5_000) :u!u@u PRIVMSG #luna :again within\r\n"
            + "@id=r;tmi-sent-ts=\(Self.t + 20_000) :u!u@u PRIVMSG #luna :again after\r\n"
            + "@id=r;tmi-sent-ts=\(Self.t + 20_500) :u!u@u PRIVMSG #other :other channel\r\n"
            + ":tmi.twitch.tv PING :x\r\n:tmi.twitch.tv PING :x\r\n"
        let path = try dir.write("w.irc", Array(log.utf8))
        let run = try CLI.run(["replay", path, "--format", "raw", "--dedupe", "10"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.text.split(separator: "\r\n")
        #expect(lines.count == 5, "\(lines)")
        #expect(
            !run.text.contains("again within") && run.text.contains("again after") && run.text.contains("other channel")
        )
    }

    /// Lines without an id, as host A received them (its `time` tags); host B's copies get other
    /// receive-time tags (`time`, and on some `historical`/`rm-received-ts` as if backfilled).
    static let idless: [(tags: String, rest: String)] = [
        ("room-id=1;target-user-id=7;tmi-sent-ts=\(t + 1_000)", ":tmi.twitch.tv CLEARCHAT #luna :baduser"),
        ("room-id=1;target-user-id=8;tmi-sent-ts=\(t + 1_000)", ":tmi.twitch.tv CLEARCHAT #luna :other"),
        ("room-id=1;target-user-id=7;tmi-sent-ts=\(t + 9_000)", ":tmi.twitch.tv CLEARCHAT #luna :baduser"),
        ("login=u;room-id=1;target-msg-id=m3;tmi-sent-ts=\(t + 2_000)", ":tmi.twitch.tv CLEARMSG #luna :hi"),
        ("", ":viewer!viewer@viewer.tmi.twitch.tv JOIN #luna"),
        ("", ":viewer!viewer@viewer.tmi.twitch.tv PART #luna"),
        ("msg-id=slow_on", ":tmi.twitch.tv NOTICE #luna :This room is now in slow mode."),
        ("emote-only=0;room-id=1;slow=30", ":tmi.twitch.tv ROOMSTATE #luna"),
    ]

    static func idlessFile(skewMs: Int, extraTags: (Int) -> String) -> String {
        Self.idless.enumerated().map { i, line in
            let time = "time=\(isoTime(t + i * 1000 + skewMs))"
            let tags = [time, extraTags(i), line.tags].filter { !$0.isEmpty }.joined(separator: ";")
            return "@\(tags) \(line.rest)\r\n"
        }.joined()
    }

    @Test("lines without an id: copies that differ only in receive-time tags are kept once and counted")
    func idlessCopies() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("a/luna/2025-11-21.log", Array(Self.idlessFile(skewMs: 20, extraTags: { _ in "" }).utf8))
        let b = try dir.write(
            "b/luna/2025-11-21.log",
            Array(
                Self.idlessFile(
                    skewMs: 45, extraTags: { $0 % 2 == 0 ? "historical=1;rm-received-ts=\(Self.t + 60_000)" : "" }
                ).utf8))
        let c = try dir.write(
            "c/luna/2025-11-21.log", Array(Self.idlessFile(skewMs: 70, extraTags: { _ in "rm-deleted=1" }).utf8))
        let doubled = try CLI.run(["replay", a, b, c, "--format", "raw"])
        #expect(doubled.text.split(separator: "\r\n").count == 3 * Self.idless.count)
        let merged = try CLI.run(["replay", a, b, c, "--format", "raw", "--dedupe", "60"])
        #expect(merged.status == 0, "\(merged.stderr)")
        // Each line once, host A's copy (the earliest), in A's order.
        let lines = merged.text.split(separator: "\r\n").map(String.init)
        #expect(lines == Self.idlessFile(skewMs: 20, extraTags: { _ in "" }).split(separator: "\r\n").map(String.init))
        #expect(
            merged.stderr.contains("16 repeated lines without id dropped (--dedupe)")
                && !merged.stderr.contains("repeated message ids"), "\(merged.stderr)")
    }

    @Test("lines without an id that differ in more than receive-time tags are all kept")
    func idlessDifferent() throws {
        let dir = try InputTempDirectory()
        let clear = { (user: String, id: Int, sent: Int, skew: Int) in
            "@time=\(Self.isoTime(sent + skew));room-id=1;target-user-id=\(id);tmi-sent-ts=\(sent) :tmi.twitch.tv CLEARCHAT #luna :\(user)\r\n"
        }
        // Host A: two users cleared at one instant; host B: one of them again, later (a second timeout).
        let a = try dir.write("a.irc", Array((clear("x", 7, Self.t, 10) + clear("y", 8, Self.t, 11)).utf8))
        let b = try dir.write("b.irc", Array((clear("x", 7, Self.t, 30) + clear("x", 7, Self.t + 5_000, 30)).utf8))
        let merged = try CLI.run(["replay", a, b, "--format", "json", "--dedupe", "60"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let abouts = merged.text.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["about"] as? String
        }
        #expect(abouts == ["x", "y", "x"], "\(merged.text)")
        #expect(merged.stderr.contains("1 repeated lines without id dropped (--dedupe)"), "\(merged.stderr)")
    }

    @Test("--help says how lines without an id are recognised")
    func help() throws {
        let run = try CLI.run(["replay", "--help"])
        let flat = run.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("A line without an id"), "\(run.text)")
        #expect(flat.contains("receive-time tags (time, historical, rm-received-ts, rm-deleted)"), "\(run.text)")
    }

    @Test("--dedupe outside 1–86400 is a usage error", arguments: ["0", "-5", "90000", "nan"])
    func range(value: String) throws {
        let run = try CLI.run(["replay", "Fixtures/lines/privmsg.irc", "--dedupe=\(value)"])
        #expect(run.status == 64, "\(run.stderr)")
    }
}
