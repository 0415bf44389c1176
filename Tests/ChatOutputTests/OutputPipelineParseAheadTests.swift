import ChatFormat
import ChatInput
import ChatOutput
import ChatPosix
import ChatTestSupport
import Foundation
import Testing

/// `OutputPipeline.run` over a ``ParseAhead`` stage: the same output and summary as over the reader
/// itself, and the stage's reader thread ends with the run when the output fails or a stop is raised.
@Suite(.timeLimit(.minutes(10))) struct OutputPipelineParseAheadTests {
    /// Replays `paths` in `format` into a file, through the stage or not; the bytes and the summary.
    static func replay(
        _ paths: [String], format: OutputFormat, moderation: Bool, ahead: Bool
    ) throws -> ([UInt8], PipelineSummary, [String]) {
        var options = PipelineOptions()
        options.format = format
        options.applyModeration = moderation
        options.reportLimit = 0
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("parse-ahead-\(getpid())-\(UUID().uuidString)").path
        defer { unlink(path) }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer { close(fd) }
        let sink = OutputSink(descriptor: fd)
        var notes: [String] = []
        let pipeline = OutputPipeline(options: options, sink: sink, diagnose: { notes.append($0) })
        let reader = MergeReader(paths: paths)
        if ahead {
            try pipeline.run(ParseAhead(reader, blockBytes: 2048, blockEvents: 7, blockCount: 3))
        } else {
            try pipeline.run(reader)
        }
        return ([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), pipeline.summary, notes)
    }

    @Test(
        "every fixture log, merged: the same bytes, summary and diagnostics with the stage as without",
        arguments: [(OutputFormat.json, true), (.json, false), (.raw, false), (.text, false), (.irc, true)])
    func sameOutput(format: OutputFormat, moderation: Bool) throws {
        let paths = try Fixtures.lineFiles().map { Fixtures.directory + "/lines/" + $0 }
        let direct = try Self.replay(paths, format: format, moderation: moderation, ahead: false)
        let ahead = try Self.replay(paths, format: format, moderation: moderation, ahead: true)
        #expect(direct.0.count > 10_000)
        #expect(ahead.0 == direct.0)
        #expect(ahead.1 == direct.1)
        #expect(ahead.2 == direct.2)
        #expect(direct.2.contains { $0.contains("malformed.irc:2: malformed line") })
    }

    @Test(
        "the rare events keep their places between the lines on the line path: each diagnostic comes after as many lines as without the stage",
        arguments: [(1, 1), (64, 3), (300, 2), (4096, 1024)])
    func rareEventsInPlace(blockBytes: Int, blockEvents: Int) throws {
        let dir = try InputTempDirectory()
        func line(_ ms: Int, _ text: String) -> String {
            "@tmi-sent-ts=\(1_763_699_000_000 + ms) :u!u@u.tmi.twitch.tv PRIVMSG #c :\(text)\r\n"
        }
        let text =
            line(1, "one") + line(2, "two") + "@only=tags\r\n" + line(3, String(repeating: "x", count: 300))
            + line(4, "four") + line(5, "fi\rve") + "@bad\r\n" + line(6, "six")
        let log = try dir.write("a.log", Array(text.utf8))
        /// Each diagnostic with the number of lines handled before it.
        func notes(ahead: Bool) throws -> [String] {
            var options = PipelineOptions()
            options.reportLimit = 0
            final class Box { var pipeline: OutputPipeline? = nil }
            let box = Box()
            var notes: [String] = []
            let pipeline = OutputPipeline(
                options: options, sink: nil, diagnose: { notes.append("\(box.pipeline!.summary.lines) \($0)") })
            box.pipeline = pipeline
            let reader = MergeReader(paths: [log], maxLineLength: 100)
            if ahead {
                try pipeline.run(ParseAhead(reader, blockBytes: blockBytes, blockEvents: blockEvents, blockCount: 2))
            } else {
                try pipeline.run(reader)
            }
            #expect(pipeline.summary.lines == 5)
            return notes
        }
        let direct = try notes(ahead: false)
        #expect(direct.map { $0.prefix(while: { $0 != " " }) } == ["2", "2", "3", "4"])
        #expect(try notes(ahead: true) == direct)
    }

    @Test("an output error (EPIPE) ends the run and the reader thread: a 60,000-line log is not read on")
    func outputErrorStopsReading() throws {
        signal(SIGPIPE, SIG_IGN)
        let dir = try InputTempDirectory()
        let log = try dir.write("big.log", sampleChatLines(60_000))
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])
        defer { close(fds[1]) }
        var options = PipelineOptions()
        options.format = .json
        let pipeline = OutputPipeline(options: options, sink: OutputSink(descriptor: fds[1]), diagnose: { _ in })
        let stage = ParseAhead(MergeReader(paths: [log]), blockBytes: 64 * 1024, blockEvents: 16, blockCount: 2)
        #expect(throws: OutputError.closed) { try pipeline.run(stage) }
        let handled = pipeline.summary.lines
        let read = stage.statistics.lines
        #expect(handled > 0 && handled < 60_000)
        #expect(read <= handled + 2 * 16 + 1, "read \(read) lines for \(handled) handled")
    }

    @Test("a raised stop flag ends the run at once and the reader thread with it")
    func stopFlagStopsReading() throws {
        let dir = try InputTempDirectory()
        let log = try dir.write("big.log", sampleChatLines(60_000))
        let pipeline = OutputPipeline(options: PipelineOptions(), sink: nil, diagnose: { _ in })
        let stop = StopFlag()
        pipeline.stop = stop
        stop.raise()
        let stage = ParseAhead(MergeReader(paths: [log]), blockBytes: 64 * 1024, blockEvents: 16, blockCount: 2)
        try pipeline.run(stage)
        #expect(pipeline.summary.lines == 0)
        #expect(stage.statistics.lines <= 2 * 16 + 1)
    }
}
