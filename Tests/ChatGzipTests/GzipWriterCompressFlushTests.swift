import ChatGzip
import ChatPosix
import ChatTestSupport
import Foundation
import Testing

/// `GzipWriter.compressFlush()`: a flush's compression done ahead (on another thread, in capture)
/// and then the flush leave the same bytes in the file as the flush alone (through zlib; through
/// ISA-L the same text, since ISA-L does not always choose the same matches for the same input, see
/// docs/capture.md), also when the output buffer fills in the middle of it; a write or close instead
/// of the flush keeps every line.
@Suite(.timeLimit(.minutes(20))) struct GzipWriterCompressFlushTests {
    /// Writes `pieces` to a fresh file, each followed by a flush, and closes it; returns its bytes.
    /// `ahead`: each flush is compressed first with `compressFlush()`, then `flush()` is called
    /// (`thenFlush`) or not: the next `write` or the `close` finishes it.
    static func file(
        _ dir: InputTempDirectory, _ name: String, level: Int32, capacity: Int, pieces: [[UInt8]], ahead: Bool,
        thenFlush: Bool
    ) throws -> [UInt8] {
        let path = try dir.file(name)
        let writer = try GzipWriter(path: path, level: level, outputCapacity: capacity)
        for piece in pieces {
            try writer.write(piece.span)
            if ahead {
                writer.compressFlush()
                writer.compressFlush()  // a second one does nothing
                if thenFlush { try writer.flush() }
            } else {
                try writer.flush()
            }
        }
        try writer.close()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test(
        "compressFlush() then flush: byte for byte the file of flush alone (zlib); then write or close: the same text",
        arguments: [Int32(1), 6], [true, false])
    func sameBytes(level: Int32, thenFlush: Bool) throws {
        let dir = try InputTempDirectory()
        let text = GzipWriterTests.noisyLines(3000, seed: 7)
        // Pieces of every size from a few bytes to a few buffers' worth.
        var pieces: [[UInt8]] = []
        var at = 0
        var size = 7
        while at < text.count {
            pieces.append(Array(text[at..<min(at + size, text.count)]))
            at += size
            size = size * 3 % 9973 + 1
        }
        // 64 bytes: the output fills in the middle of nearly every flush (the flush goes on after the
        // write-out); 64 KiB: it never does.
        for capacity in [64, 65_536] {
            let alone = try Self.file(
                dir, "alone-\(capacity).gz", level: level, capacity: capacity, pieces: pieces, ahead: false,
                thenFlush: thenFlush)
            let ahead = try Self.file(
                dir, "ahead-\(capacity).gz", level: level, capacity: capacity, pieces: pieces, ahead: true,
                thenFlush: thenFlush)
            if thenFlush && level == 6 {
                #expect(ahead == alone, "output buffer of \(capacity) bytes")
            } else {
                // The text that follows goes into the buffer after the flush's bytes instead of at its
                // start, and a sync flush's marker depends on the room left (zlib.h: repeated flush
                // markers when the output fills): the same text, not always the same bytes. ISA-L: not
                // always the same bytes even for the same calls.
                #expect(alone.count > 0)
                #expect(try GzipWriterTests.gzipTest(try dir.file("ahead-\(capacity).gz")).status == 0)
            }
            for name in ["alone", "ahead"] {
                let out = try GzipWriterTests.zcat(try dir.file("\(name)-\(capacity).gz"))
                #expect(out.status == 0 && out.output == text, "\(name): \(out.errors)")
            }
        }
    }

    @Test(
        "with a spool in a batch: the flushed output is packed the same way (zlib: byte for byte; ISA-L: the text)",
        arguments: [Int32(1), 6])
    func spoolBatch(level: Int32) throws {
        let dir = try InputTempDirectory()
        let pieces = (0..<40).map { GzipWriterTests.noisyLines(20, seed: UInt64($0)) }
        var files: [[UInt8]] = []
        for ahead in [false, true] {
            let spool = WriteSpool(chunkBytes: 4096, limitBytes: 1 << 20)
            let path = try dir.file("spool-\(ahead).gz")
            let writer = try GzipWriter(path: path, level: level, outputCapacity: 4096, spool: spool)
            for piece in pieces {
                try writer.write(piece.span)
                if ahead { writer.compressFlush() }
                spool.beginBatch()
                try writer.flush()
                spool.endBatch()
            }
            try writer.close()
            spool.shutdown()
            files.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        }
        if level == 6 { #expect(files[1] == files[0]) }
        for ahead in [false, true] {
            let out = try GzipWriterTests.zcat(try dir.file("spool-\(ahead).gz"))
            #expect(out.status == 0 && out.output == pieces.flatMap { $0 }, "ahead \(ahead): \(out.errors)")
        }
    }
}
