import ChatInput
import ChatPosix
import ChatStore
import ChatTestSupport
import Foundation
import IRCWire
import Testing

/// What a merge handed out, copied for comparison.
struct MergeRecord: Equatable, CustomStringConvertible {
    enum Kind: Equatable {
        case line, malformed, skipped
        case failed(InputError, dropped: Int)
        case bareCarriageReturns(Int)
    }
    var kind: Kind
    var input: String
    var lineNumber: Int
    var timestamp: Int64?
    var source: MergedLine.TimeSource
    var text: String

    var description: String { "\(kind) \(input):\(lineNumber) @\(timestamp.map(String.init) ?? "-") \(source) \(text)" }
}

@Suite struct MergeReaderTests {
    static func line(_ ms: Int64?, _ text: String) -> String {
        let tags = ms.map { "@tmi-sent-ts=\($0) " } ?? ""
        return "\(tags):u!u@u PRIVMSG #c :\(text)\r\n"
    }

    static func run(_ reader: MergeReader, dir: InputTempDirectory? = nil) -> [MergeRecord] {
        var out: [MergeRecord] = []
        // swift-format-ignore: ReplaceForEachWithForLoop
        reader.forEachEvent { event, bytes in
            let at = event.location
            var name = at.inputName
            if let dir, name.hasPrefix(dir.path + "/") { name = String(name.dropFirst(dir.path.count + 1)) }
            var text = ""
            if bytes.count > 0 {
                var copy: [UInt8] = []
                for i in bytes.indices { copy.append(bytes[i]) }
                text = String(decoding: copy, as: UTF8.self)
                if let colon = text.range(of: " :", options: .backwards), case .line = event {
                    text = String(text[colon.upperBound...])
                }
            }
            let kind: MergeRecord.Kind
            switch event {
            case .line: kind = .line
            case .malformed: kind = .malformed
            case .skipped: kind = .skipped
            case .inputFailed(_, let error, let dropped): kind = .failed(error, dropped: dropped)
            case .bareCarriageReturns(_, let count): kind = .bareCarriageReturns(count)
            }
            out.append(
                MergeRecord(
                    kind: kind, input: name, lineNumber: at.lineNumber, timestamp: at.timestamp?.milliseconds,
                    source: at.timeSource, text: text))
        }
        return out
    }

