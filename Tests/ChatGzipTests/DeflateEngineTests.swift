import ChatGzip
import ChatInput
import ChatPosix
import ChatTestSupport
import Foundation
import Testing

/// The gzip engines end to end: each level's library, round trips through `zcat`, `gzip -t` and
/// ``GzipSource``, sync-flush points readable mid-file, mixed-engine members, and cut files.
@Suite(.timeLimit(.minutes(20))) struct DeflateEngineTests {
    static func zcat(_ path: String) throws -> InputShell.Result {
        try InputShell.run("zcat \(InputShell.quote(path))")
    }

    static func fileBytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Decodes `bytes` with ``GzipSource``, drip-fed `step` compressed bytes at a time into `chunk`-byte reads.
    static func inflate(_ bytes: [UInt8], step: Int = .max, chunk: Int = 64 * 1024) throws
        -> (bytes: [UInt8], error: InputError?, members: Int)
    {
        let source = try GzipSource(wrapping: InputArraySource(bytes, name: "t.gz", step: step))
        var reading = source
        let (out, error) = drainSource(&reading, chunk: chunk)
        return (out, error, source.memberCount)
    }

    @Test("levels 1...3 (the default among them) run on ISA-L; 0 and 4...9 on zlib")
    func libraries() throws {
        let dir = try InputTempDirectory()
        #expect(GzipWriter.defaultLevel == 1)
        for level in Int32(0)...9 {
            let writer = try GzipWriter(path: try dir.file("l\(level).gz"), level: level)
            #expect(writer.compressor == ((1...3).contains(level) ? "isal" : "zlib"), "level \(level)")
            try writer.close()
        }
        let writer = try GzipWriter(path: try dir.file("default.gz"))
        #expect(writer.compressor == "isal")
        try writer.close()
    }

    @Test(
        "every level round-trips through zcat, gzip -t and GzipSource, with tiny and large output buffers",
        arguments: [Int32(0), 1, 2, 3, 4, 6, 9], [64, 64 * 1024])
    func roundTrip(level: Int32, outputCapacity: Int) throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("out.gz")
        let content = GzipWriterTests.noisyLines(3000, seed: UInt64(level) + 10) + sampleChatLines(3000)
        let writer = try GzipWriter(path: path, level: level, outputCapacity: outputCapacity)
        var rng = InputRandom(seed: 7)
        var at = 0
        while at < content.count {  // pieces of 0 to ~2 KiB, as lines arrive
            let end = min(content.count, at + Int(rng.next() % 2048))
            try writer.write(Array(content[at..<end]).span)
            at = end
        }
        try writer.close()
        let out = try Self.zcat(path)
        #expect(out.status == 0, "\(out.errors)")
        #expect(out.output == content)
        #expect(try InputShell.run("gzip -t \(InputShell.quote(path))").status == 0)
        let decoded = try Self.inflate(try Self.fileBytes(path), step: 4093, chunk: 1000)
        #expect(decoded.error == nil && decoded.members == 1)
        #expect(decoded.bytes == content)
    }

    @Test(
        "after every sync flush, zcat and GzipSource read exactly what was written so far", arguments: [Int32(1), 3, 6])
    func flushPoints(level: Int32) throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("live.gz")
        let writer = try GzipWriter(path: path, level: level, outputCapacity: 4096)
        var written: [UInt8] = []
        for round in 0..<6 {
            // Rounds of very different sizes: ISA-L holds whole blocks back until a flush.
            let piece = GzipWriterTests.noisyLines([1, 40, 3000, 0, 200, 9000][round], seed: UInt64(round))
            try writer.write(piece.span)
            written += piece
            try writer.flush()
            let out = try Self.zcat(path)
            #expect(out.status != 0, "the member is not finished yet")
            #expect(out.output == written, "zcat after flush \(round)")
            let file = try Self.fileBytes(path)
            for (step, chunk) in [(Int.max, 64 * 1024), (997, 333)] {
                let decoded = try Self.inflate(file, step: step, chunk: chunk)
                #expect(decoded.bytes == written, "GzipSource after flush \(round), step \(step)")
                #expect(decoded.error == .truncated(name: "t.gz", compressedOffset: UInt64(file.count)))
            }
        }
        try writer.close()
        #expect(try Self.zcat(path).output == written)
    }

    @Test(
        "random writes and flushes through small output buffers: every flush point decodes exactly",
        arguments: [Int32(1), 2, 3])
    func randomFlushes(level: Int32) throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("random.gz")
        let pool = GzipWriterTests.noisyLines(6000, seed: 40) + sampleChatLines(6000)
        var rng = InputRandom(seed: UInt64(level) * 977)
        let writer = try GzipWriter(path: path, level: level, outputCapacity: 64 + Int(rng.next() % 3000))
        var written = 0
        for _ in 0..<40 {
            // Pieces from a byte to ~100 KiB, so the 64 KiB stage fills in the middle of a write too.
            let size = Int(rng.next() % (rng.next() % 2 == 0 ? 700 : 100_000))
            let end = min(pool.count, written + size)
            try writer.write(Array(pool[written..<end]).span)
            written = end
            guard rng.next() % 4 == 0 else { continue }
            try writer.flush()
            let decoded = try Self.inflate(try Self.fileBytes(path), step: 5000, chunk: 3000)
            #expect(decoded.bytes == Array(pool[0..<written]), "flush after \(written) bytes")
        }
        try writer.close()
        let out = try Self.zcat(path)
        #expect(out.status == 0 && out.output == Array(pool[0..<written]))
    }

    @Test("members written at different levels (both engines) read as one stream", arguments: [Int.max, 1, 1000])
    func mixedMembers(step: Int) throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("day.gz")
        var expected: [UInt8] = []
        let levels: [Int32] = [1, 6, 2, 0, 3, 9, 1]
        for (i, level) in levels.enumerated() {
            let part = i == 3 ? [] : GzipWriterTests.noisyLines(step == 1 ? 30 : 800 * (i + 1), seed: UInt64(i))
            let writer = try GzipWriter(path: path, level: level)
            try writer.write(part.span)
            try writer.close()
            expected += part
        }
        let out = try Self.zcat(path)
        #expect(out.status == 0 && out.output == expected)
        #expect(try InputShell.run("gzip -t \(InputShell.quote(path))").status == 0)
        let decoded = try Self.inflate(try Self.fileBytes(path), step: step, chunk: step == 1 ? 7 : 4096)
        #expect(decoded.error == nil)
        #expect(decoded.members == levels.count)
        #expect(decoded.bytes == expected)
    }

    @Test("a cut ISA-L file yields a prefix, everything up to the last flush, then truncated")
    func cutAfterFlush() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("cut.gz")
        let flushed = GzipWriterTests.noisyLines(5000, seed: 21)
        let writer = try GzipWriter(path: path, outputCapacity: 512)
        try writer.write(flushed.span)
        try writer.flush()
        let flushPoint = try Self.fileBytes(path).count
        try writer.write(GzipWriterTests.noisyLines(30000, seed: 22).span)
        try writer.close()
        let whole = try Self.fileBytes(path)
        let content = try Self.zcat(path).output
        for cut in [flushPoint - 100, flushPoint, flushPoint + 1, flushPoint + 5000, whole.count - 9, whole.count - 1] {
            for (step, chunk) in [(Int.max, 64 * 1024), (1000, 4096), (7, 100_000)] {
                let decoded = try Self.inflate(Array(whole[0..<cut]), step: step, chunk: chunk)
                #expect(decoded.error == .truncated(name: "t.gz", compressedOffset: UInt64(cut)), "cut \(cut)")
                #expect(content.starts(with: decoded.bytes), "cut \(cut)")
                if cut >= flushPoint { #expect(decoded.bytes.count >= flushed.count, "cut \(cut), step \(step)") }
                if cut >= whole.count - 8 { #expect(decoded.bytes == content, "only the trailer is missing") }
            }
        }
    }

    /// A source that records how many decoded bytes the reader had when it first asked past the end.
    final class ProbeSource: ByteSource {
        let name = "probe.gz"
        let bytes: [UInt8]
        var position = 0
        var delivered = 0
        var deliveredAtEnd: Int? = nil
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
            if position == bytes.count && deliveredAtEnd == nil { deliveredAtEnd = delivered }
            let n = min(buffer.count, 4096, bytes.count - position)
            for i in 0..<n { buffer[i] = bytes[position + i] }
            position += n
            return n
        }
    }

    @Test("everything before a flush is handed out before the inner source is asked for more (as following does)")
    func noHeldBackOutput() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("follow.gz")
        let content = GzipWriterTests.noisyLines(8000, seed: 31)
        let writer = try GzipWriter(path: path)
        try writer.write(content.span)
        try writer.flush()
        let probe = ProbeSource(try Self.fileBytes(path))
        let source = try GzipSource(wrapping: probe)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1000, alignment: 1)
        defer { chunk.deallocate() }
        while probe.deliveredAtEnd == nil, let n = try? source.read(into: chunk), n > 0 {
            probe.delivered += n
        }
        #expect(probe.deliveredAtEnd == content.count)
        try writer.close()
    }

    @Test("GzipSource reads headers with a file name (gzip, igzip) and concatenated foreign members")
    func foreignHeaders() throws {
        let dir = try InputTempDirectory()
        let content = sampleChatLines(2000)
        let path = try dir.write("named.log", content)
        let quoted = InputShell.quote(path)
        // igzip (Debian package isal) is a test tool like gzip: missing, its cases fail, never drop out.
        #expect(try InputShell.run("command -v igzip").status == 0, "igzip is not installed (package isal; make deps)")
        let tools = [
            "gzip -c \(quoted)", "gzip -1 -c \(quoted)", "igzip -c \(quoted)", "igzip -3 -c \(quoted)",
            "igzip -0 -c \(quoted)",
        ]
        var all: [UInt8] = []
        for tool in tools {
            let compressed = try InputShell.run(tool)
            #expect(compressed.status == 0, "\(tool): \(compressed.errors)")
            let decoded = try Self.inflate(compressed.output, step: 333, chunk: 1024)
            #expect(decoded.error == nil && decoded.bytes == content, "\(tool)")
            all += compressed.output
        }
        let decoded = try Self.inflate(all)
        #expect(decoded.members == tools.count && decoded.bytes.count == content.count * tools.count)
    }

    @Test("damage in the middle of an ISA-L member: data before it, then one corrupt report")
    func corruptMiddle() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("bad.gz")
        let content = GzipWriterTests.noisyLines(20000, seed: 5)
        let writer = try GzipWriter(path: path)
        try writer.write(content.span)
        try writer.close()
        var bytes = try Self.fileBytes(path)
        let at = bytes.count / 2
        for i in at..<(at + 64) { bytes[i] = 0xFF }
        let decoded = try Self.inflate(bytes, step: 4096, chunk: 4096)
        #expect(decoded.error?.isDamage == true)
        // The damaged block may decode to wrong bytes before the decoder notices; the first quarter is intact.
        #expect(decoded.bytes.count > content.count / 4)
        #expect(decoded.bytes.prefix(content.count / 4) == content.prefix(content.count / 4))
    }
}

/// ``GzipCompressor``: whole buffers as one member each, the engine reset between them.
@Suite(.timeLimit(.minutes(20))) struct GzipCompressorTests {
    @Test(
        "bodies in a row each decode to their input alone (ISA-L and zlib), incompressible ones included",
        arguments: [Int32(1), 6])
    func bodiesInARow(level: Int32) throws {
        let compressor = try GzipCompressor(level: level)
        #expect(compressor.library == (level == 1 ? "isal" : "zlib"))
        var rng = InputRandom(seed: 3)
        let noise = (0..<300_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let bodies: [[UInt8]] = [
            sampleChatLines(2000), [], Array("{\"a\":1}\n".utf8), noise, sampleChatLines(50),
        ]
        for body in bodies {
            let gz = compressor.compress(body)
            let decoded = try DeflateEngineTests.inflate(gz)
            #expect(decoded.error == nil && decoded.members == 1, "\(body.count) bytes")
            #expect(decoded.bytes == body, "\(body.count) bytes")
        }
    }
}
