import ChatGzip
import ChatTestSupport
import Foundation
import Testing

/// `WriteSpool` with real file descriptors: a named pipe read slowly by the test stands in for a disk
/// slower than the producer (its `write(2)` blocks once the pipe's 64 KiB are full).
@Suite(.timeLimit(.minutes(20))) struct WriteSpoolTests {
    /// Records back-pressure events from the producer thread.
    final class Events: @unchecked Sendable {  // touched by the producer thread only, read after
        var list: [WriteSpool.BackPressure] = []
    }

    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let dir = try InputTempDirectory()
        let path = try dir.write("x.gz", bytes)
        return try InputShell.run("zcat \(InputShell.quote(path))").output
    }

    @Test(
        "a slow disk: the producer is stopped at the limit, each stop is reported, memory stays bounded, nothing is lost"
    )
    func backPressureOnSlowPipe() throws {
        let dir = try InputTempDirectory()
        let fifo = try dir.file("slow.gz")
        #expect(mkfifo(fifo, 0o600) == 0)
        let chunk = 4096
        let limit = 64 * 1024
        let spool = WriteSpool(chunkBytes: chunk, limitBytes: limit)
        let events = Events()
        spool.onBackPressure = { events.list.append($0) }
        let reader = SlowPipeReader(path: fifo, chunk: 8192, pauseMs: 2)
        // Level 0 (stored): every input byte becomes an output byte, so the queue fills quickly.
        let writer = try GzipWriter(path: fifo, level: 0, outputCapacity: chunk, spool: spool)
        let content = GzipWriterTests.noisyLines(6000, seed: 7)
        var peakAllocatedBound = 0
        for start in stride(from: 0, to: content.count, by: 700) {
            try writer.write(Array(content[start..<min(start + 700, content.count)]).span)
            peakAllocatedBound = max(peakAllocatedBound, spool.counterSnapshot.queuedBytes)
        }
        try writer.close()
        spool.shutdown()
        let received = reader.join()
        let counters = spool.counterSnapshot
        #expect(try Self.gunzip(received) == content, "every byte arrives, in order")
        #expect(counters.backPressureEvents > 0, "a pipe read at ~4 MB/s is slower than level 0")
        #expect(counters.peakQueuedBytes <= limit + chunk, "queued \(counters.peakQueuedBytes) > limit \(limit)")
        #expect(peakAllocatedBound <= limit + chunk)
        #expect(counters.writtenBytes == UInt64(received.count))
        #expect(counters.queuedBytes == 0)
        // Every stop is reported when it begins and when it ends, numbered in order.
        let began = events.list.filter { if case .began = $0 { true } else { false } }
        let ended = events.list.compactMap { if case .ended(_, let n) = $0 { n } else { nil } }
        #expect(began.count == counters.backPressureEvents)
        #expect(ended == Array(1...counters.backPressureEvents))
        // The time stopped is the sum of the stops as reported, and a stop lasts while the reader drains
        // half the limit (32 KiB at 8 KiB per 2 ms pause): never 0 ms in all.
        let stopped = events.list.reduce(Int64(0)) { if case .ended(let ms, _) = $1 { $0 + ms } else { $0 } }
        #expect(counters.backPressureMs == stopped)
        #expect(counters.backPressureMs > 0)
    }

    @Test("writes of several files keep each file's order; close runs after the file's writes")
    func interleavedFiles() throws {
        let dir = try InputTempDirectory()
        let spool = WriteSpool(chunkBytes: 256, limitBytes: 4096)
        var writers: [GzipWriter] = []
        var expected: [[UInt8]] = []
        for i in 0..<3 {
            writers.append(try GzipWriter(path: try dir.file("f\(i).gz"), level: 6, outputCapacity: 256, spool: spool))
            expected.append([])
        }
        let content = GzipWriterTests.noisyLines(900, seed: 3)
        var line: [UInt8] = []
        var n = 0
        for b in content {
            line.append(b)
            guard b == 0x0A else { continue }
            try writers[n % 3].write(line.span)
            expected[n % 3] += line
            if n % 97 == 0 { try writers[n % 3].flush() }
            line.removeAll()
            n += 1
        }
        for w in writers { try w.close() }
        spool.shutdown()
        for i in 0..<3 {
            let r = try InputShell.run("zcat \(InputShell.quote(try dir.file("f\(i).gz")))")
            #expect(r.status == 0, "\(r.errors)")
            #expect(r.output == expected[i], "file \(i)")
        }
    }

    @Test("a failed write comes back to its writer, which stays failed; other files are unaffected")
    func failurePropagates() throws {
        let dir = try InputTempDirectory()
        let spool = WriteSpool(chunkBytes: 512, limitBytes: 8192)
        let bad = try GzipWriter(path: try dir.file("bad.gz"), level: 6, outputCapacity: 512, spool: spool)
        let good = try GzipWriter(path: try dir.file("good.gz"), level: 6, outputCapacity: 512, spool: spool)
        let content = GzipWriterTests.noisyLines(400, seed: 9)
        try bad.write(content.span)
        try bad.flush()
        spool.drain()
        #expect(spool.firstFailure == nil)
        bad.injectedFailure = (afterBytes: bad.compressedByteCount + 100, errno: ENOSPC)
        try good.write(content.span)
        var thrown: GzipWriterError? = nil
        do {
            for _ in 0..<50 {
                try bad.write(content.span)
                try bad.flush()
                spool.drain()
            }
        } catch { thrown = error }
        #expect(thrown == .writeFailed(path: try dir.file("bad.gz"), errno: ENOSPC))
        #expect(spool.firstFailure == .writeFailed(path: try dir.file("bad.gz"), errno: ENOSPC))
        #expect(throws: GzipWriterError.self) { try bad.write(content.span) }
        try good.close()
        #expect(throws: GzipWriterError.self) { try bad.close() }
        spool.shutdown()
        let r = try InputShell.run("zcat \(InputShell.quote(try dir.file("good.gz")))")
        #expect(r.status == 0 && r.output == content)
        // The failed file still holds everything flushed before the failure.
        let partial = try InputShell.run("zcat \(InputShell.quote(try dir.file("bad.gz"))) 2>/dev/null")
        #expect(Array(partial.output.prefix(content.count)) == content)
    }

    @Test("with nothing queued the producer never waits, even past the limit (each open file holds a chunk)")
    func manyFilesDoNotDeadlock() throws {
        let dir = try InputTempDirectory()
        let spool = WriteSpool(chunkBytes: 1024, limitBytes: 1024)
        var writers: [GzipWriter] = []
        for i in 0..<8 {
            writers.append(try GzipWriter(path: try dir.file("f\(i).gz"), level: 1, outputCapacity: 1024, spool: spool))
        }
        let content = GzipWriterTests.noisyLines(50, seed: 11)
        for w in writers { try w.write(content.span) }
        for w in writers { try w.close() }
        spool.shutdown()
        for i in 0..<8 {
            #expect(try InputShell.run("zcat \(InputShell.quote(try dir.file("f\(i).gz")))").output == content)
        }
    }

    @Test("many open files (each holding a chunk) on a fast disk: a flush of every file is no back-pressure")
    func manyOpenFilesNoFalseBackPressure() throws {
        let dir = try InputTempDirectory()
        // 40 open files hold 40 chunks: more than the 8-chunk limit, as 300 channels do with 16 MiB.
        let spool = WriteSpool(chunkBytes: 1024, limitBytes: 8 * 1024)
        var writers: [GzipWriter] = []
        for i in 0..<40 {
            writers.append(try GzipWriter(path: try dir.file("f\(i).gz"), level: 1, outputCapacity: 1024, spool: spool))
        }
        let content = GzipWriterTests.noisyLines(5, seed: 3)
        for _ in 0..<5 {
            for w in writers {
                try w.write(content.span)
                try w.flush()
            }
            spool.drain()
        }
        #expect(
            spool.counterSnapshot.backPressureEvents == 0, "one queued chunk per open file is within the memory bound")
        for w in writers { try w.close() }
        spool.shutdown()
        #expect(spool.counterSnapshot.peakQueuedBytes <= 41 * 1024)
    }

    @Test(
        "a batch of flushes of many files shares chunks: one queued chunk for 40 small flushes, each file whole and in order"
    )
    func batchedFlushesShareChunks() throws {
        let dir = try InputTempDirectory()
        let spool = WriteSpool(chunkBytes: 4096, limitBytes: 64 * 1024)
        var writers: [GzipWriter] = []
        for i in 0..<40 {
            writers.append(try GzipWriter(path: try dir.file("f\(i).gz"), level: 1, outputCapacity: 4096, spool: spool))
        }
        var expected = Array(repeating: [UInt8](), count: 40)
        for round in 0..<4 {
            for (i, w) in writers.enumerated() {
                let line = Array("round \(round) file \(i): PRIVMSG #channel\(i) :hello\r\n".utf8)
                try w.write(line.span)
                expected[i] += line
            }
            spool.drain()
            let before = spool.counterSnapshot.peakQueuedBytes
            spool.beginBatch()
            #expect(spool.isBatching)
            for w in writers { try w.flush() }
            // Nothing is queued until the batch ends: the flushes' outputs (about 50 bytes each) sit in one pack.
            #expect(spool.counterSnapshot.queuedBytes == 0)
            spool.endBatch()
            #expect(!spool.isBatching)
            spool.drain()
            // Handed over one pack (4,096 bytes), not one chunk per file (40 × 4,096 = 163,840 bytes).
            #expect(spool.counterSnapshot.peakQueuedBytes <= max(before, 4096))
            // Flushed: every file decodes up to here (gzip reports the unfinished member, not lost text).
            for i in [0, 17, 39] {
                let r = try InputShell.run("zcat \(InputShell.quote(try dir.file("f\(i).gz"))) 2>/dev/null")
                #expect(r.output == expected[i], "file \(i) after round \(round)")
            }
        }
        #expect(spool.counterSnapshot.peakQueuedBytes == 4096)
        // A chunk filled in a batch and a close in a batch come after the pack's earlier pieces.
        let big = GzipWriterTests.noisyLines(3000, seed: 13)
        spool.beginBatch()
        try writers[0].flush()
        try writers[1].write(Array("last of f1\r\n".utf8).span)
        expected[1] += Array("last of f1\r\n".utf8)
        try writers[1].flush()
        try writers[0].write(big.span)
        expected[0] += big
        try writers[1].close()
        spool.endBatch()
        for w in writers { try w.close() }
        spool.shutdown()
        #expect(spool.counterSnapshot.queuedBytes == 0)
        for i in 0..<40 {
            let r = try InputShell.run("zcat \(InputShell.quote(try dir.file("f\(i).gz")))")
            #expect(r.status == 0, "\(r.errors)")
            #expect(r.output == expected[i], "file \(i)")
        }
    }

    @Test("a batched piece that fails to write fails only its file; the other pieces of the pack are written")
    func batchedFailureStaysWithItsFile() throws {
        let dir = try InputTempDirectory()
        let spool = WriteSpool(chunkBytes: 4096, limitBytes: 64 * 1024)
        let bad = try GzipWriter(path: try dir.file("bad.gz"), level: 1, outputCapacity: 4096, spool: spool)
        let good = try GzipWriter(path: try dir.file("good.gz"), level: 1, outputCapacity: 4096, spool: spool)
        let line = Array("@time=2026-11-26T19:00:00.000Z :tmi.twitch.tv PRIVMSG #x :hi\r\n".utf8)
        try bad.write(line.span)
        try good.write(line.span)
        bad.injectedFailure = (afterBytes: 5, errno: ENOSPC)
        spool.beginBatch()
        try bad.flush()
        try good.flush()
        spool.endBatch()
        spool.drain()
        #expect(spool.firstFailure == .writeFailed(path: try dir.file("bad.gz"), errno: ENOSPC))
        #expect(throws: GzipWriterError.writeFailed(path: try dir.file("bad.gz"), errno: ENOSPC)) {
            try bad.write(line.span)
        }
        try good.write(line.span)
        try good.close()
        #expect(throws: GzipWriterError.self) { try bad.close() }
        spool.shutdown()
        let r = try InputShell.run("zcat \(InputShell.quote(try dir.file("good.gz")))")
        #expect(r.status == 0 && r.output == line + line)
        // The failed file got the 5 bytes up to its (injected) full disk, and nothing after them.
        #expect(try Data(contentsOf: URL(fileURLWithPath: try dir.file("bad.gz"))).count == 5)
    }

    @Test("a writer released after shutdown still finishes and closes its file (on the caller's thread)")
    func lateWriterAfterShutdown() throws {
        let dir = try InputTempDirectory()
        let spool = WriteSpool(chunkBytes: 512, limitBytes: 4096)
        let content = GzipWriterTests.noisyLines(200, seed: 5)
        do {
            let writer = try GzipWriter(path: try dir.file("late.gz"), level: 6, outputCapacity: 512, spool: spool)
            try writer.write(content.span)
            spool.shutdown()
            try writer.close()
        }
        #expect(spool.firstFailure == nil)
        #expect(try InputShell.run("zcat \(InputShell.quote(try dir.file("late.gz")))").output == content)
    }
}
