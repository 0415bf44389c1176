import ChatTestSupport
import Foundation
import Testing

/// `chatcap replay`, `dump` and `stats` end to end, on the built binary.
@Suite(.serialized, .timeLimit(.minutes(20))) struct ReplayTests {
    static let fixtures = [
        "privmsg", "usernotice", "moderation", "roomstate", "session", "shared-chat", "edge-cases", "lf-only",
        "malformed", "capture",
    ]
    static let formats = ["text", "json", "irc", "raw"]
    static var cases: [(String, String)] { fixtures.flatMap { f in formats.map { (f, $0) } } }

    @Test("golden: every fixture in every format, byte for byte", arguments: cases)
    func golden(fixture: String, format: String) throws {
        let run = try CLI.run(["replay", "Fixtures/lines/\(fixture).irc", "--format", format, "--color", "never"])
        // Exit 0 for every fixture (malformed lines are reported, not fatal, without --strict).
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("malformed") == (fixture == "malformed"), "\(run.stderr)")
        if let problem = Golden.check(run.stdout, "\(fixture).\(format)") { Issue.record(Comment(rawValue: problem)) }
    }

    @Test(
        "raw output reproduces every well-formed fixture byte for byte, line endings included",
        arguments: fixtures.filter { $0 != "malformed" })
    func rawIsLossless(fixture: String) throws {
        let run = try CLI.run(["replay", "Fixtures/lines/\(fixture).irc", "--format", "raw"])
        #expect(run.status == 0)
        #expect(run.stdout == (try Fixtures.bytes("lines/\(fixture).irc")))
    }

    @Test("golden: dump of moderation.irc and of the moderation look-ahead in json")
    func goldenModeration() throws {
        let dump = try CLI.run(["dump", "Fixtures/lines/moderation.irc", "--last", "20"])
        #expect(dump.status == 0, "\(dump.stderr)")
        if let problem = Golden.check(dump.stdout, "moderation.dump") { Issue.record(Comment(rawValue: problem)) }
        let applied = try CLI.run(["replay", "Fixtures/lines/moderation.irc", "--format", "json", "--apply-moderation"])
        if let problem = Golden.check(applied.stdout, "moderation.applied.json") {
            Issue.record(Comment(rawValue: problem))
        }
    }

    @Test("json and irc output: one object per input line, and jq accepts every one", arguments: ["json", "irc"])
    func jqAccepts(format: String) throws {
        for fixture in Self.fixtures where fixture != "malformed" {
            let run = try CLI.shell(
                "\(CLI.shellBinary) replay Fixtures/lines/\(fixture).irc --format \(format) | jq -c . | wc -l")
            #expect(run.status == 0, "\(fixture): \(run.stderr)")
            // The input's lines: those that hold more than spaces (CR LF or LF ends).
            let input = try Fixtures.bytes("lines/\(fixture).irc").split(separator: UInt8(ascii: "\n")).count {
                $0.contains { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\r") }
            }
            #expect(input > 0)
            #expect(Int(run.text.trimmingCharacters(in: .whitespacesAndNewlines)) == input, "\(fixture): \(run.text)")
        }
    }

    @Test("every json and irc line of the golden files validates against the documented JSON Schemas")
    func schemas() throws {
        let json = try CLI.shell(
            "python3 Scripts/check_ndjson_schema.py docs/ndjson.schema.json Fixtures/golden/*.json Fixtures/golden/moderation.dump"
        )
        #expect(json.status == 0, "\(json.text)\(json.stderr)")
        #expect(json.text.contains("lines valid"))
        let irc = try CLI.shell(
            "python3 Scripts/check_ndjson_schema.py docs/irc-atoms.schema.json Fixtures/golden/*.irc")
        #expect(irc.status == 0, "\(irc.text)\(irc.stderr)")
        // And live output of a fixture with every optional field, not only the committed files.
        let live = try CLI.shell(
            "\(CLI.shellBinary) replay Fixtures/lines/usernotice.irc Fixtures/lines/edge-cases.irc Fixtures/lines/capture.irc --format json --with-tags --with-raw --apply-moderation | python3 Scripts/check_ndjson_schema.py docs/ndjson.schema.json -"
        )
        #expect(live.status == 0, "\(live.text)\(live.stderr)")
    }

    @Test("a real pipe into jq selects the chat texts")
    func pipeIntoJq() throws {
        let run = try CLI.shell(
            "\(CLI.shellBinary) replay Fixtures/lines/privmsg.irc --format json | jq -r 'select(.type == \"privmsg\") | .text' | head -n 2"
        )
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == "good evening chat, what did I miss?\nKappa Keepo Kappa\n")
    }

    @Test("when the reader of the pipe exits, chatcap exits 0 quietly")
    func brokenPipe() throws {
        let run = try CLI.shell(
            "set -o pipefail; \(CLI.shellBinary) replay Fixtures/lines/privmsg.irc Fixtures/lines/usernotice.irc --format json | head -n 1 > /dev/null"
        )
        #expect(run.status == 0)
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test("malformed lines are reported with file and line number, counted, and fail only with --strict")
    func malformed() throws {
        let run = try CLI.run(["replay", "Fixtures/lines/malformed.irc", "--format", "raw"])
        #expect(run.status == 0)
        #expect(run.lineCount == 4)
        for line in [2, 3, 5, 6, 7, 9] {
            #expect(run.stderr.contains("malformed.irc:\(line): malformed line"), "line \(line): \(run.stderr)")
        }
        #expect(run.stderr.contains("malformed.irc:10: line 10"))
        #expect(run.stderr.contains("summary: 4 lines read, 4 written, 6 malformed, 1 over-long skipped"))
        let strict = try CLI.run(["replay", "Fixtures/lines/malformed.irc", "--format", "raw", "--strict"])
        #expect(strict.status == 65)
    }

    @Test("bad input: missing file, empty file, empty directory, binary garbage, invalid UTF-8, truncated gzip")
    func badInput() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chatcap-bad-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }

        let missing = try CLI.run(["replay", "/nonexistent/chat.irc"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("/nonexistent/chat.irc"))

        let empty = dir.appendingPathComponent("empty.irc")
        _ = FileManager.default.createFile(atPath: empty.path, contents: Data())
        let e = try CLI.run(["replay", empty.path])
        #expect(e.status == 0 && e.stdout.isEmpty)
        #expect(e.stderr.contains("no lines"))

        let emptyDir = dir.appendingPathComponent("nothing")
        try FileManager.default.createDirectory(at: emptyDir, withIntermediateDirectories: true)
        let d = try CLI.run(["replay", emptyDir.path])
        #expect(d.status == 66)
        #expect(
            d.stderr
                == "chatcap: error: \(emptyDir.path): directory holds no chat logs (a directory gives capture's YYYY-MM-DD….log[.gz] and *.irc[.gz]; name a file to read it whatever its name)\n"
        )

        var rng = SplitMix64(seed: 7)
        let garbage = dir.appendingPathComponent("garbage.bin")
        _ = FileManager.default.createFile(
            atPath: garbage.path, contents: Data((0..<50_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
        let g = try CLI.run(["replay", garbage.path, "--format", "json"])
        #expect(g.status == 65, "\(g.stderr)")
        #expect(g.stderr.contains("no valid IRC line"))

        let utf8 = try CLI.run(["replay", "Fixtures/lines/edge-cases.irc", "--format", "json"])
        #expect(utf8.status == 0)
        #expect(utf8.text.contains("bad \u{FFFD} byte, lone \u{FFFD} lead, truncated \u{FFFD} emoji, end"))

        // A gzip cut in the middle: the lines before the damage come out, the damage is reported.
        let gz = dir.appendingPathComponent("cut.irc.gz")
        let zipped = try CLI.shell("gzip -c Fixtures/lines/privmsg.irc")
        _ = FileManager.default.createFile(
            atPath: gz.path, contents: Data(zipped.stdout.prefix(zipped.stdout.count * 2 / 3)))
        let t = try CLI.run(["replay", gz.path, "--format", "raw"])
        #expect(t.status == 0, "\(t.stderr)")
        // The first two thirds of gzip's output hold the fixture's first 14 lines whole (and part of the 15th).
        #expect(t.stdout == (try Self.fixtureLines("privmsg.irc", Array(1...14))))
        #expect(t.stderr.contains(gz.path))
        let tStrict = try CLI.run(["replay", gz.path, "--format", "raw", "--strict"])
        #expect(tStrict.status == 65)
    }

    /// Lines `numbers` (counted from 1) of `Fixtures/lines/<fixture>` with their line endings: what
    /// `replay --format raw` writes when it keeps exactly those lines.
    static func fixtureLines(_ fixture: String, _ numbers: [Int]) throws -> [UInt8] {
        let bytes = try Fixtures.bytes("lines/\(fixture)")
        var lines: [[UInt8]] = []
        var start = 0
        for (i, byte) in bytes.enumerated() where byte == 0x0A {
            lines.append(Array(bytes[start...i]))
            start = i + 1
        }
        return numbers.flatMap { lines[$0 - 1] }
    }

    /// `replay --format raw` of `arguments`: what it wrote, after checking it exited 0.
    static func raw(_ arguments: [String]) throws -> [UInt8] {
        let run = try CLI.run(["replay", "--format", "raw"] + arguments)
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout
    }

    @Test("filters: channel, user, type, time window, shared-chat de-duplication")
    func filters() throws {
        func count(_ args: [String]) throws -> Int {
            let r = try CLI.run(["replay", "--format", "raw"] + args)
            #expect(r.status == 0, "\(r.stderr)")
            return r.lineCount
        }
        // #lunafrost's lines of the shared chat, not their mirrors in #pixelharbor (with or without #).
        let luna = try Self.fixtureLines("shared-chat.irc", [1, 4, 6, 7, 10, 13])
        #expect(try Self.raw(["Fixtures/lines/shared-chat.irc", "--channel", "#lunafrost"]) == luna)
        #expect(try Self.raw(["Fixtures/lines/shared-chat.irc", "--channel", "lunafrost"]) == luna)
        #expect(
            try Self.raw(["Fixtures/lines/shared-chat.irc", "--channel", "pixelharbor"])
                == Self.fixtureLines("shared-chat.irc", [2, 3, 5, 8, 9, 11, 12]))
        #expect(try count(["Fixtures/lines/shared-chat.irc", "--type", "usernotice"]) == 4)
        #expect(try count(["Fixtures/lines/shared-chat.irc", "--type", "privmsg", "--dedupe-shared"]) == 5)
        // NightOwlGG's own lines (the login, in any case), not fernwood_'s reply naming them (line 9).
        #expect(
            try Self.raw(["Fixtures/lines/privmsg.irc", "--user", "NightOwlGG"])
                == Self.fixtureLines("privmsg.irc", [1, 10, 13, 21]))
        #expect(try Self.raw(["Fixtures/lines/privmsg.irc", "--user", "nobody_here"]).isEmpty)
        // And the lines about them: the CLEARMSG of their message, the CLEARCHAT that timed them out.
        #expect(
            try Self.raw(["Fixtures/lines/moderation.irc", "--user", "trollface99"])
                == Self.fixtureLines("moderation.irc", [1, 4, 6, 8]))
        #expect(try count(["Fixtures/lines/privmsg.irc", "--since", "2100-01-01"]) == 0)
        let bad = try CLI.run(["replay", "Fixtures/lines/privmsg.irc", "--type", "bogus"])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("unknown type 'bogus'"))
    }

    @Test("--grep keeps the lines whose message text matches the regular expression, and only those")
    func grep() throws {
        let privmsg = "Fixtures/lines/privmsg.irc"
        // Kappa is in the text of these lines; line 10 has it only in its reply-parent-msg-body tag.
        #expect(
            try Self.raw([privmsg, "--grep", "Kappa"])
                == Self.fixtureLines("privmsg.irc", [2, 6, 9, 15, 16, 17, 18, 20]))
        // A regular expression over the text alone: anchored at the text's start and end, any character.
        #expect(try Self.raw([privmsg, "--grep", "^short Kappa$"]) == Self.fixtureLines("privmsg.irc", [17, 18]))
        #expect(try Self.raw([privmsg, "--grep", "h.llo"]) == Self.fixtureLines("privmsg.irc", [16]))
        #expect(try Self.raw([privmsg, "--grep", "^Kappa"]) == Self.fixtureLines("privmsg.irc", [2, 20]))
        // Case counts, and the command, channel and tags are not the text.
        #expect(try Self.raw([privmsg, "--grep", "kappa"]).isEmpty)
        #expect(try Self.raw([privmsg, "--grep", "PRIVMSG|pixelharbor|tmi-sent-ts"]).isEmpty)
    }

    @Test("stdin, gzip and directories in time order")
    func inputs() throws {
        let bytes = try Fixtures.bytes("lines/roomstate.irc")
        let viaStdin = try CLI.run(["replay", "-", "--format", "raw"], stdin: bytes)
        #expect(viaStdin.status == 0)
        #expect(viaStdin.lineCount == 10)
        let dir = try CLI.shell(
            "d=$(mktemp -d) && mkdir -p $d/a $d/b && gzip -c Fixtures/lines/privmsg.irc > $d/a/x.irc.gz && cp Fixtures/lines/usernotice.irc $d/b/y.irc && echo $d"
        )
        let path = dir.text.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let merged = try CLI.run(["replay", path, "--format", "json"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let ts = merged.text.split(separator: "\n").compactMap { line -> String? in
            guard let r = line.range(of: "\"ts\":\"") else { return nil }
            return String(line[r.upperBound...].prefix(24))
        }
        #expect(ts.count == 49)
        #expect(ts == ts.sorted())
    }

    @Test("stats: counts, rate, span and problems in text and JSON")
    func stats() throws {
        let text = try CLI.run(["stats", "Fixtures/lines/session.irc"])
        #expect(text.status == 0)
        #expect(text.text.contains("lines: 32"))
        #expect(text.text.contains("privmsg: 3"))
        // Span and rate, against the fixture's own times: its first and last tmi-sent-ts, and its
        // messages over the span between them.
        let fixture = try String(contentsOfFile: "Fixtures/lines/session.irc", encoding: .utf8)
        let times = fixture.matches(of: #/tmi-sent-ts=(\d+)/#).compactMap { Int64($0.1) }
        let first = try #require(times.min())
        let last = try #require(times.max())
        let messages = fixture.split(whereSeparator: \.isNewline).count { $0.contains(" PRIVMSG ") }
        let (from, to) = (LogsDifferentialArchive.rfc3339(first), LogsDifferentialArchive.rfc3339(last))
        let rate = String(format: "%.2f", Double(messages) / (Double(last - first) / 1000))
        #expect(messages == 3 && last > first)
        #expect(text.text.contains("first: \(from)\n"), "\(text.text)")
        #expect(text.text.contains("last: \(to)\n"), "\(text.text)")
        #expect(text.text.contains("messages/s: \(rate)\n"), "\(rate): \(text.text)")
        let span = try CLI.shell(
            "\(CLI.shellBinary) stats Fixtures/lines/session.irc --json | jq -c '[.first, .last, .messages, .messages_per_second]'"
        )
        #expect(span.text == "[\"\(from)\",\"\(to)\",\(messages),\(rate)]\n", "\(span.text)")
        let json = try CLI.shell(
            "\(CLI.shellBinary) stats Fixtures/lines/malformed.irc --json | jq -c '[.lines, .malformed, .skipped, (.problems | length)]'"
        )
        #expect(json.text == "[4,6,1,7]\n")
    }

    @Test("help: every command and option is described")
    func help() throws {
        for command in ["replay", "dump", "stats"] {
            let run = try CLI.run([command, "--help"])
            #expect(run.status == 0)
            // Every option line carries a description after the option itself.
            let options = run.text.split(separator: "\n").filter { $0.hasPrefix("  -") }
            #expect(!options.isEmpty)
            for line in options where !line.contains("--help") {
                #expect(
                    line.split(separator: " ", omittingEmptySubsequences: true).count > 2 || line.count > 30,
                    "\(command): \(line)")
            }
        }
    }
}
