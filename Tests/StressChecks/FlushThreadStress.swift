import ChatGzip
import ChatPosix
import ChatTestSupport

/// Capture's flushes shared between two threads (``LoopHelper`` running ``GzipWriter/compressFlush()``
/// while the owner waits, then the flushes on the owner): many writers, written to and flushed
/// round after round, must leave the files a single thread leaves: byte for byte through zlib (level
/// 6); through ISA-L (level 1) the same text, since ISA-L does not always choose the same matches
/// for the same input (docs/capture.md). Run under
/// ThreadSanitizer by `make tsan`, which reports any access of a writer's state not ordered by the
/// helper's hand-off.
enum FlushThreadStress {
    static func sameFilesAsOneThread() throws {
        let dir = try InputTempDirectory()
        let helper = LoopHelper()
        defer { helper.stop() }
        for level: Int32 in [6, 1] {
            for (writers, rounds) in [(2, 50), (17, 30), (200, 8)] {
                let name = "\(writers)-level\(level)"
                let one = try files(dir, "one-" + name, level: level, writers: writers, rounds: rounds, helper: nil)
                let two = try files(dir, "two-" + name, level: level, writers: writers, rounds: rounds, helper: helper)
                let differing = try GzipDecoded.differing(one, two, byteForByte: level == 6)
                check(differing.isEmpty, "\(name): files \(differing) differ")
            }
        }
    }

    final class Writers: @unchecked Sendable {  // read by both threads only inside `LoopHelper.run`
        let all: [GzipWriter]
        init(_ all: [GzipWriter]) { self.all = all }
    }

    /// Writes `rounds` rounds of lines to `writers` files and flushes them all after each (the
    /// compression shared with `helper` when there is one); the files' paths.
    static func files(
        _ dir: InputTempDirectory, _ name: String, level: Int32, writers: Int, rounds: Int, helper: LoopHelper?
    ) throws -> [String] {
        var paths: [String] = []
        var list: [GzipWriter] = []
        for w in 0..<writers {
            paths.append(try dir.file("\(name)/\(w).log.gz"))
            list.append(try GzipWriter(path: paths[w], level: level, outputCapacity: w % 3 == 0 ? 256 : 65_536))
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
        return paths
    }
}
