import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `replay`, `stats`, `dump` and `serve` of a directory of 10,000 files under `ulimit -n 256` (issue
/// #12 item 5): every line, in time order, with a bounded number of files open at once; and an input
/// that cannot be opened because descriptors ran out exits 66 naming the file.
@Suite(.serialized, .timeLimit(.minutes(20))) struct ManyInputsCLITests {
    static let descriptorLimit = 256

    /// Where `actual` first differs from `expected`, briefly (`nil` when equal): a failed `==` on
    /// 30,000 lines would print them all.
    static func difference(_ actual: [String], _ expected: [String]) -> String? {
        guard actual != expected else { return nil }
        let common = min(actual.count, expected.count)
        let at = (0..<common).first { actual[$0] != expected[$0] } ?? common
        let got = at < actual.count ? actual[at] : "(end)"
        let wanted = at < expected.count ? expected[at] : "(end)"
        return "\(actual.count) lines, \(expected.count) expected; line \(at + 1) is '\(got)', expected '\(wanted)'"
    }

    @Test(
        "replay, stats, dump and serve of 10,000 files under ulimit -n 256: every line, in time order",
        arguments: ManyInputFiles.Layout.allCases)
    func everyCommand(layout: ManyInputFiles.Layout) throws {
        // One directory for the four commands: writing 10,000 files is the slow part.
        let root = try InputTempDirectory("many-inputs-\(layout)")
        defer { root.removeQuickly() }
        let files = try ManyInputFiles(in: root.path, layout: layout)
        try replay(files)
        try stats(files)
        try dump(files)
        try serve(files)
    }

    /// `replay --format raw` writes all 30,000 lines in time order.
    func replay(_ files: ManyInputFiles) throws {
        let run = try CLI.run(
            ["replay", "--format", "raw", files.directory], descriptorLimit: Self.descriptorLimit)
        #expect(run.status == 0, "replay: \(run.stderr)")
        #expect(run.stderr == "", "replay")
        #expect(run.lineCount == 30_000, "replay")
        let written = run.text.split(separator: "\r\n").map(String.init)
        #expect(Self.difference(written, files.lines.map(\.raw)) == nil, "replay")
    }

    /// `stats` counts all 30,000 lines, per channel, and no damaged input.
    func stats(_ files: ManyInputFiles) throws {
        let run = try CLI.run(["stats", files.directory], descriptorLimit: Self.descriptorLimit)
        #expect(run.status == 0, "stats: \(run.stderr)")
        #expect(run.stderr == "", "stats")
        #expect(run.text.hasPrefix("lines: 30000\nmessages: 30000\n"), "stats: \(run.text.prefix(200))")
        #expect(run.text.contains("malformed: 0\nskipped (over-long): 0\ndamaged inputs: 0\n"), "stats")
        for c in 0..<ManyInputFiles.channelCount {
            #expect(run.text.contains("  ch\(c): \(files.lines(of: "ch\(c)").count)\n"), "stats: ch\(c)")
        }
    }

    /// `dump` holds every line of every channel, in time order.
    func dump(_ files: ManyInputFiles) throws {
        let run = try CLI.run(
            ["dump", "--capacity", "6000", "--last", "6000", files.directory], descriptorLimit: Self.descriptorLimit)
        #expect(run.status == 0, "dump: \(run.stderr)")
        #expect(run.stderr == "", "dump")
        #expect(run.lineCount == 30_000, "dump")
        var texts: [String: [String]] = [:]
        for line in run.stdout.split(separator: 0x0A) {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            guard let channel = object?["channel"] as? String, let text = object?["text"] as? String else {
                Issue.record("dump: not a message: \(String(decoding: line, as: UTF8.self))")
                continue
            }
            texts[channel, default: []].append(text)
        }
        for c in 0..<ManyInputFiles.channelCount {
            let expected = files.lines(of: "ch\(c)").map(\.text)
            #expect(Self.difference(texts["ch\(c)"] ?? [], expected) == nil, "dump: ch\(c)")
        }
    }

    /// `serve` sends a client every line of the channel it joined, in order.
    func serve(_ files: ManyInputFiles) throws {
        let server = try ServeProcess(
            [files.directory, "--port", "0", "--speed", "max"], descriptorLimit: Self.descriptorLimit)
        // ch5 is the gzip-compressed channel of the capture layout.
        let expected = files.lines(of: "ch5").map(\.text)
        let client = try ServeLineClient(port: server.port)
        client.send("NICK justinfan77", "JOIN #ch5")
        let last = " PRIVMSG #ch5 :" + expected.last!
        let lines = client.lines(until: { $0.hasSuffix(last) }, timeoutMs: 60_000)
        let texts = lines.compactMap { line -> String? in
            guard let range = line.range(of: " PRIVMSG #ch5 :") else { return nil }
            return String(line[range.upperBound...])
        }
        #expect(texts.count == expected.count, "serve")
        #expect(Self.difference(texts, expected) == nil, "serve")
        client.send("QUIT")
        #expect(
            server.waitForStderr(
                containing: "(justinfan77) disconnected: \(expected.count) line\(expected.count == 1 ? "" : "s") sent"),
            "serve: \(server.stderr)")
        #expect(server.stop() == 0, "serve: \(server.stderr)")
        #expect(!server.stderr.contains("Too many open files"), "serve: \(server.stderr)")
    }

    @Test(
        "an input that cannot be opened because descriptors ran out exits 66 naming it (replay, stats, dump)",
        arguments: ["replay", "stats", "dump"])
    func descriptorsExhausted(command: String) throws {
        let dir = try InputTempDirectory("descriptors-exhausted-\(command)")
        let first = try dir.write(
            "a.log",
            Array(
                "@tmi-sent-ts=1000 :a!a@a PRIVMSG #c :a1\r\n@tmi-sent-ts=3000 :a!a@a PRIVMSG #c :a3\r\n".utf8))
        let second = try dir.write("b.log", Array("@tmi-sent-ts=2000 :b!b@b PRIVMSG #c :b2\r\n".utf8))
        // Under ulimit -n 4 only descriptor 3 is free: the first file takes it.
        let run = try CLI.run([command, first, second], descriptorLimit: 4)
        #expect(run.status == 66, "\(run.stderr)")
        #expect(
            run.stderr.contains("chatcap: error: \(second): cannot open: Too many open files"), "\(run.stderr)")
    }
}
