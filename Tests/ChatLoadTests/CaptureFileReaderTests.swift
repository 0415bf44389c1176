import ChatGzip
import ChatInput
import ChatLoad
import ChatPosix
import ChatTestSupport
import Foundation
import Testing

@Suite(.timeLimit(.minutes(20))) struct CaptureFileReaderTests {
    /// Lines `first..<first+count` of a channel, each ended by CR LF.
    static func lines(_ range: Range<Int>) -> [[UInt8]] {
        range.map {
            Array(
                "@time=2026-11-21T13:26:03.373Z;id=m\($0);tmi-sent-ts=\(1_763_700_000_000 + $0) :u!u@u PRIVMSG #c :line \($0)\r\n"
                    .utf8)
        }
    }

    /// Appends `lines` to the gzip file at `path` as capture does (a writer flushed, then closed).
    static func append(_ lines: [[UInt8]], to path: String, close: Bool = true) throws -> GzipWriter {
        let writer = try GzipWriter(path: path)
        for line in lines { try writer.write(line.span) }
        try writer.flush()
        if close { try writer.close() }
        return writer
    }

    /// Everything `reader` hands out now: the lines (without CR LF) and their end offsets.
    static func drain(_ reader: CaptureFileReader) throws(CaptureReadError) -> [(String, UInt64)] {
        var out: [(String, UInt64)] = []
        while true {
            let n = try reader.read(limit: 7) { line, end in
                out.append((String(decoding: line.withUnsafeBufferPointer { Array($0) }, as: UTF8.self), end))
            }
            if n < 7 { return out }
        }
    }

    @Test("hands out every line with the offset after it, across a file still being written and a new member")
    func follows() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("c/2026-11-21.log.gz")
        let first = Self.lines(0..<50)
        let open = try Self.append(first, to: path, close: false)
        let reader = try CaptureFileReader(path: path, resumeAt: 0, mark: nil)
        var got = try Self.drain(reader)
        #expect(got.count == 50)
        #expect(reader.isPaused)
        // A partial line (no line end yet) waits; the rest of it and more lines come later.
        try open.write(Array("@time=x :u!u@u PRIVMSG #c :hal".utf8).span)
        try open.flush()
        #expect(try Self.drain(reader).isEmpty)
        try open.write(Array("f\r\n".utf8).span)
        try open.close()
        _ = try Self.append(Self.lines(50..<80), to: path)  // a second member, as a restarted capture appends
        got += try Self.drain(reader)
        #expect(got.count == 81)
        let expected = first + [Array("@time=x :u!u@u PRIVMSG #c :half\r\n".utf8)] + Self.lines(50..<80)
        var offset: UInt64 = 0
        for (i, line) in expected.enumerated() {
            offset += UInt64(line.count)
            #expect(got[i].0 == String(decoding: line.dropLast(2), as: UTF8.self))
            #expect(got[i].1 == offset)
        }
        #expect(reader.isDrained)
        let size = UInt64(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int)
        #expect(reader.examinedSize == size)
        // Read to the last flush point; what follows it (the empty final block and the trailer) holds no text.
        #expect(reader.compressedOffset < size && reader.compressedOffset + 32 > size)
    }

    /// Capture writes compressed output whenever its buffer fills, so a file holds bytes past its last
    /// flush; a crash drops them (the next run's repair cuts them off). `load` must not ship their lines.
    @Test("only lines up to the last flush point are handed out; the rest after the next flush")
    func onlyDurableLines() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("c/2026-11-21.log.gz")
        let flushed = Self.lines(0..<100)
        let unflushed = Self.lines(100..<20_100)
        let writer = try GzipWriter(path: path, outputCapacity: 1024)
        for line in flushed { try writer.write(line.span) }
        try writer.flush()
        for line in unflushed { try writer.write(line.span) }  // several full buffers written, not flushed
        let decodable = try InputShell.run("zcat \(InputShell.quote(path)) 2>/dev/null").output
        try #require(decodable.count > flushed.joined().count + 10_000, "the unflushed lines reached the file")

        let reader = try CaptureFileReader(path: path, resumeAt: 0, mark: nil)
        var got = try Self.drain(reader)
        #expect(got.map(\.0) == flushed.map { String(decoding: $0.dropLast(2), as: UTF8.self) })
        #expect(reader.isPaused && !reader.isDrained, "paused at the flush point, the bytes after it not settled")
        try writer.flush()
        got += try Self.drain(reader)
        #expect(got.count == 20_100)
        #expect(got.last?.0 == String(decoding: unflushed.last!.dropLast(2), as: UTF8.self))
        try writer.close()
        #expect(try Self.drain(reader).isEmpty)
    }

    @Test("a finished gzip file with no flush point (another writer) is read whole once it stays quiet")
    func foreignGzip() throws {
        let dir = try InputTempDirectory()
        let plain = try dir.file("c/plain.log")
        let lines = Self.lines(0..<300)
        try Data(lines.joined()).write(to: URL(fileURLWithPath: plain))
        #expect(try InputShell.run("gzip \(InputShell.quote(plain))").status == 0)
        let reader = try CaptureFileReader(path: plain + ".gz", resumeAt: 0, mark: nil)
        var got = try Self.drain(reader)
        #expect(!reader.isDrained, "not settled: the file was not looked at whole yet")
        let deadline = Date().addingTimeInterval(10)
        while !reader.isDrained && Date() < deadline {
            usleep(100_000)
            got += try Self.drain(reader)
        }
        #expect(reader.isDrained)
        #expect(got.map(\.0) == lines.map { String(decoding: $0.dropLast(2), as: UTF8.self) })
    }

    /// A capture killed with `kill -9` that never comes back (or whose next run never writes to this
    /// file): the file stays torn. Once quiet, it is decoded whole with the repair's rule and what lies
    /// after the last flush point is never handed out, though zcat decodes it.
    @Test("a file left torn by a capture that never comes back: once quiet, settled with only its flushed lines")
    func tornForGood() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("c/2026-11-21.log.gz")
        let flushed = Self.lines(0..<100)
        let dead = try GzipWriter(path: path, outputCapacity: 1024)
        for line in flushed { try dead.write(line.span) }
        try dead.flush()
        for line in Self.lines(100..<20_100) { try dead.write(line.span) }
        dead.abandon()
        let decodable = try InputShell.run("zcat \(InputShell.quote(path)) 2>/dev/null").output
        try #require(decodable.count > flushed.joined().count + 10_000, "the unflushed lines reached the file")

        let reader = try CaptureFileReader(path: path, resumeAt: 0, mark: nil)
        var got = try Self.drain(reader)
        let deadline = Date().addingTimeInterval(10)
        while !reader.isDrained && Date() < deadline {
            usleep(100_000)
            got += try Self.drain(reader)
        }
        #expect(reader.isDrained, "settled once quiet")
        #expect(got.map(\.0) == flushed.map { String(decoding: $0.dropLast(2), as: UTF8.self) })
    }

    @Test("after a crash and the repair, reading goes on at the flush point: nothing handed out twice or lost")
    func continuesAcrossRepair() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("c/2026-11-21.log.gz")
        let dead = try GzipWriter(path: path, outputCapacity: 1024)
        for line in Self.lines(0..<100) { try dead.write(line.span) }
        try dead.flush()
        for line in Self.lines(100..<20_100) { try dead.write(line.span) }
        let reader = try CaptureFileReader(path: path, resumeAt: 0, mark: nil)
        var got = try Self.drain(reader)
        #expect(got.count == 100)
        dead.abandon()  // kill -9: the unflushed lines are gone
        let next = try GzipWriter(path: path)
        #expect(next.repair?.droppedLineCount ?? 0 > 0)
        for line in Self.lines(500..<510) { try next.write(line.span) }
        try next.close()
        got += try Self.drain(reader)
        let expected = (Self.lines(0..<100) + Self.lines(500..<510)).map {
            String(decoding: $0.dropLast(2), as: UTF8.self)
        }
        #expect(got.map(\.0) == expected)
    }

    @Test("resuming at an acknowledged offset: only later lines, once the line ending there matches its mark")
    func resumes() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("c/a.log.gz")
        let all = Self.lines(0..<30)
        _ = try Self.append(all, to: path)
        let end = UInt64(all[0..<12].reduce(0) { $0 + $1.count })
        let mark = LineMark(of: Array(all[11].dropLast(2)).span)
        let reader = try CaptureFileReader(path: path, resumeAt: end, mark: mark)
        let got = try Self.drain(reader)
        #expect(got.count == 18)
        #expect(got.first?.0.contains("line 12") == true)
        // The wrong mark, or an offset inside a line: the file is not what was loaded.
        let wrong = try CaptureFileReader(
            path: path, resumeAt: end, mark: LineMark(length: mark.length, crc: mark.crc ^ 1))
        #expect(throws: CaptureReadError.changed) { _ = try Self.drain(wrong) }
        let inside = try CaptureFileReader(path: path, resumeAt: end - 3, mark: mark)
        #expect(throws: CaptureReadError.changed) { _ = try Self.drain(inside) }
        // An offset past the file's end: it was cut back.
        let past = try CaptureFileReader(path: path, resumeAt: end * 10, mark: mark)
        #expect(throws: CaptureReadError.changed) { _ = try Self.drain(past) }
    }

    @Test("a file cut back and rewritten below what was read is noticed before reading on")
    func rewritten() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("c/a.log.gz")
        _ = try Self.append(Self.lines(0..<200), to: path)
        let reader = try CaptureFileReader(path: path, resumeAt: 0, mark: nil)
        #expect(try Self.drain(reader).count == 200)
        // What a capture restarted after a crash does: cut the file back, then append a new member.
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(truncate(path, off_t(size / 2)) == 0)
        _ = try Self.append(Self.lines(500..<900), to: path)
        do {
            _ = try Self.drain(reader)
            Issue.record("read on over a rewritten file")
        } catch {
            guard case .input(.corrupt(_, _, let reason)) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(reason == GrowingFile.rewrittenReason)
        }
    }
}
