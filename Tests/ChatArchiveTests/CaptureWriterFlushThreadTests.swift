import ChatArchive
import ChatTestSupport
import Foundation
import Testing
import TwitchSession

/// `CaptureOptions.flushThread`: the flushes of every open file compressed on two threads write the
/// same files as on one: byte for byte through zlib; through ISA-L (level 1), the same text in each
/// file, since ISA-L does not always choose the same matches for the same input (docs/capture.md).
@Suite(.timeLimit(.minutes(20))) struct CaptureWriterFlushThreadTests {
    /// Captures the same lines of `channels` channels, with a flush every 500 ms of their clock, into
    /// `dir`; returns every file's path (relative to `dir`), sorted.
    static func capture(
        into dir: String, flushThread: Bool, level: Int32, channels: Int, rounds: Int
    ) throws -> [String] {
        var options = CaptureOptions()
        options.flushThread = flushThread
        options.level = level
        let writer = try CaptureWriter(directory: dir, options: options)
        var t = CaptureWriterTests.at("2025-11-21T04:26:41.971Z", mono: 1_000)
        var seed: UInt64 = 1
        for round in 0..<rounds {
            for c in 0..<channels {
                // Uneven: some channels get many lines a round, some none (they are then not flushed).
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                for k in 0..<Int(seed >> 61) {
                    try CaptureWriterTests.append(
                        writer,
                        "@tmi-sent-ts=\(1_763_699_201_000 + round) :u\(k)!u@u PRIVMSG #c\(c) :round \(round) \(seed % 100_000)",
                        t)
                }
            }
            try CaptureWriterTests.append(writer, "PING :tmi.twitch.tv", t)
            t = t.advanced(byMs: 500)
            try writer.tick(now: t)
        }
        try writer.close()
        return CaptureWriterTests.files(dir)
    }

    @Test(
        "flushes compressed on two threads: the same files as on one (zlib level 6: byte for byte; ISA-L level 1: the same text)",
        arguments: [Int32(6), 1])
    func sameFiles(level: Int32) throws {
        let dir = try InputTempDirectory()
        let one = try Self.capture(into: dir.path + "/one", flushThread: false, level: level, channels: 300, rounds: 12)
        let two = try Self.capture(into: dir.path + "/two", flushThread: true, level: level, channels: 300, rounds: 12)
        #expect(one.count > 250, "\(one.count) files")
        try #require(two == one, "the same file names")
        let differing = try GzipDecoded.differing(
            one.map { dir.path + "/one/" + $0 }, one.map { dir.path + "/two/" + $0 }, byteForByte: level == 6)
        #expect(differing.isEmpty, "\(differing.map { one[$0] })")
        // Every line is there: the files decode.
        let text = try CaptureWriterTests.zcat(dir.path + "/two/c7/2025-11-21.log.gz")
        #expect(
            text.hasPrefix("@time=2025-11-21T04:2") && text.contains(" PRIVMSG #c7 :round "), "\(text.prefix(200))")
    }
}
