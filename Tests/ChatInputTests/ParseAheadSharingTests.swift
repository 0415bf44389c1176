import ChatInput
import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// ``ParseAhead`` with one lane, whose reader thread only frames and whose blocks are parsed by
/// whichever thread claims them (``ParseAhead/Sharing``): the owner sees what a plain ``MergeReader``
/// hands out — every event, its place, its time inherited across blocks parsed by different threads,
/// the counts — whoever parsed each block.
@Suite(.timeLimit(.minutes(10))) struct ParseAheadSharingTests {
    static func line(_ ms: Int64?, _ text: String) -> String { MergeReaderTests.line(ms, text) }

    static let sharings: [ParseAhead.Sharing] = [.claimed, .owner, .alternate]

    /// One lane of three inputs read one after another: untimed lines before any time, then timed
    /// ones and untimed ones after them (inherited, across the inputs too), malformed and over-long
    /// lines, bare CRs in two inputs (one warning each), a time tag and an unreadable one, a last
    /// line without terminator, and a gzip input damaged halfway.
    static func writeLane(_ dir: InputTempDirectory) throws -> [String] {
        let long = String(repeating: "x", count: 150)
        var first = Self.line(nil, "u0") + "@bad\r\n" + Self.line(nil, "u1")
        for i in 0..<20 {
            first += i % 3 == 0 ? Self.line(Int64(100 + i), "t\(i)") : Self.line(nil, "after \(i)")
        }
        first += Self.line(nil, long) + Self.line(nil, "cr\rinside") + "@only=tags\r\n" + Self.line(nil, "cr\ragain")
        first += "@time=1970-01-01T00:00:00.300Z;tmi-sent-ts=1 :u!u@u PRIVMSG #c :t300\r\n"
        first += "@time=garbage;tmi-sent-ts=301 :u!u@u PRIVMSG #c :t301\r\n"
        let a = try dir.write("a.log", Array(first.utf8))
        let second = "@bad2\r\n" + Self.line(nil, "b-untimed") + Self.line(nil, "b\rcr") + Self.line(400, "b400") + "x"
        let b = try dir.write("b.log", Array(second.utf8))
        let gz = try dir.writeGzip("c.log.gz", sampleChatLines(400, channel: "c", start: 500))
        let compressed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: gz)))
        let cut = try dir.write("cut.log.gz", Array(compressed[0..<(compressed.count / 2)]))
        return [a, b, cut]
    }

    /// A reader of the three inputs as one lane.
    static func lane(_ paths: [String]) -> MergeReader {
        MergeReader(paths: paths, groups: [[0, 1, 2]], maxLineLength: 100)
    }

    /// The stage's transcript with this sharing and these blocks, and who parsed how many blocks.
    static func ahead(
        _ reader: MergeReader, _ shape: (bytes: Int, events: Int, count: Int), _ sharing: ParseAhead.Sharing
    ) -> (transcript: MergeTranscript, parsed: (reader: Int, owner: Int), blocks: Int, sharing: ParseAhead.Sharing) {
        let stage = ParseAhead(
            reader, blockBytes: shape.bytes, blockEvents: shape.events, blockCount: shape.count, sharing: sharing)
        var out = MergeTranscript()
        // swift-format-ignore: ReplaceForEachWithForLoop
        stage.forEachEvent { event, bytes in out.events.append(MergeTranscript.entry(event, bytes)) }
        out.statistics = stage.statistics
        out.exhaustion = stage.exhaustion
        return (out, stage.blocksParsed, stage.blocksHandedOver, stage.sharing)
    }

    @Test(
        "claimed, owner, alternate: the same events, times, positions and counts as one thread, for every block shape")
    func sameAsOneThread() throws {
        let dir = try InputTempDirectory()
        let paths = try Self.writeLane(dir)
        let expected = MergeTranscript.direct(Self.lane(paths))
        #expect(expected.statistics.malformedLines == 3)
        #expect(expected.statistics.skippedLines == 1)
        #expect(expected.statistics.failedInputs == 1)
        #expect(expected.statistics.bareCarriageReturnInputs == 2)
        #expect(expected.statistics.bareCarriageReturnLines == 3)
        #expect(expected.statistics.unreadableTimeTags == 1)
        #expect(expected.statistics.untimedLines == 23)
        #expect(expected.statistics.lines > 30)
        var shapes = ParseAheadTests.shapes
        for events in 1...9 { shapes.append((64 * 1024, events, 1 + events % 4)) }
        for sharing in Self.sharings {
            for shape in shapes {
                let got = Self.ahead(Self.lane(paths), shape, sharing)
                #expect(got.sharing == sharing)
                #expect(got.transcript.events.count == expected.events.count, "\(sharing) \(shape)")
                if let i = zip(got.transcript.events, expected.events).enumerated().first(where: {
                    $0.element.0 != $0.element.1
                })?.offset {
                    Issue.record(
                        "\(sharing) \(shape): event \(i) differs:\n\(got.transcript.events[i])\n\(expected.events[i])")
                }
                #expect(got.transcript.statistics == expected.statistics, "\(sharing) \(shape)")
                #expect(got.transcript.exhaustion == expected.exhaustion, "\(sharing) \(shape)")
                #expect(got.parsed.reader + got.parsed.owner == got.blocks, "\(sharing) \(shape)")
                switch sharing {
                case .owner: #expect(got.parsed.reader == 0, "\(shape)")
                case .alternate: #expect(got.parsed.reader == got.blocks / 2, "\(shape)")
                default: break
                }
            }
        }
    }

    /// What a test needs of an event: its kind and text, line number, time and time source.
    struct Seen: Equatable, CustomStringConvertible {
        var kind: String
        var line: Int
        var ms: Int64?
        var source: MergedLine.TimeSource
        var description: String { "\(kind)@\(line) \(ms.map(String.init) ?? "-") \(source)" }
    }

    @Test(
        "one event a block, parsed by each thread in turn: untimed lines and problems inherit the time of the block before"
    )
    func inheritedAcrossThreads() throws {
        let dir = try InputTempDirectory()
        let text =
            Self.line(nil, "u0") + "@bad\r\n" + Self.line(7, "t7") + Self.line(nil, "u3") + "@bad\r\n"
            + Self.line(nil, "cr\rx") + Self.line(9, "t9") + Self.line(nil, "u8")
        let a = try dir.write("a.log", Array(text.utf8))
        let stage = ParseAhead(
            MergeReader(paths: [a]), blockBytes: 4096, blockEvents: 1, blockCount: 3, sharing: .alternate)
        var seen: [Seen] = []
        while stage.next(
            lines: { line, bytes in
                var copy: [UInt8] = []
                for i in bytes.indices { copy.append(bytes[i]) }
                let whole = String(decoding: copy, as: UTF8.self)
                let text = whole.components(separatedBy: " :").last ?? whole
                seen.append(
                    Seen(kind: text, line: line.lineNumber, ms: line.timestamp?.milliseconds, source: line.timeSource))
                return true
            },
            events: { event, _ in
                let kind =
                    switch event {
                    case .malformed: "malformed"
                    case .bareCarriageReturns(_, let count): "crs \(count)"
                    default: "other"
                    }
                let at = event.location
                seen.append(
                    Seen(kind: kind, line: at.lineNumber, ms: at.timestamp?.milliseconds, source: at.timeSource))
                return true
            })
        {}
        let statistics = stage.statistics
        #expect(
            seen == [
                Seen(kind: "u0", line: 1, ms: nil, source: .none),
                Seen(kind: "malformed", line: 2, ms: nil, source: .none),
                Seen(kind: "t7", line: 3, ms: 7, source: .tmiSentTs),
                Seen(kind: "u3", line: 4, ms: 7, source: .inherited),
                Seen(kind: "malformed", line: 5, ms: 7, source: .inherited),
                Seen(kind: "crs 1", line: 6, ms: 7, source: .inherited),
                Seen(kind: "cr\rx", line: 6, ms: 7, source: .inherited),
                Seen(kind: "t9", line: 7, ms: 9, source: .tmiSentTs),
                Seen(kind: "u8", line: 8, ms: 9, source: .inherited),
            ])
        // Eight blocks of one line each: every second one parsed on the reader thread.
        #expect(stage.blocksHandedOver == 8)
        #expect(stage.blocksParsed.reader == 4 && stage.blocksParsed.owner == 4)
        #expect(statistics.lines == 6)
        #expect(statistics.malformedLines == 2)
        #expect(statistics.untimedLines == 6)
        #expect(statistics.bareCarriageReturnLines == 1 && statistics.bareCarriageReturnInputs == 1)
    }

    @Test("a merge of several lanes is parsed and timed on the reader thread")
    func severalLanesParseOnReader() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("a.log", Array((Self.line(1, "a1") + Self.line(3, "a3")).utf8))
        let b = try dir.write("b.log", Array(Self.line(2, "b2").utf8))
        let got = Self.ahead(MergeReader(paths: [a, b]), (4096, 1, 2), .claimed)
        #expect(got.sharing == .off)
        #expect(got.parsed.reader == 0 && got.parsed.owner == 0)
        #expect(got.transcript == MergeTranscript.direct(MergeReader(paths: [a, b])))
    }
}
