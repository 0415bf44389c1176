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
    /// Replays `paths` in `format` into a file, through the stage or not (its lines rendered ahead
    /// with `render`, parsed as `sharing` says); the bytes and the summary.
    static func replay(
        _ paths: [String], format: OutputFormat, moderation: Bool, ahead: Bool, render: Bool = false,
        sharing: ParseAhead.Sharing = .claimed, json: JSONOptions = JSONOptions(), dedupeShared: Bool = false
    ) throws -> ([UInt8], PipelineSummary, [String]) {
        var options = PipelineOptions()
        options.format = format
        options.applyModeration = moderation
        options.json = json
        options.dedupeShared = dedupeShared
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
            let renderer = render ? pipeline.renderer() : nil
            #expect((renderer != nil) == render)
            try pipeline.run(
                ParseAhead(
                    reader, blockBytes: 2048, blockEvents: 7, blockCount: 3, sharing: sharing, renderer: renderer))
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

    /// Lines whose output is easy to get wrong: escapes in tags and text, quotes and backslashes,
    /// control bytes, invalid UTF-8, unicode, empty and key-only tags, numbers past 64 bits, a time
    /// tag, lines without tags or time (their time inherited, their `ts` null), other commands.
    static func oddLines() -> [UInt8] {
        var out: [UInt8] = []
        func add(_ line: String) { out += Array((line + "\r\n").utf8) }
        add("@tmi-sent-ts=99999999999999999999999;id=x :u!u@u.tmi.twitch.tv PRIVMSG #c :huge ts")
        add("@bits=18446744073709551616;tmi-sent-ts=1763700000000;id=b :u!u@u PRIVMSG #c :cheer100 huge bits")
        add(#"@emotes=25:0-4;tmi-sent-ts=1763700000001 :u!u@u PRIVMSG #c :Kappa "quoted" \ back"#)
        add(
            #"@display-name=a\sb\:c\\d\r\n\x\;color=;badges=;badge-info=;tmi-sent-ts=1763700000002 :u!u@u PRIVMSG #c :"#
                + "\u{1}ACTION waves\u{1}")
        add("@=;;a;b= :u!u@u PRIVMSG #c :empty keys")
        add(#"@time=2025-11-21T04:40:00.123Z :u!u@u PRIVMSG #ch"an\ :quote in channel"#)
        out += Array("@tmi-sent-ts=1763700000003;display-name=x :u!u@u PRIVMSG #c :bad ".utf8)
        out += [0xFF, 0xC3, 0x20, 0xE2, 0x82, 0x20, 0xF0, 0x9F, 0x98, 0x80, 0x0D, 0x0A]
        add("@tmi-sent-ts=1763700000004 :u!u@u PRIVMSG #c :ünïcödé 漢字 👨‍👩‍👧 \u{7}bell\ttab\u{7F}")
        add(":u!u@u PRIVMSG #c :no tags, inherited time")
        add("PING :tmi.twitch.tv")
        add(
            "@ban-duration=99999999999999999999;room-id=1;target-user-id=2;tmi-sent-ts=1763700000005 :tmi.twitch.tv CLEARCHAT #c :victim"
        )
        add(
            #"@msg-id=sub;msg-param-cumulative-months=99999999999999999999;login=g;system-msg=a\\sb;tmi-sent-ts=1763700000006 :tmi.twitch.tv USERNOTICE #c :hi"#
        )
        add("@source-room-id=9;source-id=s;room-id=1;id=m;tmi-sent-ts=1763700000007 :u!u@u PRIVMSG #c :shared")
        add("@source-room-id=9;source-id=s;room-id=2;id=m2;tmi-sent-ts=1763700000008 :u!u@u PRIVMSG #d :shared")
        add(":tmi.twitch.tv 353 me = #c :a b c")
        add(":u!u@u.tmi.twitch.tv JOIN #c")
        return out
    }

    @Test(
        "lines rendered where the stage parses them: the same bytes, summary and diagnostics as encoded by the owner, whoever parses each block",
        arguments: [
            (OutputFormat.json, JSONOptions()), (.json, JSONOptions(withTags: true, withRaw: true)),
            (.irc, JSONOptions()), (.text, JSONOptions()),
        ])
    func renderedAhead(format: OutputFormat, json: JSONOptions) throws {
        let dir = try InputTempDirectory()
        let odd = try dir.write("odd.log", Self.oddLines())
        var paths = try Fixtures.lineFiles().map { Fixtures.directory + "/lines/" + $0 }
        paths.append(odd)
        for inputs in [[odd], paths] {
            for dedupeShared in [false, true] {
                let direct = try Self.replay(
                    inputs, format: format, moderation: false, ahead: false, json: json, dedupeShared: dedupeShared)
                #expect(direct.0.count > 400)
                for sharing in [ParseAhead.Sharing.claimed, .owner, .alternate] {
                    let ahead = try Self.replay(
                        inputs, format: format, moderation: false, ahead: true, render: true, sharing: sharing,
                        json: json, dedupeShared: dedupeShared)
                    // The first differing byte, not the whole outputs: printing those takes minutes.
                    let differs = Self.firstDifference(ahead.0, direct.0)
                    #expect(
                        differs == nil,
                        "\(inputs.count) inputs, \(sharing), dedupe \(dedupeShared): differs at byte \(differs ?? 0)")
                    #expect(ahead.1 == direct.1)
                    #expect(ahead.2 == direct.2)
                }
            }
        }
    }

    /// Where `a` and `b` first differ (`nil`: they are equal).
    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int? {
        if let i = zip(a, b).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset { return i }
        return a.count == b.count ? nil : min(a.count, b.count)
    }

    /// Renders every line as `R<line number>` and a newline.
    final class MarkRenderer: LineRendering, @unchecked Sendable {  // one block's, one thread at a time
        private var output: [UInt8] = []
        var count: Int { output.count }
        func reset() { output.removeAll(keepingCapacity: true) }
        func render(_ line: inout LentLine, _ bytes: Span<UInt8>) -> Bool {
            output += Array("R\(line.lineNumber)\n".utf8)
            return true
        }
        func withOutput(_ body: (Span<UInt8>) -> Void) {
            let bytes = output
            body(bytes.span)
        }
    }

    @Test("the owner writes a line's rendering as it is, instead of encoding the line")
    func renderingIsWritten() throws {
        let dir = try InputTempDirectory()
        let log = try dir.write("a.log", sampleChatLines(50))
        let path = dir.path + "/out"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        var options = PipelineOptions()
        options.format = .json
        let pipeline = OutputPipeline(options: options, sink: OutputSink(descriptor: fd), diagnose: { _ in })
        try pipeline.run(
            ParseAhead(MergeReader(paths: [log]), blockBytes: 1024, blockEvents: 4, renderer: { MarkRenderer() }))
        close(fd)
        let written = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
        #expect(written == (1...50).map { "R\($0)\n" }.joined())
        #expect(pipeline.summary.written == 50)
    }

    @Test("nothing is rendered ahead for raw output, with moderation, or without a sink")
    func noRendererWhereItDoesNotApply() {
        func renders(_ format: OutputFormat, moderation: Bool, sink: Bool) -> Bool {
            var options = PipelineOptions()
            options.format = format
            options.applyModeration = moderation
            let out = sink ? OutputSink(descriptor: -1) : nil
            return OutputPipeline(options: options, sink: out, diagnose: { _ in }).renderer() != nil
        }
        #expect(renders(.json, moderation: false, sink: true))
        #expect(renders(.irc, moderation: false, sink: true))
        #expect(renders(.text, moderation: false, sink: true))
        #expect(!renders(.raw, moderation: false, sink: true))
        #expect(!renders(.json, moderation: true, sink: true))
        #expect(!renders(.json, moderation: false, sink: false))
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
