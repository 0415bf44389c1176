import ChatInput
import ChatPosix
import ChatTestSupport
import Foundation
import Testing

/// A merge of more inputs than descriptors (issue #12 item 5): every line in time order, with a
/// bounded number of inputs open at once.
@Suite(.timeLimit(.minutes(20))) struct ManyInputsMergeTests {
    /// Reads `reader` to its end: each line's bytes without CR LF, the problems, and the most inputs
    /// it held open at once (looked at every `sampleEvery` events).
    static func drain(_ reader: MergeReader, sampleEvery: Int = 1) -> (lines: [String], problems: [String], peak: Int) {
        var lines: [String] = []
        var problems: [String] = []
        var peak = 0
        var events = 0
        // swift-format-ignore: ReplaceForEachWithForLoop
        reader.forEachEvent { event, bytes in
            switch event {
            case .line:
                var copy: [UInt8] = []
                copy.reserveCapacity(bytes.count)
                for i in bytes.indices { copy.append(bytes[i]) }
                lines.append(String(decoding: copy, as: UTF8.self))
            default:
                problems.append(event.diagnostic)
            }
            events += 1
            if events % sampleEvery == 0 { peak = max(peak, reader.openInputCount) }
        }
        return (lines, problems, peak)
    }

    /// Where `actual` first differs from `expected` (`nil` when equal), without printing 30,000 lines.
    static func difference(_ actual: [String], _ expected: [String]) -> String? {
        guard actual != expected else { return nil }
        let common = min(actual.count, expected.count)
        let at = (0..<common).first { actual[$0] != expected[$0] } ?? common
        return "\(actual.count) lines, \(expected.count) expected; first difference at line \(at + 1)"
    }

    @Test("10,000 hourly files of 12 channels: 30,000 lines in time order, one file per channel open at a time")
    func hourlyChannels() throws {
        let root = try InputTempDirectory()
        defer { root.removeQuickly() }
        let files = try ManyInputFiles(in: root.path, layout: .channels)
        let reader = try MergeReader(arguments: [files.directory])
        let result = Self.drain(reader, sampleEvery: 100)
        #expect(result.problems == [])
        #expect(Self.difference(result.lines, files.lines.map(\.raw)) == nil)
        #expect(result.peak >= 1 && result.peak <= ManyInputFiles.channelCount, "\(result.peak) open at once")
        #expect(reader.statistics.lines == 30_000)
        #expect(reader.openInputCount == 0)
    }

    @Test(
        "10,000 files overlapping in time, at most 8 open: 30,000 lines in time order",
        arguments: [ManyInputFiles.Layout.flat, .overlapping])
    func overlapping(layout: ManyInputFiles.Layout) throws {
        let root = try InputTempDirectory("overlapping\(layout)")
        defer { root.removeQuickly() }
        let files = try ManyInputFiles(in: root.path, layout: layout)
        let reader = MergeReader(paths: try InputPaths.expand([files.directory]), maxOpenInputs: 8)
        let result = Self.drain(reader, sampleEvery: 100)
        #expect(result.problems == [])
        #expect(Self.difference(result.lines, files.lines.map(\.raw)) == nil)
        #expect(result.peak >= 1 && result.peak <= 8, "\(result.peak) open at once")
        #expect(reader.statistics.lines == 30_000)
        #expect(reader.statistics.failedInputs == 0)
    }

    /// `count` lines of `#c` at times `first + k * step`, each with `padding` bytes of text that
    /// compress poorly, so that a file needs many reads.
    static func bigLog(name: String, first: Int64, step: Int64, count: Int, padding: Int) -> (
        text: String, lines: [(Int64, String)]
    ) {
        var text = ""
        var lines: [(Int64, String)] = []
        var seed: UInt64 = UInt64(first) &* 0x9E37_79B9_7F4A_7C15 | 1
        for k in 0..<count {
            var noise = ""
            while noise.utf8.count < padding {
                seed ^= seed << 13
                seed ^= seed >> 7
                seed ^= seed << 17
                noise += String(seed, radix: 36)
            }
            let ms = first + Int64(k) * step
            let line = "@tmi-sent-ts=\(ms) :u!u@u PRIVMSG #c :\(name)-\(k) \(noise)"
            text += line + "\r\n"
            lines.append((ms, line))
        }
        return (text, lines)
    }

    @Test(
        "big plain and gzip files read in many small pieces, at most 2 open: each is closed and reopened at its offset")
    func reopenAtOffset() throws {
        let dir = try InputTempDirectory()
        var expected: [(Int64, String)] = []
        var paths: [String] = []
        for n in 0..<6 {
            // Interleaved times: every file is needed again after every other file.
            let log = Self.bigLog(name: "f\(n)", first: 1_000 + Int64(n), step: 10, count: 400, padding: 600)
            expected += log.lines
            let path = try dir.write("f\(n).log", Array(log.text.utf8))
            if n % 2 == 1 {
                // Poorly compressible: the gzip file is larger than its reader's 128 KiB input buffer.
                let gzip = try InputShell.run("gzip -1 " + InputShell.quote(path))
                #expect(gzip.status == 0, "\(gzip.errors)")
                paths.append(path + ".gz")
            } else {
                paths.append(path)
            }
        }
        expected.sort { $0.0 < $1.0 }
        let reader = MergeReader(paths: paths, maxLineLength: 1_024, bufferCapacity: 4_096, maxOpenInputs: 2)
        let result = Self.drain(reader)
        #expect(result.problems == [])
        #expect(Self.difference(result.lines, expected.map(\.1)) == nil)
        #expect(result.peak == 2)
        #expect(reader.statistics.lines == 2_400)
    }

    @Test("a file replaced while its descriptor was given back is reported as replaced, after its lines so far")
    func replacedWhileReleased() throws {
        let dir = try InputTempDirectory()
        let a = Self.bigLog(name: "a", first: 1_000, step: 10, count: 200, padding: 200)
        let b = Self.bigLog(name: "b", first: 1_005, step: 10, count: 200, padding: 200)
        let pathA = try dir.write("a.log", Array(a.text.utf8))
        let pathB = try dir.write("b.log", Array(b.text.utf8))
        let reader = MergeReader(paths: [pathA, pathB], maxLineLength: 1_024, bufferCapacity: 4_096, maxOpenInputs: 1)
        var lines = 0
        var failures: [InputError] = []
        var replaced = false
        while true {
            let more = reader.next { event, _ in
                switch event {
                case .line: lines += 1
                case .inputFailed(_, let error, _): failures.append(error)
                default: break
                }
            }
            if !more { break }
            if !replaced && lines == 40 {
                // b.log gave its descriptor back to a.log by now; put another file at its path.
                try dir.write("b.new", Array(b.text.utf8))
                #expect(rename(dir.path + "/b.new", pathB) == 0)
                replaced = true
            }
        }
        #expect(failures == [.replaced(name: pathB)])
        // All 200 of a.log, and the 40 of b.log read before the reader went back to its path and found
        // another file there (a deterministic run: the same 40 every time).
        #expect(lines == 240)
        #expect(reader.statistics.failedInputs == 1)
        #expect(
            InputError.replaced(name: pathB).description.hasSuffix(
                "replaced by another file while it was read; lines before were read"))
    }

    @Test(
        "more lanes than start at once: untimed, empty, vanished and timed inputs come out as with every lane started")
    func lazyStartKeepsOrder() throws {
        let dir = try InputTempDirectory()
        var paths: [String] = []
        for n in 0..<(MergeReader.eagerLaneLimit + 6) {
            var text = ""
            switch n % 5 {
            case 0: text = ":u!u@u PRIVMSG #c :untimed-\(n)\r\n@tmi-sent-ts=\(5_000 - n) :u!u@u PRIVMSG #c :t-\(n)\r\n"
            case 1: text = ""
            default: text = "@tmi-sent-ts=\(1_000 + n * 7 % 50) :u!u@u PRIVMSG #c :t-\(n)\r\n"
            }
            paths.append(try dir.write("in\(n).log", Array(text.utf8)))
        }
        let lazy = MergeReader(paths: paths)
        // The same inputs as few lanes (so all start at once) cannot tell the order apart: compare with
        // the order the merge promises instead — by time, untimed first, ties by position.
        try FileManager.default.removeItem(atPath: paths[3])
        let result = Self.drain(lazy)
        var expected: [(key: (Int64, Int), text: String)] = []
        for n in 0..<paths.count where n != 3 {
            switch n % 5 {
            case 0:
                expected.append(((Int64.min, n), "untimed-\(n)"))
                expected.append(((Int64(5_000 - n), n), "t-\(n)"))
            case 1: break
            default: expected.append(((Int64(1_000 + n * 7 % 50), n), "t-\(n)"))
            }
        }
        expected.sort { $0.key.0 != $1.key.0 ? $0.key.0 < $1.key.0 : $0.key.1 < $1.key.1 }
        #expect(result.lines.map { String($0.split(separator: ":").last!) } == expected.map(\.text))
        #expect(result.problems == ["\(paths[3]): no such file or directory"])
    }
}
