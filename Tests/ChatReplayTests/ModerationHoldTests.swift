import ChatArchive
import ChatFormat
import ChatReplay
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

    static func feed(_ replay: Replay, _ line: String, number: Int, at ms: Int64) throws {
        let bytes = Array(line.utf8)
        let message = try TwitchMessage.parse(bytes.span)
        let at = MergedLine(
            inputName: "t", inputIndex: 0, lineNumber: number, byteOffset: 0,
            timestamp: Timestamp(milliseconds: ms), timeSource: .tmiSentTs)
        try replay.handle(.line(at, message), bytes.span)
    }

    static func devNull() -> OutputSink { OutputSink(descriptor: open("/dev/null", O_WRONLY | O_CLOEXEC)) }

    @Test("live: a quiet channel's line is written once the wall clock passes its window, not before")
    func liveWindow() throws {
        var options = ReplayOptions()
        options.format = .json
        options.applyModeration = true
        options.moderationWindow = 5_000
        let replay = Replay(options: options, sink: Self.devNull(), diagnose: { _ in })
        let t: Int64 = 1_763_700_000_000
        try Self.feed(replay, "@id=q;tmi-sent-ts=\(t) :bob!bob@b PRIVMSG #quiet :hi", number: 1, at: t)
        try replay.releaseDue(wallMilliseconds: t + 4_999)
        #expect(replay.summary.written == 0)
        try replay.releaseDue(wallMilliseconds: t + 5_000)
        #expect(replay.summary.written == 1)
        try replay.finish()
        #expect(replay.summary.written == 1)
        #expect(replay.summary.releasedEarly == 0)
    }

    @Test("a full hold releases the oldest lines early: counted in the summary, said once on stderr")
    func holdLimit() throws {
        var options = ReplayOptions()
        options.format = .json
        options.applyModeration = true
        options.moderationWindow = nil
        options.moderationHoldLimit = 1_024
        let notes = Notes()
        let replay = Replay(options: options, sink: Self.devNull(), diagnose: { notes.messages.append($0) })
        let t: Int64 = 1_763_700_000_000
        try Self.feed(replay, "@id=q;tmi-sent-ts=\(t) :bob!bob@b PRIVMSG #quiet :hi", number: 1, at: t)
        for i in 0..<100 {
            try Self.feed(
                replay, "@id=b\(i);tmi-sent-ts=\(t + 1) :ann!ann@a PRIVMSG #busy :message number \(i)",
                number: i + 2, at: t + 1)
        }
        let early = replay.summary.releasedEarly
        #expect(early > 0)
        #expect(replay.summary.written == early)
        try replay.finish()
        #expect(replay.summary.written == 101)
        #expect(replay.summary.releasedEarly == early)
        #expect(replay.summary.hasProblems)
        #expect(replay.summary.description.contains("\(early) released before their moderation look-ahead ended"))
        #expect(notes.messages.filter { $0.contains("moderation look-ahead") }.count == 1, "\(notes.messages)")
    }
}
