import ChatFormat
import ChatInput
import ChatMemory
import ChatOutput
import ChatStore
import Foundation
import IRCWire
import Testing

/// The moderation look-ahead's limits, driven line by line: the live clock releases a quiet channel's
/// line when its window has passed, and a full hold releases lines early, counted and said once.
@Suite struct ModerationHoldTests {
    final class Notes: @unchecked Sendable {  // one thread
        var messages: [String] = []
    }

    static func feed(_ pipeline: OutputPipeline, _ line: String, number: Int, at ms: Int64) throws {
        let bytes = Array(line.utf8)
        let message = try TwitchMessage.parse(bytes.span)
        let at = MergedLine(
            inputName: "t", inputIndex: 0, lineNumber: number, byteOffset: 0,
            timestamp: Timestamp(milliseconds: ms), timeSource: .tmiSentTs)
        try pipeline.handle(.line(at, message), bytes.span)
    }

    /// JSON output with the moderation look-ahead on, held for `window` milliseconds.
    static func holding(window: Int64?) -> PipelineOptions {
        var options = PipelineOptions()
        options.format = .json
        options.applyModeration = true
        options.moderationWindow = window
        return options
    }

    static func devNull() -> OutputSink { OutputSink(descriptor: open("/dev/null", O_WRONLY | O_CLOEXEC)) }

    @Test("live: a quiet channel's line is written once the wall clock passes its window, not before")
    func liveWindow() throws {
        let options = Self.holding(window: 5_000)
        let pipeline = OutputPipeline(options: options, sink: Self.devNull(), diagnose: { _ in })
        let t: Int64 = 1_763_700_000_000
        try Self.feed(pipeline, "@id=q;tmi-sent-ts=\(t) :bob!bob@b PRIVMSG #quiet :hi", number: 1, at: t)
        try pipeline.releaseDue(now: Timestamp(milliseconds: t + 4_999))
        #expect(pipeline.summary.written == 0)
        try pipeline.releaseDue(now: Timestamp(milliseconds: t + 5_000))
        #expect(pipeline.summary.written == 1)
        try pipeline.finish()
        #expect(pipeline.summary.written == 1)
        #expect(pipeline.summary.releasedEarly == 0)
    }

    @Test("a memory budget trims written lines of the least recent channel, never a line the look-ahead holds")
    func budgetKeepsHeldLines() throws {
        var options = Self.holding(window: 60_000)
        options.budget = MemoryBudget(limit: 16 << 10)
        let pipeline = OutputPipeline(options: options, sink: Self.devNull(), diagnose: { _ in })
        let t: Int64 = 1_763_700_000_000
        for i in 0..<300 {
            try Self.feed(pipeline, "@id=o\(i);tmi-sent-ts=\(t) :bob!bob@b PRIVMSG #old :\(i)", number: i + 1, at: t)
        }
        // The window of #old's lines passes: they are written, and only the ring still has them.
        try pipeline.releaseDue(now: Timestamp(milliseconds: t + 60_000))
        #expect(pipeline.summary.written == 300)
        let later = t + 61_000
        for i in 0..<300 {
            try Self.feed(
                pipeline, "@id=c\(i);tmi-sent-ts=\(later) :al!al@a PRIVMSG #c :\(i)", number: 301 + i, at: later)
        }
        try Self.feed(
            pipeline, "@target-msg-id=c0;tmi-sent-ts=\(later) :tmi.twitch.tv CLEARMSG #c :0", number: 601, at: later)
        let budget = try #require(pipeline.store.budget)
        // #old (written) down to the floor of 150; #c (all held) whole, so the CLEARMSG still reaches c0.
        #expect(pipeline.store.log(named: "old")!.ring.liveRange == 150..<300)
        #expect(pipeline.store.log(named: "c")!.ring.liveRange == 0..<301)
        #expect(budget.trimmedEntries == 150)
        let reader = try #require(pipeline.store.readers.makeReader())
        let mark = pipeline.store.log(named: "c")!.ring.withEntry(0, reader: reader) { info, _ in info.tombstone }
        guard case .found(let tombstone) = mark else {
            Issue.record("c0 was released while held")
            return
        }
        #expect(tombstone == .deleted)
        try pipeline.finish()
        #expect(pipeline.summary.written == 601)
        #expect(pipeline.summary.releasedEarly == 0)
    }

    @Test("a held line its ring evicts keeps the marks it had: a 2-entry ring, a deleted message pushed out")
    func evictedWhileHeld() throws {
        var options = Self.holding(window: 60_000)
        options.capacity = 2
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("evicted-held-\(getpid()).json").path
        defer { unlink(path) }
        let sink = OutputSink(descriptor: open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600))
        let pipeline = OutputPipeline(options: options, sink: sink, diagnose: { _ in })
        let t: Int64 = 1_763_700_000_000
        try Self.feed(pipeline, "@id=a;tmi-sent-ts=\(t) :bob!bob@b PRIVMSG #c :first", number: 1, at: t)
        try Self.feed(
            pipeline, "@login=bob;target-msg-id=a;tmi-sent-ts=\(t + 1) :tmi.twitch.tv CLEARMSG #c :first", number: 2,
            at: t + 1)
        try Self.feed(pipeline, "@id=b;tmi-sent-ts=\(t + 2) :ann!ann@a PRIVMSG #c :second", number: 3, at: t + 2)
        try Self.feed(pipeline, "@id=c;tmi-sent-ts=\(t + 3) :ann!ann@a PRIVMSG #c :third", number: 4, at: t + 3)
        try pipeline.finish()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        let first = try #require(lines.first { $0.contains("\"id\":\"a\"") })
        #expect(first.contains("\"deleted\":true"), "\(first)")
        let second = try #require(lines.first { $0.contains("\"id\":\"b\"") })
        #expect(!second.contains("\"deleted\":true"))
    }

    @Test("a full hold releases the oldest lines early: counted in the summary, said once on stderr")
    func holdLimit() throws {
        var options = Self.holding(window: nil)
        options.moderationHoldLimit = 1_024
        let notes = Notes()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hold-limit-\(getpid()).json").path
        defer { unlink(path) }
        let sink = OutputSink(descriptor: open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600))
        let pipeline = OutputPipeline(options: options, sink: sink, diagnose: { notes.messages.append($0) })
        let t: Int64 = 1_763_700_000_000
        try Self.feed(pipeline, "@id=q;tmi-sent-ts=\(t) :bob!bob@b PRIVMSG #quiet :hi", number: 1, at: t)
        for i in 0..<100 {
            try Self.feed(
                pipeline, "@id=b\(i);tmi-sent-ts=\(t + 1) :ann!ann@a PRIVMSG #busy :message number \(i)",
                number: i + 2, at: t + 1)
        }
        let early = pipeline.summary.releasedEarly
        #expect(early == 88, "1,024 bytes hold the last 13 of the 101 lines")
        #expect(pipeline.summary.written == early)
        // The lines out early are the oldest ones, in order: the quiet channel's, then the busy one's first.
        try sink.flush()
        let ids = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map {
            $0.firstMatch(of: /"id":"([a-z0-9]+)"/).map { String($0.1) } ?? "?"
        }
        #expect(ids == ["q"] + (0..<(early - 1)).map { "b\($0)" })
        try pipeline.finish()
        #expect(pipeline.summary.written == 101)
        #expect(pipeline.summary.releasedEarly == early)
        #expect(pipeline.summary.hasProblems)
        #expect(pipeline.summary.description.contains("\(early) released before their moderation look-ahead ended"))
        #expect(notes.messages.filter { $0.contains("moderation look-ahead") }.count == 1, "\(notes.messages)")
    }
}
