import ChatFormat
import ChatInput
import ChatOutput
import ChatTestSupport
import Foundation
import Testing

/// Issue #12 items 6 and 14: lines of channels past the store's channel limit are written (or, for
/// `dump`, counted as dropped) and never silently lost; the number of problems described one by one
/// is configurable, 0 for all.
@Suite struct PipelineLimitsTests {
    /// What one run of the pipeline printed, wrote and counted.
    struct Outcome {
        var output: [UInt8]
        var diagnostics: [String]
        var summary: PipelineSummary
        /// Output lines without their CRLF.
        var outputLines: [String] {
            String(decoding: output, as: UTF8.self).split(separator: "\r\n").map(String.init)
        }
    }

    /// `rounds` lines in each of `channels` channels, round by round (channel c of round r is line
    /// `r * channels + c + 1`), without terminator.
    static func chat(channels: Int, rounds: Int) -> [String] {
        (0..<rounds).flatMap { r in (0..<channels).map { c in "@id=m\(r)-\(c) :u!u@u PRIVMSG #ch\(c) :line \(r)" } }
    }

    /// Replays `lines` (written CRLF-terminated) from a file through ``OutputPipeline`` into a file (or into the store only, for
    /// `dump`, when `toSink` is false).
    static func replay(
        _ lines: [String], toSink: Bool = true, _ configure: (inout PipelineOptions) -> Void
    ) throws -> Outcome {
        let dir = try InputTempDirectory()
        let input = try dir.write("t.irc", Array(lines.map { $0 + "\r\n" }.joined().utf8))
        let outPath = try dir.file("out")
        let fd = open(outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        var options = PipelineOptions()
        options.format = .raw
        configure(&options)
        nonisolated(unsafe) var diagnostics: [String] = []
        let sink = OutputSink(descriptor: fd)
        let pipeline = OutputPipeline(options: options, sink: toSink ? sink : nil, diagnose: { diagnostics.append($0) })
        try pipeline.run(try MergeReader(arguments: [input]))
        let output = try [UInt8](Data(contentsOf: URL(fileURLWithPath: outPath)))
        return Outcome(output: output, diagnostics: diagnostics, summary: pipeline.summary)
    }

    /// Lines of the 6 channels past a limit of 64, in `chat(channels: 70, rounds: 2)`.
    static let pastLimit = [65, 66, 67, 68, 69, 70, 135, 136, 137, 138, 139, 140]

    @Test(
        "70 channels over a limit of 64: all 140 lines written in input order, the 12 past the limit counted as untracked"
    )
    func untrackedWrittenThrough() throws {
        let lines = Self.chat(channels: 70, rounds: 2)
        let run = try Self.replay(lines) { $0.channelLimit = 64 }
        #expect(run.outputLines == lines)
        #expect(run.summary.lines == 140)
        #expect(run.summary.written == 140)
        #expect(run.summary.untracked == 12)
        #expect(run.summary.dropped == 0)
        #expect(run.summary.hasProblems)
        #expect(run.summary.losesLines == false)
        #expect(run.diagnostics.count == 12, "\(run.diagnostics)")
        for (line, message) in zip(Self.pastLimit, run.diagnostics) {
            #expect(message.contains("t.irc:\(line): channel #ch"), "\(message)")
            #expect(message.contains("limit of 64 channels"), "\(message)")
        }
        #expect(
            run.summary.description
                == "140 lines read, 140 written, 12 untracked (channels past the limit of 64: no moderation or de-duplication)"
        )
    }

    @Test(
        "with --apply-moderation and a full ring per line, lines past the limit are held in order and all 140 written"
    )
    func untrackedHeldInOrder() throws {
        let lines = Self.chat(channels: 70, rounds: 3)
        let run = try Self.replay(lines) {
            $0.channelLimit = 64
            $0.applyModeration = true
            $0.capacity = 1
        }
        #expect(run.outputLines == lines)
        #expect(run.summary.lines == 210)
        #expect(run.summary.written == 210)
        #expect(run.summary.untracked == 18)
        #expect(run.summary.dropped == 0)
        #expect(run.diagnostics.count == 18)
    }

    @Test("dump (store only): the 12 lines past the limit are counted as dropped, and the run loses lines")
    func dumpDrops() throws {
        let lines = Self.chat(channels: 70, rounds: 2)
        let run = try Self.replay(lines, toSink: false) { $0.channelLimit = 64 }
        #expect(run.summary.lines == 140)
        #expect(run.summary.written == 0)
        #expect(run.summary.untracked == 0)
        #expect(run.summary.dropped == 12)
        #expect(run.summary.losesLines)
        #expect(run.diagnostics.count == 12)
        #expect(run.diagnostics.first?.contains("t.irc:65: channel #ch64") == true, "\(run.diagnostics)")
        #expect(run.diagnostics.first?.contains("dropped") == true, "\(run.diagnostics)")
        #expect(
            run.summary.description
                == "140 lines read, 0 written, 12 dropped (channels past the limit of 64)")
    }

    // MARK: Report limit

    /// 30 malformed lines between two good ones.
    static let malformed = [":u!u@u PRIVMSG #a :first"] + (0..<30).map { _ in "@bad" } + [":u!u@u PRIVMSG #a :last"]

    @Test("report limit 3: three problems described, then one 'only counted' line; all 30 counted")
    func reportLimitThree() throws {
        let run = try Self.replay(Self.malformed) { $0.reportLimit = 3 }
        #expect(run.summary.malformed == 30)
        #expect(run.diagnostics.count == 4, "\(run.diagnostics)")
        // Lines 2, 3 and 4 of the input (after the good first line), each with its position and reason.
        #expect(
            run.diagnostics.prefix(3).map { $0.replacing(/^.*\/t\.irc:/, with: "t.irc:") } == [
                "t.irc:2: malformed line: no command (byte 4) — skipped",
                "t.irc:3: malformed line: no command (byte 4) — skipped",
                "t.irc:4: malformed line: no command (byte 4) — skipped",
            ])
        #expect(run.diagnostics.prefix(3).allSatisfy { $0.hasPrefix(NSTemporaryDirectory()) })
        #expect(run.diagnostics.last == "(further problems are only counted; see the summary)")
    }

    @Test("report limit 0: all 30 problems described, none only counted")
    func reportLimitZero() throws {
        let run = try Self.replay(Self.malformed) { $0.reportLimit = 0 }
        #expect(run.summary.malformed == 30)
        #expect(run.diagnostics.count == 30, "\(run.diagnostics)")
        for (i, message) in run.diagnostics.enumerated() { #expect(message.contains("t.irc:\(i + 2):"), "\(message)") }
    }

    @Test("the default report limit is 20")
    func reportLimitDefault() throws {
        let run = try Self.replay(Self.malformed) { _ in }
        #expect(run.diagnostics.count == 21)
        #expect(PipelineOptions().reportLimit == 20)
    }

    @Test("stats: list limit 0 lists all 30 problems; 3 lists three and counts the rest")
    func statsListLimit() throws {
        let dir = try InputTempDirectory()
        let input = try dir.write("t.irc", Array(Self.malformed.map { $0 + "\r\n" }.joined().utf8))
        for (limit, listed) in [(0, 30), (3, 3), (100, 30)] {
            let stats = StatsCollector(listLimit: limit)
            try MergeReader(arguments: [input]).forEachEvent { event, bytes in stats.handle(event, bytes) }
            #expect(stats.malformed == 30)
            #expect(stats.problems.count == listed, "limit \(limit)")
            #expect(stats.text().contains("… and 27 more") == (limit == 3), "limit \(limit)")
        }
    }
}
