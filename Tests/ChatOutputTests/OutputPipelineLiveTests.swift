import ChatFormat
import ChatInput
import ChatOutput
import ChatStore
import ChatTestSupport
import Foundation
import IRCWire
import Testing
import TwitchSession

/// Live chat into the pipeline (`tail`, `OutputPipeline+Live.swift`): lines of one input named `live`,
/// timed by their tags else by their receive time, and the live session's problems counted as a file
/// input's would be.
@Suite struct OutputPipelineLiveTests {
    final class Notes: @unchecked Sendable {  // one thread
        var messages: [String] = []
    }

    /// Runs `body` over a JSON pipeline (from `since`) writing into a temporary file; returns its output lines and
    /// diagnostics.
    static func run(
        since: Timestamp? = nil, _ body: (OutputPipeline) throws -> Void
    ) throws -> (lines: [String], notes: [String], summary: PipelineSummary) {
        let dir = try InputTempDirectory()
        let path = try dir.file("out")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        var options = PipelineOptions()
        options.format = .json
        options.since = since
        let notes = Notes()
        let pipeline = OutputPipeline(
            options: options, sink: OutputSink(descriptor: fd),
            diagnose: {
                notes.messages.append($0)
            })
        try body(pipeline)
        try pipeline.finish()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return (text.split(separator: "\n").map(String.init), notes.messages, pipeline.summary)
    }

    static func line(_ pipeline: OutputPipeline, _ text: String, receivedAt wallMs: Int64, number: Int) throws {
        let bytes = Array(text.utf8)
        let message = try TwitchMessage.parse(bytes.span)
        try pipeline.handleLive(
            bytes.span, message, receivedAt: Moment(monotonicMs: 0, wallMs: wallMs), lineNumber: number)
    }

    @Test("a line's ts is its tmi-sent-ts; a line without a time tag has ts null, filtered by its receive time")
    func lineTimes() throws {
        let received: Int64 = 1_763_700_000_000  // 2025-11-21T04:40:00.000Z
        let run = try Self.run(since: Timestamp(milliseconds: received - 1_000)) { pipeline in
            try Self.line(
                pipeline, "@id=a;tmi-sent-ts=\(received - 500) :bob!bob@b PRIVMSG #c :tagged", receivedAt: received,
                number: 1)
            try Self.line(pipeline, ":bob!bob@b PRIVMSG #c :untagged", receivedAt: received, number: 2)
            // Before `--since` by its receive time: filtered out.
            try Self.line(pipeline, ":bob!bob@b PRIVMSG #c :early", receivedAt: received - 2_000, number: 3)
        }
        try #require(run.lines.count == 2)
        #expect(run.lines[0].contains(#""ts":"2025-11-21T04:39:59.500Z""#))
        #expect(run.lines[0].contains(#""text":"tagged""#))
        #expect(run.lines[1].contains(#""ts":null"#))
        #expect(run.lines[1].contains(#""text":"untagged""#))
        #expect(run.summary.lines == 3)
        #expect(run.summary.written == 2)
        #expect(run.notes.isEmpty)
    }

    @Test("problems: a malformed line at live:N, a cut-off line and a failed backfill, each counted or said once")
    func problems() throws {
        let run = try Self.run { pipeline in
            try pipeline.handleLive(.malformed(lineNumber: 7, .empty))
            try pipeline.handleLive(.cutOff(droppedBytes: 12, reason: .endOfStream))
            try pipeline.handleLive(.backfillFailed(channel: "c", reason: "HTTP 503"))
        }
        #expect(run.lines.isEmpty)
        #expect(run.summary.malformed == 1)
        #expect(run.summary.cutOff == 1)
        #expect(
            run.notes == [
                "live:7: malformed line: \(LineError.empty) — skipped",
                LiveProblem.cutOff(droppedBytes: 12, reason: .endOfStream).description,
                LiveProblem.backfillFailed(channel: "c", reason: "HTTP 503").description,
            ])
    }
}
