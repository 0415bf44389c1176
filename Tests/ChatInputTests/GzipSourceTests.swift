import ChatInput
import ChatPosix
import ChatTestSupport
import Foundation
import Testing

@Suite(.timeLimit(.minutes(20))) struct GzipSourceTests {
    /// `content` compressed by the real `gzip`.
    static func gzip(_ content: [UInt8], in dir: InputTempDirectory, name: String = "plain") throws -> [UInt8] {
        try dir.gzipByTool(content, name: name)
    }

    static func decode(_ compressed: [UInt8], step: Int = .max, chunk: Int = 1 << 16, inputCapacity: Int = 32 * 1024)
        throws -> (bytes: [UInt8], error: InputError?, members: Int)
    {
        let source = try GzipSource(
            wrapping: InputArraySource(compressed, name: "t.gz", step: step), inputCapacity: inputCapacity)
        var reading = source
        let (bytes, error) = drainSource(&reading, chunk: chunk)
        return (bytes, error, source.memberCount)
    }

    @Test(
        "decodes gzip output whatever the read sizes on either side",
        arguments: [(Int.max, 1 << 16, 32 * 1024), (1, 1, 1), (7, 3, 5), (4096, 100, 64), (Int.max, 1, 32 * 1024)])
    func decodes(step: Int, chunk: Int, inputCapacity: Int) throws {
        let dir = try InputTempDirectory()
        let content = sampleChatLines(step == 1 ? 200 : 3000)
        let result = try Self.decode(
            Self.gzip(content, in: dir), step: step, chunk: chunk, inputCapacity: inputCapacity)
        #expect(result.error == nil)
        #expect(result.bytes == content)
        #expect(result.members == 1)
    }

    @Test("an empty stream is an empty input")
    func empty() throws {
        let result = try Self.decode([])
        #expect(result.bytes.isEmpty && result.error == nil && result.members == 0)
    }

    @Test("multi-member files decode as one stream", arguments: [Int.max, 1, 13])
    func multiMember(step: Int) throws {
        let dir = try InputTempDirectory()
        let parts = [sampleChatLines(500), [], sampleChatLines(3, channel: "x"), sampleChatLines(2000, channel: "y")]
        var compressed: [UInt8] = []
        for (i, part) in parts.enumerated() { compressed += try Self.gzip(part, in: dir, name: "p\(i)") }
        let result = try Self.decode(compressed, step: step, chunk: 777)
        #expect(result.error == nil)
        #expect(result.bytes == parts.flatMap { $0 })
        #expect(result.members == 4)
    }

    @Test("a stream cut short yields a prefix, then truncated at the cut")
    func truncated() throws {
        let dir = try InputTempDirectory()
        let content = sampleChatLines(2000)
        let compressed = try Self.gzip(content, in: dir)
        let n = compressed.count
        for cut in [1, 2, 9, 10, 11, 12, 100, n / 3, n / 2, n - 9, n - 8, n - 5, n - 1] {
            let result = try Self.decode(Array(compressed[0..<cut]), step: 1000, chunk: 4096)
            #expect(result.error == .truncated(name: "t.gz", compressedOffset: UInt64(cut)), "cut at \(cut)")
            #expect(content.starts(with: result.bytes), "cut at \(cut)")
            if cut >= n - 8 { #expect(result.bytes == content, "only the trailer is missing") }
        }
    }

    @Test("a bad trailer CRC is reported as corrupt after all data")
    func badChecksum() throws {
        let dir = try InputTempDirectory()
        let content = sampleChatLines(100)
        var compressed = try Self.gzip(content, in: dir)
        compressed[compressed.count - 8] ^= 0xFF
        let result = try Self.decode(compressed)
        #expect(result.bytes == content)
        guard case .corrupt(let name, _, let reason) = result.error else {
            Issue.record("expected corrupt, got \(String(describing: result.error))")
            return
        }
        #expect(name == "t.gz")
        #expect(reason == "incorrect data check")
    }

    @Test("a damaged header is corrupt at once; garbage after a member is corrupt after its data")
    func badHeaderAndTrailingGarbage() throws {
        let dir = try InputTempDirectory()
        let content = sampleChatLines(10)
        var compressed = try Self.gzip(content, in: dir)
        let good = compressed
        compressed[2] = 7  // compression method must be 8
        let bad = try Self.decode(compressed)
        #expect(bad.bytes.isEmpty)
        #expect(bad.error?.isDamage == true)

        let trailing = try Self.decode(good + Array("not gzip".utf8))
        #expect(trailing.bytes == content)
        #expect(trailing.members == 1)
        guard case .corrupt(_, let offset, _) = trailing.error else {
            Issue.record("expected corrupt, got \(String(describing: trailing.error))")
            return
        }
        #expect(offset >= UInt64(good.count))
    }

    @Test("random damage never crashes: every run ends cleanly or with one damage report")
    func randomDamage() throws {
        let dir = try InputTempDirectory()
        let content = sampleChatLines(400)
        let compressed = try Self.gzip(content, in: dir) + Self.gzip(sampleChatLines(50), in: dir, name: "b")
        var rng = InputRandom(seed: 42)
        for _ in 0..<300 {
            var damaged = compressed
            for _ in 0..<Int(rng.next() % 4) {
                let at = Int(rng.next() % UInt64(damaged.count))
                damaged[at] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            }
            damaged = Array(damaged.prefix(Int(rng.next() % UInt64(damaged.count + 1))))
            let result = try Self.decode(damaged, step: Int(rng.next() % 5000) + 1, chunk: Int(rng.next() % 9000) + 1)
            if let error = result.error { #expect(error.isDamage) }
        }
    }

    @Test("damage descriptions name the input and the offset")
    func messages() {
        #expect(
            InputError.truncated(name: "a.log.gz", compressedOffset: 42).description
                == "a.log.gz: compressed data ends early at byte 42 (truncated file); lines before it were read")
        #expect(InputError.truncated(name: "a", compressedOffset: 1).isDamage)
        #expect(!InputError.notFound(path: "a").isDamage)
    }
}

/// A source over an array that yields only the bytes "arrived" so far and 0 in between: a file
/// still being written, as `GzipSource(…, pausesAtInnerEnd: true)` reads one.
final class ArrivingSource: ByteSource {
    let name = "growing.gz"
    let bytes: [UInt8]
    var arrived = 0
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        let n = min(buffer.count, arrived - position)
        for i in 0..<n { buffer[i] = bytes[position + i] }
        position += n
        return n
    }
}

