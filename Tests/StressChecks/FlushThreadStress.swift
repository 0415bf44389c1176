import ChatGzip
import ChatPosix
import ChatTestSupport

/// Capture's flushes shared between two threads (``LoopHelper`` running ``GzipWriter/compressFlush()``
/// while the owner waits, then the flushes on the owner): many writers, written to and flushed
/// round after round, must leave the files a single thread leaves, byte for byte. Run under
/// ThreadSanitizer by `make tsan`, which reports any access of a writer's state not ordered by the
/// helper's hand-off.
enum FlushThreadStress {
    static func sameFilesAsOneThread() throws {
        let dir = try InputTempDirectory()
        let helper = LoopHelper()
        defer { helper.stop() }
        for (writers, rounds) in [(2, 50), (17, 30), (200, 8)] {
            let one = try files(dir, "one-\(writers)", writers: writers, rounds: rounds, helper: nil)
            let two = try files(dir, "two-\(writers)", writers: writers, rounds: rounds, helper: helper)
            for w in 0..<writers { check(one[w] == two[w], "\(writers) writers: file \(w) differs") }
        }
    }

    final class Writers: @unchecked Sendable {  // read by both threads only inside `LoopHelper.run`
        let all: [GzipWriter]
        init(_ all: [GzipWriter]) { self.all = all }
    }

    /// Writes `rounds` rounds of lines to `writers` files and flushes them all after each (the
    /// compression shared with `helper` when there is one); the files' bytes.
    static func files(_ dir: InputTempDirectory, _ name: String, writers: Int, rounds: Int, helper: LoopHelper?)
        throws -> [[UInt8]]
    {
        var paths: [String] = []
        var list: [GzipWriter] = []
        for w in 0..<writers {
            paths.append(try dir.file("\(name)/\(w).log.gz"))
            list.append(try GzipWriter(path: paths[w], outputCapacity: w % 3 == 0 ? 256 : 65_536))
        }
        let box = Writers(list)
        var rng = InputRandom(seed: UInt64(writers))
        for round in 0..<rounds {
            for (w, writer) in list.enumerated() where rng.next() % 4 != 0 {
                let lines = sampleChatLines(Int(rng.next() % 40) + 1, channel: "c\(w)r\(round)")
                try writer.write(lines.span)
            }
            if let helper {
                helper.run(list.count) { i in box.all[i].compressFlush() }
            }
            for writer in list { try writer.flush() }
        }
        for writer in list { try writer.close() }
        return try paths.map { try FileBytes.read($0) }
    }
}
