import ChatTestSupport
import Foundation
import Testing

/// `--apply-moderation`: each channel has its own look-ahead, output keeps input order, and nothing
/// is released early without being counted.
@Suite(.timeLimit(.minutes(20))) struct ModerationLookAheadTests {
    /// The JSON objects of NDJSON output.
    static func objects(_ bytes: [UInt8]) throws -> [[String: Any]] {
        try String(decoding: bytes, as: UTF8.self).split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// A quiet channel's message, `busy` messages of another channel, then the quiet one's CLEARMSG
    /// (issue 13's reproduction).
    static func quietBehindBusy(busy: Int) -> String {
        let t = 1_763_700_000_000
        var s = "@id=b0;tmi-sent-ts=\(t) :bob!bob@bob.tmi.twitch.tv PRIVMSG #bee :hello from bee\r\n"
        for i in 0..<busy { s += "@id=a\(i);tmi-sent-ts=\(t + 1 + i) :u!u@u.tmi.twitch.tv PRIVMSG #aaa :msg \(i)\r\n" }
        s +=
            "@login=bob;room-id=2;target-msg-id=b0;tmi-sent-ts=\(t + busy + 2) :tmi.twitch.tv CLEARMSG #bee :hello from bee\r\n"
        return s
    }

    @Test(
        "a quiet channel's message is marked by its CLEARMSG after another channel filled its ring; input order kept",
        arguments: [2_499, 2_500, 2_501, 6_000])
    func quietChannelKeepsItsLookAhead(busy: Int) throws {
        let dir = try InputTempDirectory()
        let path = try dir.write("x.irc", Array(Self.quietBehindBusy(busy: busy).utf8))
        let run = try CLI.run(["replay", path, "--format", "json", "--apply-moderation"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try Self.objects(run.stdout)
        #expect(lines.count == busy + 2)
        let ids = lines.compactMap { $0["id"] as? String }
        #expect(ids == ["b0"] + (0..<busy).map { "a\($0)" })
        #expect(lines.first?["deleted"] as? Bool == true)
        #expect(lines.dropFirst().allSatisfy { $0["deleted"] as? Bool == false || $0["type"] as? String == "clearmsg" })
        #expect(!run.stderr.contains("released"), "\(run.stderr)")
    }

    @Test("a generated multi-channel log: every message dump marks is marked the same by replay --apply-moderation")
    func sameMarksAsDump() throws {
        let dir = try InputTempDirectory()
        let path = dir.path + "/gen.irc"
        let gen = try CLI.shell(
            "python3 Scripts/generate_fixtures.py --lines 60000 --channels 8 --seed 7 --out \(InputShell.quote(path))")
        #expect(gen.status == 0, "\(gen.stderr)")
        let dump = try CLI.run(["dump", path, "--last", "2500"])
        #expect(dump.status == 0, "\(dump.stderr)")
        let replay = try CLI.run([
            "replay", path, "--format", "json", "--apply-moderation", "--moderation-window", "86400",
        ])
        #expect(replay.status == 0, "\(replay.stderr)")
        func marks(_ o: [String: Any]) -> String {
            "\(o["deleted"] ?? "-")/\(o["timed_out"] ?? "-")/\(o["banned"] ?? "-")/\(o["cleared"] ?? "-")"
        }
        var replayed: [String: String] = [:]
        for o in try Self.objects(replay.stdout) { if let id = o["id"] as? String { replayed[id] = marks(o) } }
        var compared = 0
        var marked = 0
        for o in try Self.objects(dump.stdout) {
            guard let id = o["id"] as? String, o["type"] as? String == "privmsg" else { continue }
            compared += 1
            if o["deleted"] as? Bool == true || o["banned"] as? Bool == true || o["cleared"] as? Bool == true
                || o["timed_out"] is Int
            {
                marked += 1
            }
            #expect(replayed[id] == marks(o), "\(id)")
        }
        #expect(compared > 10_000)
        #expect(marked > 20, "only \(marked) marked messages in the dump")
    }

    @Test("the window: a CLEARMSG within it marks the message, one after it does not")
    func windowEndsTheLookAhead() throws {
        let t = 1_763_700_000_000
        func log(gapMs: Int) -> String {
            "@id=m1;tmi-sent-ts=\(t) :bob!bob@b PRIVMSG #c :hi\r\n"
                + "@id=m2;tmi-sent-ts=\(t + gapMs) :ann!ann@a PRIVMSG #c :later\r\n"
                + "@login=bob;target-msg-id=m1;tmi-sent-ts=\(t + gapMs + 1) :tmi.twitch.tv CLEARMSG #c :hi\r\n"
        }
        let dir = try InputTempDirectory()
        for (gap, deleted) in [(1_000, true), (3_000, false)] {
            let path = try dir.write("w\(gap).irc", Array(log(gapMs: gap).utf8))
            let run = try CLI.run([
                "replay", path, "--format", "json", "--apply-moderation", "--moderation-window", "2",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = try Self.objects(run.stdout)
            #expect(lines.map { $0["type"] as? String } == ["privmsg", "privmsg", "clearmsg"])
            #expect(lines.first?["deleted"] as? Bool == deleted, "gap \(gap) ms")
        }
    }

    @Test("--moderation-window outside 0.1–86400 is a usage error", arguments: ["0", "-1", "86401", "nan", "1e300"])
    func windowRange(value: String) throws {
        let run = try CLI.run([
            "replay", "Fixtures/lines/moderation.irc", "--apply-moderation", "--moderation-window", value,
        ])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("--moderation-window"), "\(run.stderr)")
    }

    @Test("every fact survives: deleted and then timed out, deleted and then banned, in json, text and dump")
    func everyFact() throws {
        let applied = try CLI.run(["replay", "Fixtures/lines/moderation.irc", "--format", "json", "--apply-moderation"])
        #expect(applied.status == 0, "\(applied.stderr)")
        let deleted = try Self.objects(applied.stdout).filter { $0["deleted"] as? Bool == true }
        #expect(
            deleted.map { $0["text"] as? String } == [
                "this streamer is so bad LUL", "cheap viewers at example dot com",
            ])
        #expect(deleted.map { $0["timed_out"] as? Int } == [600, nil])
        #expect(deleted.map { $0["banned"] as? Bool } == [false, true])
        let dump = try CLI.run(["dump", "Fixtures/lines/moderation.irc"])
        #expect(try Self.objects(dump.stdout).filter { $0["deleted"] as? Bool == true }.count == 2)
        let text = try CLI.run([
            "replay", "Fixtures/lines/moderation.irc", "--format", "text", "--apply-moderation", "--color", "never",
        ])
        let lines = String(decoding: text.stdout, as: UTF8.self).split(separator: "\n")
        #expect(
            lines.first?.hasSuffix("this streamer is so bad LUL [deleted] [timed out 600s] [cleared]") == true,
            "\(lines.first ?? "")")
    }
}