    @Test("lines of three inputs come out in time order; each input keeps its own order")
    func ordersAcrossInputs() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("a.log", Array((Self.line(1, "a1") + Self.line(4, "a4") + Self.line(9, "a9")).utf8))
        let b = try dir.write("b.log", Array((Self.line(2, "b2") + Self.line(3, "b3") + Self.line(10, "b10")).utf8))
        let c = try dir.write("c.irc", Array((Self.line(0, "c0") + Self.line(5, "c5") + Self.line(6, "c6")).utf8))
        let reader = MergeReader(paths: [a, b, c])
        let merged = Self.run(reader, dir: dir)
        #expect(merged.map(\.text) == ["c0", "a1", "b2", "b3", "a4", "c5", "c6", "a9", "b10"])
        #expect(
            merged.map(\.input) == ["c.irc", "a.log", "b.log", "b.log", "a.log", "c.irc", "c.irc", "a.log", "b.log"])
        #expect(
            merged.first
                == MergeRecord(kind: .line, input: "c.irc", lineNumber: 1, timestamp: 0, source: .tmiSentTs, text: "c0")
        )
        #expect(reader.statistics.lines == 9)
        #expect(
            reader.statistics
                == {
                    var s = MergeStatistics()
                    s.lines = 9
                    return s
                }())
    }

    @Test("equal times keep argument order")
    func tiesKeepArgumentOrder() throws {
        let dir = try InputTempDirectory()
        let x = try dir.write("x.log", Array((Self.line(5, "x1") + Self.line(5, "x2") + Self.line(7, "x3")).utf8))
        let y = try dir.write("y.log", Array((Self.line(5, "y1") + Self.line(7, "y2")).utf8))
        let w = try dir.write("w.log", Array((Self.line(5, "w1") + Self.line(6, "w2")).utf8))
        let merged = Self.run(MergeReader(paths: [y, x, w]))
        #expect(merged.map(\.text) == ["y1", "x1", "x2", "w1", "w2", "y2", "x3"])
    }

    @Test("a line without a time takes the previous line's; lines before any time come first")
    func untimedLines() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write(
            "a.log",
            Array(
                (Self.line(nil, "a-start") + Self.line(5, "a5") + Self.line(nil, "a-after5") + Self.line(10, "a10"))
                    .utf8))
        let b = try dir.write("b.log", Array((Self.line(1, "b1") + Self.line(7, "b7")).utf8))
        let reader = MergeReader(paths: [b, a])
        let merged = Self.run(reader, dir: dir)
        #expect(merged.map(\.text) == ["a-start", "b1", "a5", "a-after5", "b7", "a10"])
        #expect(merged[0].source == .none && merged[0].timestamp == nil)
        #expect(
            merged[3]
                == MergeRecord(
                    kind: .line, input: "a.log", lineNumber: 3, timestamp: 5, source: .inherited, text: "a-after5"))
        #expect(reader.statistics.untimedLines == 2)
    }

    @Test("the time tag wins over tmi-sent-ts; unreadable time tags are counted")
    func timeTagFirst() throws {
        let dir = try InputTempDirectory()
        let text =
            "@time=1970-01-01T00:00:00.008Z;tmi-sent-ts=1 :u!u@u PRIVMSG #c :t8\r\n"
            + "@time=garbage;tmi-sent-ts=9 :u!u@u PRIVMSG #c :t9\r\n"
        let a = try dir.write("a.log", Array(text.utf8))
        let b = try dir.write("b.log", Array(Self.line(2, "b2").utf8))
        let reader = MergeReader(paths: [a, b])
        let merged = Self.run(reader)
        #expect(merged.map(\.text) == ["b2", "t8", "t9"])
        #expect(merged.map(\.source) == [.tmiSentTs, .timeTag, .tmiSentTs])
        #expect(reader.statistics.unreadableTimeTags == 1)
    }

    @Test("over-long and malformed lines are handed out as counted events with their place")
    func problemsAreEvents() throws {
        let dir = try InputTempDirectory()
        let long = String(repeating: "x", count: 300)
        let text = Self.line(1, "ok1") + "@only=tags\r\n" + Self.line(2, long) + "\r\n" + Self.line(3, "ok3")
        let a = try dir.write("a.log", Array(text.utf8))
        let reader = MergeReader(paths: [a], maxLineLength: 100)
        let merged = Self.run(reader, dir: dir)
        #expect(merged.map(\.kind) == [.line, .malformed, .skipped, .malformed, .line])
        #expect(merged.map(\.lineNumber) == [1, 2, 3, 4, 5])
        #expect(merged.allSatisfy { $0.input == "a.log" })
        #expect(merged[1].text == "@only=tags")
        #expect(merged[2].text.isEmpty && merged[2].timestamp == 1)
        var expected = MergeStatistics()
        expected.lines = 2
        expected.malformedLines = 2
        expected.skippedLines = 1
        expected.untimedLines = 2
        #expect(reader.statistics == expected)
    }

    @Test("gzip and plain inputs mix; a truncated gzip input reports its damage and the rest goes on")
    func gzipAndPlainMixed() throws {
        let dir = try InputTempDirectory()
        let plainLines = (0..<50).map { Self.line(Int64($0 * 2), "p\($0)") }.joined()
        let gzLines = (0..<50).map { Self.line(Int64($0 * 2 + 1), "g\($0)") }.joined()
        let plain = try dir.write("plain.log", Array(plainLines.utf8))
        let gz = try dir.writeGzip("packed.log.gz", Array(gzLines.utf8))
        let merged = Self.run(MergeReader(paths: [gz, plain]), dir: dir)
        #expect(merged.map(\.text) == (0..<50).flatMap { ["p\($0)", "g\($0)"] })

        // Cut the compressed file inside its data: the lines before the cut, then one damage event.
        let compressed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: gz)))
        let cutPath = try dir.write("cut.log.gz", Array(compressed[0..<(compressed.count * 2 / 3)]))
        let reader = MergeReader(paths: [cutPath, plain])
        let damaged = Self.run(reader, dir: dir)
        let fromCut = damaged.filter { $0.input == "cut.log.gz" }
        let failure = try #require(fromCut.last)
        guard case .failed(.truncated(let name, let offset), let dropped) = failure.kind else {
            Issue.record("expected a truncated report, got \(failure)")
            return
        }
        #expect(name == cutPath && offset == UInt64(compressed.count * 2 / 3))
        let goodLines = fromCut.dropLast()
        #expect(goodLines.map(\.text) == (0..<goodLines.count).map { "g\($0)" })
        #expect(goodLines.count > 0 && goodLines.count < 50)
        #expect(dropped < 100)
        #expect(damaged.filter { $0.input == "plain.log" }.count == 50)
        #expect(reader.statistics.failedInputs == 1)
    }

    @Test("a gzip file truncated at many offsets yields the intact prefix of lines and one truncated report")
    func truncatedAtManyOffsets() throws {
        let dir = try InputTempDirectory()
        let content = sampleChatLines(400)
        let expected = FramerVerifier.oracleLines(content)
        let gz = try dir.writeGzip("full.gz", content)
        let compressed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: gz)))
        for cut in [
            1, 2, 10, 25, compressed.count / 5, compressed.count / 2, compressed.count - 9, compressed.count - 1,
        ] {
            let path = try dir.write("cut-\(cut).log.gz", Array(compressed[0..<cut]))
            let merged = Self.run(MergeReader(paths: [path]))
            let lines = merged.filter { $0.kind == .line }
            #expect(
                merged.last.map { if case .failed(.truncated, _) = $0.kind { true } else { false } } == true,
                "cut \(cut)")
            #expect(merged.count == lines.count + 1, "cut \(cut)")
            let texts = lines.map(\.text)
            #expect(
                texts
                    == expected.prefix(lines.count).map { line -> String in
                        let s = String(decoding: line, as: UTF8.self)
                        return String(s[s.range(of: " :", options: .backwards)!.upperBound...])
                    }, "cut \(cut)")
            if cut >= compressed.count - 8 {
                #expect(lines.count == expected.count, "cut \(cut): only the trailer is missing")
            }
        }
    }

    @Test("a capture directory: dated files of a channel are chained, channels are merged")
    func captureDirectory() throws {
        let dir = try InputTempDirectory()
        func gz(_ relative: String, _ text: String) throws { try dir.writeGzip(relative, Array(text.utf8)) }
        try gz("cap/alpha/2025-11-20.log.gz", Self.line(100, "a100") + Self.line(300, "a300"))
        try gz("cap/alpha/2025-11-21.log.gz", Self.line(500, "a500"))
        try dir.write("cap/beta/2025-11-20.log", Array((Self.line(200, "b200") + Self.line(400, "b400")).utf8))
        try dir.write("cap/beta/2025-11-21.log", Array((Self.line(450, "b450") + Self.line(600, "b600")).utf8))
        let reader = try MergeReader(arguments: [dir.path + "/cap"])
        #expect(reader.paths.count == 4)
        let merged = Self.run(reader, dir: dir)
        #expect(merged.map(\.text) == ["a100", "b200", "a300", "b400", "b450", "a500", "b600"])
        #expect(merged.map(\.input)[5] == "cap/alpha/2025-11-21.log.gz")
    }

    @Test("an input that vanished since it was listed is reported and skipped")
    func vanishedInput() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("a.log", Array(Self.line(1, "a1").utf8))
        let gone = dir.path + "/gone.log"
        let merged = Self.run(MergeReader(paths: [gone, a]))
        #expect(merged.count == 2)
        #expect(merged[0].kind == .failed(.notFound(path: gone), dropped: 0))
        #expect(merged[1].text == "a1")
    }

    @Test("an error thrown by the consumer propagates after the event counts as handed out")
    func consumerErrors() throws {
        struct Stop: Error {}
        let dir = try InputTempDirectory()
        let a = try dir.write("a.log", Array((Self.line(1, "one") + Self.line(2, "two")).utf8))
        let reader = MergeReader(paths: [a])
        #expect(throws: Stop.self) { try reader.next { _, _ throws(Stop) in throw Stop() } }
        let rest = Self.run(reader)
        #expect(rest.map(\.text) == ["two"])
        #expect(!reader.next { _, _ in })
    }

    @Test("many lines through small buffers: every line arrives whole and in order")
    func manyLinesSmallBuffers() throws {
        let dir = try InputTempDirectory()
        var paths: [String] = []
        var all: [(Int64, Int, String)] = []
        for f in 0..<3 {
            var text = ""
            for i in 0..<2000 {
                let ms = Int64(i * 3 + (f * 7) % 3)
                let body = "f\(f)-\(i)-" + String(repeating: "y", count: (i * 37 + f) % 200)
                text += Self.line(ms, body)
                all.append((ms, f, body))
            }
            paths.append(try dir.write("f\(f).txt", Array(text.utf8)))
        }
        let merged = Self.run(MergeReader(paths: paths, bufferCapacity: 1))
        let expected = all.enumerated().sorted { l, r in
            (l.element.0, l.element.1, l.offset) < (r.element.0, r.element.1, r.offset)
        }.map(\.element.2)
        #expect(merged.map(\.text) == expected)
    }

    @Test(
        "CRs inside lines: one warning per input before its first such line, every such line counted",
        arguments: [false, true])
    func bareCarriageReturns(merged: Bool) throws {
        let dir = try InputTempDirectory()
        // Three lines ended by CR alone and no LF: one line holding 3 CRs.
        let mac = try dir.write(
            "mac.log",
            Array(
                [
                    "@tmi-sent-ts=1 :u!u@u PRIVMSG #c :a\r", "@tmi-sent-ts=2 :u!u@u PRIVMSG #c :b\r",
                    "@tmi-sent-ts=3 :u!u@u PRIVMSG #c :c\r",
                ].joined().utf8))
        // A line with a stray CR, a clean line, a line with two CRs before its CRLF.
        let stray = try dir.write(
            "stray.log", Array((Self.line(4, "x\ry") + Self.line(5, "clean") + Self.line(6, "z\r\r")).utf8))
        // 1,000 CR-ended lines (25,000 bytes): one over-long line, skipped.
        let long = try dir.write("long.log", Array(String(repeating: ":u!u@u PRIVMSG #c :hello\r", count: 1_000).utf8))
        let paths = [mac, stray, long]
        var records: [MergeRecord] = []
        var statistics = MergeStatistics()
        if merged {
            let reader = MergeReader(paths: paths, groups: [[0], [1], [2]])
            records = Self.run(reader, dir: dir)
            statistics = reader.statistics
        } else {
            for path in paths {
                let reader = MergeReader(paths: [path])
                records += Self.run(reader, dir: dir)
                statistics.add(reader.statistics)
            }
        }
        let macAndStray = [
            "bareCarriageReturns(3) mac.log:1", "line mac.log:1", "bareCarriageReturns(1) stray.log:1",
            "line stray.log:1", "line stray.log:2", "line stray.log:3",
        ]
        let longEvents = ["bareCarriageReturns(1000) long.log:1", "skipped long.log:1"]
        // Merged, the over-long line (no time) sorts first, its warning just before it.
        #expect(
            records.map { "\($0.kind) \($0.input):\($0.lineNumber)" }
                == (merged ? longEvents + macAndStray : macAndStray + longEvents))
        #expect(records.first(where: { $0.input == "mac.log" && $0.kind == .line })?.text == "c\r")
        #expect(statistics.bareCarriageReturnLines == 4)
        #expect(statistics.bareCarriageReturnInputs == 3)
        #expect(statistics.lines == 4 && statistics.skippedLines == 1)
    }
}
