import ChatTestSupport
import Foundation
import Testing

/// `replay --dedupe SECONDS`: two captures of one channel (two hosts) merge into one stream without
/// doubles; the dropped lines are counted in the summary.
@Suite struct DedupeTests {
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

    @Test("the window: an id seen again after it is kept; lines without an id always pass")
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

    @Test("--dedupe outside 1–86400 is a usage error", arguments: ["0", "-5", "90000", "nan"])
    func range(value: String) throws {
        let run = try CLI.run(["replay", "Fixtures/lines/privmsg.irc", "--dedupe=\(value)"])
        #expect(run.status == 64, "\(run.stderr)")
    }
}