@Suite(.timeLimit(.minutes(20))) struct GzipSourcePauseTests {
    @Test("pausing at the inner end: 0 while nothing more has arrived, then decoding goes on, members too")
    func pausesAndResumes() throws {
        let dir = try InputTempDirectory()
        let first = sampleChatLines(400)
        let second = sampleChatLines(300, channel: "d", text: "again")
        let compressed =
            try GzipSourceTests.gzip(first, in: dir, name: "a") + GzipSourceTests.gzip(second, in: dir, name: "b")
        let inner = ArrivingSource(compressed)
        let source = try GzipSource(wrapping: inner, inputCapacity: 4096, pausesAtInnerEnd: true)
        var decoded: [UInt8] = []
        var pauses = 0
        var buffer = [UInt8](repeating: 0, count: 1000)
        // Bytes arrive in uneven pieces; every piece is read to a pause before the next arrives.
        var cut = 0
        var step = 1
        while decoded.count < first.count + second.count {
            cut = min(compressed.count, cut + step)
            step = step * 3 + 7
            inner.arrived = cut
            while true {
                let n = try buffer.withUnsafeMutableBytes { raw throws(InputError) in try source.read(into: raw) }
                if n == 0 {
                    pauses += 1
                    break
                }
                decoded += buffer[0..<n]
            }
            if cut == compressed.count { break }
        }
        #expect(decoded == first + second)
        #expect(source.memberCount == 2)
        #expect(pauses > 5)
        // Nothing more arrives: still 0, never "truncated".
        let n = try buffer.withUnsafeMutableBytes { raw throws(InputError) in try source.read(into: raw) }
        #expect(n == 0)
    }

    @Test("without pausing, the same stream cut inside a member is reported truncated")
    func withoutPausingTruncated() throws {
        let dir = try InputTempDirectory()
        let compressed = try GzipSourceTests.gzip(sampleChatLines(400), in: dir)
        let inner = ArrivingSource(compressed)
        inner.arrived = compressed.count / 2
        var source = try GzipSource(wrapping: inner, inputCapacity: 4096)
        let (_, error) = drainSource(&source)
        #expect(error?.isDamage == true)
    }
}
