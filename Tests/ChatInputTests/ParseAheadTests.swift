import ChatInput
import ChatPosix
import ChatTestSupport
import Foundation
import IRCWire
import Testing

/// ``ParseAhead`` hands out exactly what its reader would, event by event (position, bytes, parse
/// result, counts), whatever the block sizes, and its reader thread ends when the owner stops.
@Suite(.timeLimit(.minutes(10))) struct ParseAheadTests {
    static func line(_ ms: Int64?, _ text: String) -> String { MergeReaderTests.line(ms, text) }

    /// Block shapes: one event a block, byte-bound blocks smaller than a line (each grows once), and
    /// the defaults.
    static let shapes: [(bytes: Int, events: Int, count: Int)] = [
        (1, 1, 1), (1, 1000, 2), (64, 3, 2), (300, 7, 3), (4096, 1, 4), (256 * 1024, 1024, 4),
    ]

    /// Compares the stage with the reader on the calling thread for every shape; returns the direct
    /// transcript.
    @discardableResult
    static func expectSame(
        _ makeReader: () -> MergeReader, shapes: [(bytes: Int, events: Int, count: Int)] = shapes,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> MergeTranscript {
        let expected = MergeTranscript.direct(makeReader())
        for shape in shapes {
            let got = MergeTranscript.ahead(
                makeReader(), blockBytes: shape.bytes, blockEvents: shape.events, blockCount: shape.count)
            #expect(got.events.count == expected.events.count, "\(shape)", sourceLocation: sourceLocation)
            if let i = zip(got.events, expected.events).enumerated().first(where: { $0.element.0 != $0.element.1 })?
                .offset
            {
                Issue.record(
                    "\(shape): event \(i) differs:\n\(got.events[i])\n\(expected.events[i])",
                    sourceLocation: sourceLocation)
            }
            #expect(got.statistics == expected.statistics, "\(shape)", sourceLocation: sourceLocation)
            #expect(got.exhaustion == expected.exhaustion, "\(shape)", sourceLocation: sourceLocation)
        }
        return expected
    }

    @Test("the stage's reader thread inflates a gzip input itself: no prefetch thread beside it, the same events")
    func inflatesInline() throws {
        let dir = try InputTempDirectory()
        let gz = try dir.writeGzip("one.log.gz", Array((0..<300).map { Self.line(Int64($0), "z\($0)") }.joined().utf8))
        let makeReader = { MergeReader(paths: [gz], prefetchesGzip: true) }
        #expect(makeReader().prefetchesGzip)
        let reader = makeReader()
        let stage = ParseAhead(reader)
        #expect(!reader.prefetchesGzip)
        stage.finish()
        let expected = Self.expectSame(makeReader)
        #expect(expected.statistics.lines == 300)
    }

    @Test("every fixture log merged as its own input: the same events, bytes and counts")
    func fixtures() throws {
        let paths = try Fixtures.lineFiles().map { Fixtures.directory + "/lines/" + $0 }
        #expect(paths.count >= 10)
        let expected = Self.expectSame { MergeReader(paths: paths) }
        #expect(expected.statistics.lines > 100)
        #expect(expected.statistics.malformedLines > 0 && expected.statistics.skippedLines > 0)
    }

    @Test("generated logs, plain and gzip, interleaved in time across three inputs")
    func generatedMerged() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("a.log", sampleChatLines(3000, channel: "a", start: 1_000, text: "alpha"))
        let b = try dir.write("b.log", sampleChatLines(2000, channel: "b", start: 1_500, text: "beta beta"))
        let gz = try dir.writeGzip("c.log.gz", sampleChatLines(2500, channel: "c", start: 1_250, text: "gamma"))
        let expected = Self.expectSame { MergeReader(paths: [a, b, gz]) }
        #expect(expected.statistics.lines == 7500)
        // A single input reads through the one-lane path (with its gzip inflated ahead, too).
        Self.expectSame { MergeReader(paths: [gz], prefetchesGzip: true) }
        Self.expectSame { MergeReader(paths: [a]) }
    }

    @Test("ahead is shown each line's channel three events before the line, within its block; never another event")
    func showsLinesAhead() throws {
        let dir = try InputTempDirectory()
        var text = ""
        let line = { (i: Int) in "@tmi-sent-ts=\(i);id=\(i) :u!u@u PRIVMSG #c\(i) :hi\r\n" }
        for i in 0..<95 { text += line(i) }
        text += ":prefix.only\r\n"  // a malformed event (no command) among the lines
        for i in 95..<100 { text += line(i) }
        let path = try dir.write("a.log", Array(text.utf8))
        let stage = ParseAhead(MergeReader(paths: [path]), blockBytes: 1 << 20, blockEvents: 10, blockCount: 2)
        defer { stage.finish() }
        // The transcript: "+c7" shown ahead, "c5" a line lent, "!" another event.
        var got: [String] = []
        var ready = true
        while ready {
            ready = stage.next(
                rendered: { line, bytes, _ in
                    got.append(string(bytes, line.message.channel!))
                    return true
                },
                ahead: { channel, bytes in
                    got.append("+" + string(bytes, channel!))
                },
                events: { _, _ in
                    got.append("!")
                    return true
                })
        }
        let events = got.filter { !$0.hasPrefix("+") }
        #expect(events.count == 101 && events.filter { $0 == "!" }.count == 1)
        // Each "+x" comes right before the event three events before x, in the block of ten that holds both.
        let d = ParseAhead.aheadDistance
        #expect(d == 3)
        var shown = 0
        for (k, entry) in got.enumerated() where entry.hasPrefix("+") {
            shown += 1
            let position = got[..<k].filter { !$0.hasPrefix("+") }.count  // the event lent next
            #expect(position + d < events.count && events[position + d] == String(entry.dropFirst()))
            #expect(position / 10 == (position + d) / 10, "within one block")
        }
        // Every line but the first three of each block (ten of ten events, the last of one), and not
        // the malformed event (the sixth of its block).
        #expect(shown == 101 - (3 * 10 + 1) - 1)
    }

    @Test("malformed, over-long and bare-CR lines keep their places, positions and bytes")
    func problems() throws {
        let dir = try InputTempDirectory()
        let long = String(repeating: "x", count: 300)
        let text =
            Self.line(1, "ok1") + "@only=tags\r\n" + Self.line(2, long) + "\r\n" + Self.line(3, "ok\rcr")
            + Self.line(nil, "untimed") + "\n" + Self.line(4, "no terminator")
        let a = try dir.write("a.log", Array(text.utf8))
        let b = try dir.write("b.log", Array((Self.line(2, "b" + long) + Self.line(5, "b5")).utf8))
        let expected = Self.expectSame { MergeReader(paths: [a, b], maxLineLength: 100) }
        #expect(expected.statistics.skippedLines == 2)
        #expect(expected.statistics.malformedLines == 3)
        #expect(expected.statistics.bareCarriageReturnInputs == 1)
    }

    @Test("a damaged gzip input: the lines before the damage, the damage event, then the other input")
    func damagedGzip() throws {
        let dir = try InputTempDirectory()
        let gz = try dir.writeGzip("full.log.gz", sampleChatLines(2000))
        let compressed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: gz)))
        let cut = try dir.write("cut.log.gz", Array(compressed[0..<(compressed.count / 2)]))
        let plain = try dir.write("plain.log", sampleChatLines(100, channel: "p", start: 1_763_699_300_000))
        let expected = Self.expectSame { MergeReader(paths: [cut, plain]) }
        #expect(expected.statistics.failedInputs == 1)
        Self.expectSame { MergeReader(paths: [cut], prefetchesGzip: true) }
    }

    @Test("an empty file, alone and among others; an input that vanished")
    func emptyAndMissing() throws {
        let dir = try InputTempDirectory()
        let empty = try dir.write("empty.log", [])
        let a = try dir.write("a.log", Array(Self.line(1, "a1").utf8))
        let alone = Self.expectSame { MergeReader(paths: [empty]) }
        #expect(alone.events.isEmpty)
        let mixed = Self.expectSame { MergeReader(paths: [empty, a, dir.path + "/gone.log"]) }
        #expect(mixed.events.count == 2)
    }

    @Test("a block boundary at every position: every byte and event capacity over a small log, 1 to 3 blocks")
    func everyBoundary() throws {
        let dir = try InputTempDirectory()
        var text = ""
        for i in 0..<12 { text += Self.line(Int64(i), String(repeating: "w", count: (i * 7) % 23)) }
        text += "@bad\r\n" + Self.line(20, String(repeating: "z", count: 90)) + Self.line(21, "end")
        let a = try dir.write("a.log", Array(text.utf8))
        let b = try dir.write("b.log", Array((Self.line(3, "b3") + Self.line(8, "b8")).utf8))
        let makeReader = { MergeReader(paths: [a, b], maxLineLength: 80) }
        let expected = MergeTranscript.direct(makeReader())
        let total = text.utf8.count + 20
        var shapes: [(bytes: Int, events: Int, count: Int)] = []
        for bytes in 1...total { shapes.append((bytes, 1000, 1 + bytes % 3)) }
        for events in 1...(expected.events.count + 1) { shapes.append((64 * 1024, events, 1 + events % 3)) }
        Self.expectSame(makeReader, shapes: shapes)
    }

    @Test("finish() after a few events ends the reader thread at its next block: a 60,000-line log is not read on")
    func finishStopsReading() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("big.log", sampleChatLines(60_000))
        let stage = ParseAhead(MergeReader(paths: [a]), blockBytes: 64 * 1024, blockEvents: 16, blockCount: 2)
        var seen = 0
        while seen < 5 && stage.next({ _, _ in seen += 1 }) {}
        stage.finish()
        #expect(seen == 5)
        #expect(!stage.next { _, _ in seen += 1 })
        // At most the two blocks and the event that found no free block were read.
        let lines = stage.statistics.lines
        #expect(lines >= 5 && lines <= 33, "read \(lines) lines")
        #expect(stage.blocksHandedOver <= 2)
    }

    @Test("a stage dropped unread, or finished before its first event, ends its thread")
    func droppedUnread() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("big.log", sampleChatLines(60_000))
        let reader = MergeReader(paths: [a])
        do {
            _ = ParseAhead(reader, blockBytes: 4096, blockEvents: 8, blockCount: 2)
        }
        // The thread was joined (deinit): the reader may be read here, and it was not read on.
        #expect(reader.statistics.lines <= 17)
        let stage = ParseAhead(MergeReader(paths: [a]), blockBytes: 4096, blockEvents: 8, blockCount: 2)
        stage.finish()
        #expect(stage.statistics.lines <= 17)
        #expect(!stage.next { _, _ in Issue.record("no event after finish()") })
    }

    @Test("suits regular files only: not standard input, a pipe, or a followed reader")
    func suits() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("a.log", Array(Self.line(1, "a1").utf8))
        #expect(ParseAhead.suits(MergeReader(paths: [a, a])))
        #expect(!ParseAhead.suits(MergeReader(paths: [a, "-"])))
        #expect(!ParseAhead.suits(MergeReader(paths: ["/dev/null"])))
        #expect(!ParseAhead.suits(MergeReader(paths: [a], follow: FollowMode())))
        #expect(ParseAhead.suits(MergeReader(paths: [a], follow: FollowMode(followsFiles: false))))
    }
}
