import ChatGzip
import ChatInput
import ChatPosix
import ChatTestSupport
import Foundation
import Testing

@Suite(.timeLimit(.minutes(20))) struct GzipWriterTests {
    static func zcat(_ path: String) throws -> InputShell.Result {
        try InputShell.run("zcat \(InputShell.quote(path))")
    }
    static func gzipTest(_ path: String) throws -> InputShell.Result {
        try InputShell.run("gzip -t \(InputShell.quote(path))")
    }
    static func fileBytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Varied, not too compressible text, so that the output buffer fills and blocks end mid-stream.
    static func noisyLines(_ count: Int, seed: UInt64) -> [UInt8] {
        var rng = InputRandom(seed: seed)
        var out: [UInt8] = []
        for i in 0..<count {
            let words = (0..<(Int(rng.next() % 12) + 1)).map { _ in String(rng.next() % 1_000_000, radix: 36) }
            out += Array(
                "@tmi-sent-ts=\(1_763_699_201_000 + i) :u!u@u PRIVMSG #c :\(words.joined(separator: " "))\r\n".utf8)
        }
        return out
    }

    @Test("write and close: zcat reads it back and gzip -t passes", arguments: [Int32(0), 1, 6, 9])
    func roundTrip(level: Int32) throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("out.log.gz")
        let content = Self.noisyLines(5000, seed: 1)
        let writer = try GzipWriter(path: path, level: level, outputCapacity: 4096)
        #expect(writer.repair == nil)
        for part in stride(from: 0, to: content.count, by: 1000) {
            let piece = Array(content[part..<min(part + 1000, content.count)])
            try writer.write(piece.span)
        }
        try writer.close()
        try writer.close()  // a second close does nothing
        #expect(writer.uncompressedByteCount == UInt64(content.count))
        let out = try Self.zcat(path)
        #expect(out.status == 0, "\(out.errors)")
        #expect(out.output == content)
        #expect(try Self.gzipTest(path).status == 0)
    }

    @Test("a sync-flushed, unclosed file is readable by zcat up to the last flush")
    func syncFlush() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("live.log.gz")
        let a = sampleChatLines(100)
        let b = sampleChatLines(5, channel: "late")
        let writer = try GzipWriter(path: path)
        try writer.write(a.span)
        try writer.flush()
        let afterFlush = try Self.zcat(path)
        #expect(afterFlush.output == a)
        #expect(afterFlush.status != 0, "the member is not finished yet")
        try writer.write(b.span)
        #expect(try Self.zcat(path).output == a, "unflushed bytes are not promised")
        try writer.flush(durable: true)
        try writer.flush()  // a second flush in a row is harmless
        #expect(try Self.zcat(path).output == a + b)
        try writer.close()
        let closed = try Self.zcat(path)
        #expect(closed.status == 0 && closed.output == a + b)
    }

    @Test("opening an existing file appends a new member and never rewrites earlier bytes")
    func appendsMember() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("day.log.gz")
        let a = sampleChatLines(300)
        let b = sampleChatLines(200, channel: "second")
        let first = try GzipWriter(path: path)
        try first.write(a.span)
        try first.close()
        let before = try Self.fileBytes(path)

        let second = try GzipWriter(path: path)
        #expect(second.repair == nil)
        try second.write(b.span)
        try second.close()
        let after = try Self.fileBytes(path)
        #expect(after.starts(with: before))
        #expect(after.count > before.count)
        let out = try Self.zcat(path)
        #expect(out.status == 0 && out.output == a + b)
        #expect(try Self.gzipTest(path).status == 0)

        var source = try makeByteSource(path: path)
        let (bytes, error) = drainSource(&source, chunk: 1000)
        #expect(error == nil && bytes == a + b)
        #expect((source as? GzipSource)?.memberCount == 2)
    }

    /// Level 1 (the default) and 3 run on ISA-L, 6 on zlib. ISA-L holds up to ~64 K tokens of input before it
    /// writes a block, so the unflushed part is large enough for every engine to leave a torn block.
    /// The member ends at the last flush, never at a later block boundary: a line cut there would be
    /// glued to the next run's first line (issue 23: 68 of 87 crashed files had such a torn line).
    @Test(
        "after a writer died, the next one finishes its member at the last flush, not a later block boundary",
        arguments: [Int32(1), 3, 6])
    func repairsAfterCrash(level: Int32) throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("crashed.log.gz")
        let a = Self.noisyLines(2000, seed: 2)
        let b = Self.noisyLines(20000, seed: 3)
        let c = sampleChatLines(10, channel: "after")
        let dead = try GzipWriter(path: path, level: level, outputCapacity: 1024)
        try dead.write(a.span)
        try dead.flush()
        try dead.write(b.span)  // fills the output buffer several times: the file ends mid-block
        dead.abandon()
        let crashed = try Self.fileBytes(path)
        // What zlib can decode of the unflushed part: all of it is dropped, whole lines and the cut one.
        let decodable = Array(try GzipDecoded.decodable(path).dropFirst(a.count))
        #expect(!decodable.isEmpty && b.starts(with: decodable))

        let next = try GzipWriter(path: path)
        let repair = try #require(next.repair)
        #expect(repair.droppedByteCount > 0)
        #expect(repair.offset + repair.droppedByteCount == UInt64(crashed.count))
        #expect(repair.droppedLineCount == decodable.count { $0 == 0x0A })
        #expect(repair.droppedPartialLine == (decodable.last != 0x0A))
        #expect(repair.droppedTextByteCount == UInt64(decodable.count))
        #expect(repair.memberSize == UInt32(a.count))
        try next.write(c.span)
        try next.close()

        let after = try Self.fileBytes(path)
        #expect(after.starts(with: crashed[0..<Int(repair.offset)]), "bytes before the repair point are untouched")
        #expect(try Self.gzipTest(path).status == 0)
        let out = try Self.zcat(path)
        #expect(out.status == 0, "\(out.errors)")
        #expect(out.output == a + c, "the member ends at the flush after `a`: no part of `b`, no torn line")
    }

    @Test("a writer that died before its first flush leaves no part of its member", arguments: [Int32(1), 6])
    func repairsUnflushedMember(level: Int32) throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("early.log.gz")
        let a = sampleChatLines(50)
        let b = Self.noisyLines(20000, seed: 5)
        let first = try GzipWriter(path: path)
        try first.write(a.span)
        try first.close()
        let dead = try GzipWriter(path: path, level: level, outputCapacity: 1024)
        try dead.write(b.span)
        dead.abandon()
        let next = try GzipWriter(path: path)
        let repair = try #require(next.repair)
        #expect(repair.memberSize == 0)
        #expect(repair.droppedLineCount > 0)
        try next.close()
        let out = try Self.zcat(path)
        #expect(out.status == 0 && out.output == a)
    }

    @Test("a file cut at any point is finished cleanly before appending")
    func repairsTruncatedFiles() throws {
        let dir = try InputTempDirectory()
        let original = try dir.file("original.gz")
        let parts = [sampleChatLines(200), Self.noisyLines(500, seed: 4)]
        let writer = try GzipWriter(path: original, outputCapacity: 512)
        let (first, rest) = (parts[0], parts[1])
        try writer.write(first.span)
        try writer.flush()
        try writer.write(rest.span)
        try writer.close()
        let second = try GzipWriter(path: original)
        try second.write(sampleChatLines(3, channel: "member2").span)
        try second.close()
        let full = try Self.fileBytes(original)
        let whole = try Self.zcat(original).output
        let tail = sampleChatLines(2, channel: "tail")

        for cut in [1, 5, 10, 11, 30, full.count / 4, full.count / 2, full.count - 40, full.count - 8, full.count - 3] {
            let path = try dir.write("cut-\(cut).gz", Array(full[0..<cut]))
            let repaired = try GzipWriter(path: path)
            try repaired.write(tail.span)
            try repaired.close()
            #expect(try Self.gzipTest(path).status == 0, "cut at \(cut)")
            let out = try Self.zcat(path)
            #expect(out.status == 0, "cut at \(cut): \(out.errors)")
            #expect(out.output.count >= tail.count && Array(out.output.suffix(tail.count)) == tail, "cut at \(cut)")
            let kept = out.output.dropLast(tail.count)
            #expect(whole.starts(with: kept), "cut at \(cut)")
            // Only where a writer flushed or finished: after `first`, after the first member, or whole.
            let ends = [0, first.count, first.count + rest.count, whole.count]
            #expect(ends.contains(kept.count), "cut at \(cut): kept \(kept.count) bytes, not at a flush point")
        }
    }

    @Test("a file that is not gzip is refused and left alone")
    func refusesPlainFile() throws {
        let dir = try InputTempDirectory()
        let content = sampleChatLines(5)
        let path = try dir.write("plain.log.gz", content)
        #expect {
            try GzipWriter(path: path)
        } throws: { error in
            guard case .damagedFile(let p, _, _) = error as? GzipWriterError else { return false }
            return p == path
        }
        #expect(try Self.fileBytes(path) == content)
    }

    @Test("two writers on one file: the second is refused")
    func busy() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("shared.gz")
        let first = try GzipWriter(path: path)
        #expect(throws: GzipWriterError.busy(path: path)) { try GzipWriter(path: path) }
        try first.close()
        let again = try GzipWriter(path: path)
        try again.close()
    }

    /// A child process forked by another thread shares the writer's open file description until it
    /// execs (`O_CLOEXEC` closes it only then); a `dup` models that window. The lock is on the open
    /// file description, so `close` alone would leave it held for the child's lifetime.
    @Test("close releases the lock even while a forked child still shares the descriptor", arguments: [false, true])
    func closeReleasesSharedLock(spooled: Bool) throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("shared.gz")
        let spool = spooled ? WriteSpool() : nil
        defer { spool?.shutdown() }
        let first = try GzipWriter(path: path, spool: spool)
        let twin = dup(first.fileDescriptor)
        #expect(twin >= 0)
        defer { close(twin) }
        try first.write(sampleChatLines(3).span)
        try first.close()
        spool?.drain()
        let again = try GzipWriter(path: path, spool: spool)
        try again.close()
        spool?.drain()
    }

    @Test("a full disk surfaces as writeFailed with ENOSPC and the path, and stays failed")
    func diskFull() throws {
        let writer = try GzipWriter(path: "/dev/full")
        try writer.write(sampleChatLines(10).span)
        #expect(throws: GzipWriterError.writeFailed(path: "/dev/full", errno: ENOSPC)) { try writer.flush() }
        #expect(throws: GzipWriterError.writeFailed(path: "/dev/full", errno: ENOSPC)) {
            try writer.write(sampleChatLines(1).span)
        }
        #expect(throws: GzipWriterError.writeFailed(path: "/dev/full", errno: ENOSPC)) { try writer.close() }
        let error = GzipWriterError.writeFailed(path: "/dev/full", errno: ENOSPC)
        #expect(error.errno == ENOSPC && error.path == "/dev/full")
        #expect(error.description == "/dev/full: write failed: No space left on device; data flushed before is intact")
    }

    @Test("an I/O error after a flush leaves everything flushed before readable")
    func ioErrorKeepsFlushedData() throws {
        let dir = try InputTempDirectory()
        let path = try dir.file("eio.log.gz")
        let a = sampleChatLines(400)
        let writer = try GzipWriter(path: path, outputCapacity: 256)
        try writer.write(a.span)
        try writer.flush()
        writer.injectedFailure = (afterBytes: writer.compressedByteCount + 100, errno: EIO)
        #expect(throws: GzipWriterError.writeFailed(path: path, errno: EIO)) {
            try writer.write(Self.noisyLines(2000, seed: 5).span)
            try writer.flush()
        }
        #expect(throws: GzipWriterError.writeFailed(path: path, errno: EIO)) { try writer.close() }

        #expect(try Self.zcat(path).output.starts(with: a))
        var source = try makeByteSource(path: path)
        let (bytes, error) = drainSource(&source)
        #expect(bytes.starts(with: a))
        #expect(error?.isDamage == true)
    }
}
