import ChatInput
import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// ``ParseAhead`` with renderers (``LineRendering``): each line is lent with what its block's renderer
/// wrote for it, whoever parsed the block, for every block shape, sharing, and a merge of several
/// lanes; a line the renderer left is lent with an empty rendering; the events are those without
/// renderers.
@Suite(.timeLimit(.minutes(10))) struct ParseAheadRenderingTests {
    /// Writes `<line number>|<own ms or ->|<bytes>` for a line, nothing for a line whose text ends in
    /// `skip`; counts the renderers made.
    final class EchoRenderer: LineRendering, @unchecked Sendable {  // one block's, one thread at a time
        private var output: [UInt8] = []
        var count: Int { output.count }
        func reset() { output.removeAll(keepingCapacity: true) }
        func render(_ line: inout LentLine, _ bytes: Span<UInt8>) -> Bool {
            let copy = ParseAheadRenderingTests.array(bytes)
            if copy.suffix(4) == Array("skip".utf8) { return false }
            output += ParseAheadRenderingTests.expected(line, copy)
            return true
        }
        func withOutput(_ body: (Span<UInt8>) -> Void) {
            let bytes = output
            body(bytes.span)
        }
    }

    static func array(_ bytes: Span<UInt8>) -> [UInt8] {
        var copy: [UInt8] = []
        for i in bytes.indices { copy.append(bytes[i]) }
        return copy
    }

    /// What ``EchoRenderer`` writes for a line: its time only when it is the line's own.
    static func expected(_ line: borrowing LentLine, _ bytes: [UInt8]) -> [UInt8] {
        let own: Bool =
            switch line.timeSource {
            case .timeTag, .tmiSentTs: true
            default: false
            }
        let ms = own ? line.timestamp.map { String($0.milliseconds) } ?? "-" : "-"
        return Array("\(line.lineNumber)|\(ms)|".utf8) + bytes
    }

    /// Every line lent by `stage` with its rendering (`nil`: lent with an empty one), and every event.
    static func lent(_ stage: ParseAhead) -> (lines: [(expected: [UInt8], rendered: [UInt8]?)], events: [String]) {
        var lines: [(expected: [UInt8], rendered: [UInt8]?)] = []
        var events: [String] = []
        while stage.next(
            rendered: { line, bytes, rendered in
                let copy = array(bytes)
                lines.append((expected(line, copy), rendered.isEmpty ? nil : array(rendered)))
                let at = line.location(named: stage.inputName(at: line.inputIndex))
                events.append(MergeTranscript.entry(.line(at, line.message), bytes))
                return true
            },
            events: { event, bytes in
                events.append(MergeTranscript.entry(event, bytes))
                return true
            })
        {}
        stage.finish()
        return (lines, events)
    }

    /// Timed and untimed lines (inherited times are not the line's own), skipped renderings,
    /// malformed and over-long lines, bare CRs, a last line without terminator.
    static func writeLog(_ dir: InputTempDirectory, _ name: String, start: Int64) throws -> String {
        var text = MergeReaderTests.line(nil, "before any time")
        for i in 0..<60 {
            switch i % 7 {
            case 0: text += MergeReaderTests.line(start + Int64(i), "timed \(i)")
            case 1: text += MergeReaderTests.line(nil, "untimed \(i) skip")
            case 2: text += "@bad\r\n"
            case 3: text += MergeReaderTests.line(nil, String(repeating: "x", count: 150))
            case 4: text += MergeReaderTests.line(nil, "cr\rin \(i)")
            default: text += MergeReaderTests.line(nil, "untimed \(i)")
            }
        }
        return try dir.write(name, Array((text + MergeReaderTests.line(start + 99, "last")).utf8.dropLast(2)))
    }

    @Test("each line is lent with its own rendering, whoever parsed its block, in every block shape")
    func renderingPerLine() throws {
        let dir = try InputTempDirectory()
        let a = try Self.writeLog(dir, "a.log", start: 1_000)
        let b = try Self.writeLog(dir, "b.log", start: 1_500)
        let direct = MergeTranscript.direct(MergeReader(paths: [a, b], groups: [[0, 1]], maxLineLength: 100))
        var shapes = ParseAheadTests.shapes
        shapes.append((64 * 1024, 1, 2))
        for sharing in ParseAheadSharingTests.sharings {
            for shape in shapes {
                let stage = ParseAhead(
                    MergeReader(paths: [a, b], groups: [[0, 1]], maxLineLength: 100), blockBytes: shape.bytes,
                    blockEvents: shape.events, blockCount: shape.count, sharing: sharing,
                    renderer: { EchoRenderer() })
                let got = Self.lent(stage)
                #expect(got.lines.count > 60, "\(sharing) \(shape)")
                for (i, line) in got.lines.enumerated() {
                    let skipped = line.expected.suffix(4) == Array("skip".utf8)
                    #expect(line.rendered == (skipped ? nil : line.expected), "\(sharing) \(shape): line \(i)")
                }
                #expect(got.lines.contains { $0.rendered == nil })
                #expect(got.events == direct.events, "\(sharing) \(shape)")
            }
        }
    }

    @Test("a merge of several lanes (parsed on the reader thread as it reads) renders each line too")
    func renderingInMerge() throws {
        let dir = try InputTempDirectory()
        let a = try Self.writeLog(dir, "a.log", start: 1_000)
        let b = try Self.writeLog(dir, "b.log", start: 1_500)
        for shape in ParseAheadTests.shapes {
            let stage = ParseAhead(
                MergeReader(paths: [a, b], maxLineLength: 100), blockBytes: shape.bytes, blockEvents: shape.events,
                blockCount: shape.count, renderer: { EchoRenderer() })
            #expect(stage.sharing == .off)
            let got = Self.lent(stage)
            #expect(got.lines.count > 80, "\(shape)")
            for (i, line) in got.lines.enumerated() {
                let skipped = line.expected.suffix(4) == Array("skip".utf8)
                #expect(line.rendered == (skipped ? nil : line.expected), "\(shape): line \(i)")
            }
        }
    }

    @Test("without renderers every line is lent with an empty rendering")
    func noRenderer() throws {
        let dir = try InputTempDirectory()
        let a = try Self.writeLog(dir, "a.log", start: 1_000)
        let got = Self.lent(ParseAhead(MergeReader(paths: [a], maxLineLength: 100), blockBytes: 512, blockEvents: 5))
        #expect(got.lines.count > 40)
        #expect(got.lines.allSatisfy { $0.rendered == nil })
    }
}
