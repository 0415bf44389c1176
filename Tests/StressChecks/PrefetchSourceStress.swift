import ChatInput
import ChatPosix
import ChatTestSupport
import Synchronization

/// A source that hands out `pieces` one per read (empty pieces are skipped: 0 means the end), then
/// throws `error` if there is one, then ends; counts its reads and notes the thread of each.
final class PieceSource: ByteSource {
    let name = "pieces"
    let pieces: [[UInt8]]
    let error: InputError?
    var next = 0
    var threw = false
    let reads = Atomic<Int>(0)
    let endless: Bool

    init(_ pieces: [[UInt8]], error: InputError? = nil, endless: Bool = false) {
        self.pieces = pieces.filter { !$0.isEmpty }
        self.error = error
        self.endless = endless
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        reads.add(1, ordering: .relaxed)
        if endless {
            buffer[0] = UInt8(ascii: "x")
            return 1
        }
        guard next < pieces.count else {
            if let error, !threw {
                threw = true
                throw error
            }
            return 0
        }
        let piece = pieces[next]
        precondition(piece.count <= buffer.count, "test pieces fit a chunk")
        for (i, b) in piece.enumerated() { buffer[i] = b }
        next += 1
        return piece.count
    }
}

/// ``PrefetchSource`` reads on a thread of its own; it must hand out exactly what the inner source
/// gives, in order, with its error after its bytes, whatever the chunk and read sizes, and stop its
/// thread when dropped early. Run under ThreadSanitizer by `make tsan`.
enum PrefetchSourceStress {
    /// The bytes, then the error, then the end: as the inner source gives them, for each chunk size,
    /// chunk count and read size.
    static func sameBytesAndErrorInOrder() {
        for (chunkBytes, chunkCount, readSize) in [(1, 1, 1), (3, 2, 5), (64, 4, 7), (4096, 4, 65_536)] {
            sameBytesAndErrorInOrder(chunkBytes: chunkBytes, chunkCount: chunkCount, readSize: readSize)
        }
    }

    static func sameBytesAndErrorInOrder(chunkBytes: Int, chunkCount: Int, readSize: Int) {
        var rng: UInt64 = 42
        var pieces: [[UInt8]] = []
        for _ in 0..<500 {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let count = Int((rng >> 33) % UInt64(chunkBytes + 1))
            pieces.append((0..<count).map { UInt8(truncatingIfNeeded: Int(rng >> 20) &+ $0) })
        }
        let damage = InputError.truncated(name: "pieces", compressedOffset: 1234)
        for error in [nil, damage] {
            var source = PrefetchSource(
                wrapping: PieceSource(pieces, error: error), chunkBytes: chunkBytes, chunkCount: chunkCount)
            let read = readToEnd(&source, chunk: readSize)
            let shape =
                "\(chunkBytes) bytes, \(chunkCount) chunks, reads of \(readSize), error \(String(describing: error))"
            check(read.bytes == pieces.flatMap { $0 }, shape)
            check(read.error == error && read.endedAfterError, shape)
        }
    }

    /// A gzip file decodes the same through the reader thread, damage included.
    static func gzipThroughThread() throws {
        let dir = try InputTempDirectory()
        let content = sampleChatLines(3000)
        let compressed = try dir.gzipByTool(content)
        for cut in [compressed.count, compressed.count / 2, compressed.count - 5] {
            let whole = Array(compressed[0..<cut])
            var direct = try GzipSource(wrapping: InputArraySource(whole, name: "t.gz", step: 1000))
            let expected = readToEnd(&direct, chunk: 4096)
            var prefetched = PrefetchSource(
                wrapping: try GzipSource(wrapping: InputArraySource(whole, name: "t.gz", step: 1000)),
                chunkBytes: 3000, chunkCount: 3)
            let got = readToEnd(&prefetched, chunk: 4096)
            check(got.bytes == expected.bytes, "cut at \(cut)")
            check(got.error == expected.error && got.endedAfterError && expected.endedAfterError, "cut at \(cut)")
        }
    }

    /// Dropped before the end, it stops its thread (an endless inner source does not keep it).
    static func stopsWhenDropped() {
        let inner = PieceSource([], endless: true)
        do {
            let source = PrefetchSource(wrapping: inner, chunkBytes: 16, chunkCount: 2)
            var buffer = [UInt8](repeating: 0, count: 8)
            let n = buffer.withUnsafeMutableBytes { raw in (try? source.read(into: raw)) ?? -1 }
            check(n == 1)
        }
        // Reaching here means the thread was told to stop and joined (it was waiting for a free
        // chunk). It read ahead at most the two chunks, the one handed out and one in progress.
        let reads = inner.reads.load(ordering: .relaxed)
        check(reads >= 1 && reads <= 4, "at most the chunks in flight were read ahead, got \(reads)")
    }
}
