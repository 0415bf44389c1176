import ChatArchive
import ChatGzip
import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// What a restarted capture takes for the previous run's last moment after a kill -9: the newest line
/// the repair will keep, never one of the lines compressed after the last flush point (readable until
/// the repair cuts them off). Issue 23: the kill -9 loop found the gap starting at such a line, so the
/// lines received between the last flush and it were lost and not inside any gap.
@Suite(.timeLimit(.minutes(20))) struct CapturePreviousRunTests {
    static func ms(_ rfc3339: String) -> Int64 { Timestamp(rfc3339: rfc3339)!.milliseconds }

    /// `count` chat lines of `#c`, one a millisecond from `start`, with text that compresses badly.
    static func lines(_ count: Int, from start: Int64, seed: UInt64) -> [UInt8] {
        var rng = InputRandom(seed: seed)
        var out: [UInt8] = []
        for i in 0..<count {
            let words = (0..<(Int(rng.next() % 12) + 1)).map { _ in String(rng.next() % 1_000_000, radix: 36) }
            let time = Timestamp(milliseconds: start + Int64(i)).rfc3339
            out += Array("@time=\(time) :u!u@u.tmi.twitch.tv PRIVMSG #c :\(words.joined(separator: " "))\r\n".utf8)
        }
        return out
    }

    /// A finished gzip file of `text` at `path` in `dir`, last modified at `modified` (when the run
    /// last wrote to it).
    static func file(_ path: String, _ text: String, modified: String, in dir: InputTempDirectory) throws {
        let writer = try GzipWriter(path: try dir.file(path))
        try writer.write(Array(text.utf8).span)
        try writer.close()
        let r = try InputShell.run("touch -d \(modified) \(InputShell.quote(dir.path + "/" + path))")
        #expect(r.status == 0)
    }

    /// A channel file of a run killed before its next flush, at `path` in `dir`: 5,000 lines flushed
    /// up to `flushedUntil`, then 20,000 later ones (from `later`) that the compressor wrote out as
    /// its buffer filled (readable until a repair cuts them), and no end.
    static func killedFile(
        _ path: String, flushedUntil: Int64, later: Int64, level: Int32, seeds: (UInt64, UInt64),
        in dir: InputTempDirectory
    ) throws {
        let writer = try GzipWriter(path: try dir.file(path), level: level, outputCapacity: 1024)
        try writer.write(Self.lines(5_000, from: flushedUntil - 4_999, seed: seeds.0).span)
        try writer.flush()
        try writer.write(Self.lines(20_000, from: later, seed: seeds.1).span)
        writer.abandon()
    }

    @Test(
        "after a kill -9, the previous run's last moment is its newest flushed line, not a line after the last flush point",
        arguments: [Int32(1), 6])
    func lastDurableLine(level: Int32) throws {
        let dir = try InputTempDirectory()
        let flushedUntil = Self.ms("2025-11-21T01:00:04.999Z")
        // The session file: the run's start, finished (its records are all flushed).
        let session = try GzipWriter(path: try dir.file("_session/2025-11-21.log.gz"))
        try session.write(
            Array("@time=2025-11-21T01:00:00.000Z :chatcap CAPTURE start * :capture of c started\r\n".utf8).span)
        try session.close()
        // The channel's file: 5,000 lines flushed, then 20,000 later ones the compressor wrote out as its
        // buffer filled, and the run killed before the next flush.
        try Self.killedFile(
            "c/2025-11-21.log.gz", flushedUntil: flushedUntil, later: flushedUntil + 1_000, level: level,
            seeds: (1, 2), in: dir)
        let unflushed = try InputShell.run("zcat \(InputShell.quote(dir.path + "/c/2025-11-21.log.gz")) | wc -l")
        let readable = Int(String(decoding: unflushed.output, as: UTF8.self).filter(\.isNumber)) ?? 0
        #expect(readable > 5_000, "zcat reads lines past the flush point: \(readable)")

        let previous = try #require(try CapturePreviousRun.examine(directory: dir.path, channels: ["c"]))
        #expect(previous.endedWithStop == false)
        #expect(
            previous.lastLine.milliseconds == flushedUntil,
            "\(previous.lastLine.rfc3339): the gap must start at the last line kept")
        #expect(previous.channels == ["c"])
    }

    @Test(
        "after a kill -9, a channel not written to in the run's last moments (its connection down) starts its gap at its own last line"
    )
    func ownLastLine() throws {
        let dir = try InputTempDirectory()
        try Self.file(
            "_session/2025-11-21.log.gz",
            "@time=2025-11-21T01:00:00.000Z :chatcap CAPTURE start * :capture of live down started\r\n"
                + "@time=2025-11-21T01:00:03.000Z :chatcap CAPTURE disconnected * :disconnected: the server closed the connection\r\n",
            modified: "2025-11-21T01:00:03.100Z", in: dir)
        // Live to the end: written to after its own last line, up to the run's newest line.
        try Self.file(
            "live/2025-11-21.log.gz", "@time=2025-11-21T01:00:09.500Z :u!u@u PRIVMSG #live :last\r\n",
            modified: "2025-11-21T01:00:09.600Z", in: dir)
        // Its connection dropped at 01:00:03 and was not back when the run died: nothing since.
        try Self.file(
            "down/2025-11-21.log.gz",
            "@time=2025-11-21T01:00:02.000Z :u!u@u PRIVMSG #down :a\r\n@time=2025-11-21T01:00:02.900Z :u!u@u PRIVMSG #down :b\r\n",
            modified: "2025-11-21T01:00:03.000Z", in: dir)
        let previous = try #require(try CapturePreviousRun.examine(directory: dir.path, channels: ["live", "down"]))
        #expect(previous.endedWithStop == false)
        #expect(previous.lastLine.milliseconds == Self.ms("2025-11-21T01:00:09.500Z"))
        #expect(previous.lastLine(of: "live").milliseconds == Self.ms("2025-11-21T01:00:09.500Z"))
        // Issue #35 R3: from the run's newest line, the chat of #down from 01:00:02.900 on was in no gap.
        #expect(previous.lastLine(of: "down").milliseconds == Self.ms("2025-11-21T01:00:02.900Z"))
        #expect(previous.lastLine(of: "#DOWN").milliseconds == Self.ms("2025-11-21T01:00:02.900Z"))
        #expect(previous.channelLastLines.keys.sorted() == ["down"])
    }
}

extension CapturePreviousRunTests {
    /// Found by `CrashRejoinCLITests` under load: a backfill still waiting for its answer when the
    /// channel's connection dropped again ends at its wait's end, after the drop, and then writes the
    /// recovered lines (their service times) and the live lines it held (their receive times, older).
    /// The file is written to in the run's last moments while the channel is down: taken for live to
    /// the end, its gap started at the run's newest line (another channel's), and its lines sent
    /// between its own last one and that were in no gap (24 ids missing).
    /// The session's last records: `#down`'s connection dropped at 06.600, and in the second case it
    /// was joined again at 06.950, its backfill still waiting (its live lines held) when the run died.
    static let downRecords = [
        "@time=2025-11-21T01:00:06.600Z :chatcap CAPTURE disconnected * :disconnected: the server closed the connection\r\n",
        "@time=2025-11-21T01:00:06.600Z :chatcap CAPTURE disconnected * :disconnected: the server closed the connection\r\n"
            + "@time=2025-11-21T01:00:06.950Z :chatcap CAPTURE joined #down :joined #down\r\n",
    ]

    @Test(
        "after a kill -9, a channel written to in the run's last moments only by a backfill (its connection down, or rejoined with its backfill waiting) starts its gap at its own last line",
        arguments: downRecords)
    func backfillWrittenWhileDown(records: String) throws {
        let dir = try InputTempDirectory()
        try Self.file(
            "_session/2025-11-21.log.gz",
            "@time=2025-11-21T01:00:00.000Z :chatcap CAPTURE start * :capture of live down started\r\n"
                + "@time=2025-11-21T01:00:00.010Z :chatcap CAPTURE joined #live :joined #live\r\n" + records,
            modified: "2025-11-21T01:00:07.000Z", in: dir)
        try Self.file(
            "live/2025-11-21.log.gz", "@time=2025-11-21T01:00:07.117Z :u!u@u PRIVMSG #live :last\r\n",
            modified: "2025-11-21T01:00:07.200Z", in: dir)
        // #down: rejoined at 01:00:06.037 after a gap, dropped again at 06.600; its backfill ended at
        // 07.040 and wrote the recovered lines (up to 06.880, the service's times), then the held ones.
        try Self.file(
            "down/2025-11-21.log.gz",
            "@time=2025-11-21T01:00:05.000Z :u!u@u PRIVMSG #down :before the gap\r\n"
                + "@time=2025-11-21T01:00:05.500Z;historical=1 :u!u@u PRIVMSG #down :recovered\r\n"
                + "@time=2025-11-21T01:00:06.880Z;historical=1 :u!u@u PRIVMSG #down :recovered after the drop\r\n"
                + "@time=2025-11-21T01:00:06.100Z :u!u@u PRIVMSG #down :held\r\n"
                + "@time=2025-11-21T01:00:06.597Z :u!u@u PRIVMSG #down :held, the last before the drop\r\n",
            modified: "2025-11-21T01:00:07.150Z", in: dir)
        let previous = try #require(try CapturePreviousRun.examine(directory: dir.path, channels: ["live", "down"]))
        #expect(previous.lastLine.milliseconds == Self.ms("2025-11-21T01:00:07.117Z"))
        #expect(previous.lastLine(of: "live").milliseconds == Self.ms("2025-11-21T01:00:07.117Z"))
        #expect(previous.lastLine(of: "down").milliseconds == Self.ms("2025-11-21T01:00:06.880Z"))
        #expect(previous.channelLastLines.keys.sorted() == ["down"])
    }
}

extension CapturePreviousRunTests {
    /// Found by `CrashRepairCLITests` (gzip level 6, tcp) under load: a channel live to the end whose
    /// file's last flush point came well before another channel's. Its file was written to in the run's
    /// last moments (the compressor wrote out the lines after its flush point as its buffer filled), so
    /// it was taken for live up to the run's newest line, another channel's flushed one; the repair then
    /// cut its lines received between its own last flush and that line, and they were in no gap (801 ids
    /// of `#lunafrost` played 167 to 703 ms before the run's newest line).
    @Test(
        "after a kill -9, a channel live to the end starts its gap at its own last kept line when that is older than the run's newest",
        arguments: [Int32(1), 6])
    func liveChannelFlushedEarlier(level: Int32) throws {
        let dir = try InputTempDirectory()
        let start = Self.ms("2025-11-21T01:00:00.000Z")
        try Self.file(
            "_session/2025-11-21.log.gz",
            "@time=2025-11-21T01:00:00.000Z :chatcap CAPTURE start * :capture of a b started\r\n"
                + "@time=2025-11-21T01:00:00.010Z :chatcap CAPTURE joined #a :joined #a\r\n"
                + "@time=2025-11-21T01:00:00.010Z :chatcap CAPTURE joined #b :joined #b\r\n",
            modified: "2025-11-21T01:00:00.020Z", in: dir)
        // #a: flushed up to 01:00:05.999, then lines to 01:00:26 written out by the compressor and
        // cut by the repair: the run was killed before #a's next flush.
        let aFlushed = start + 5_999
        try Self.killedFile(
            "a/2025-11-21.log.gz", flushedUntil: aFlushed, later: aFlushed + 1, level: level, seeds: (3, 4), in: dir)
        // #b: flushed later, up to 01:00:08.000 (its flush point came after #a's).
        try Self.file(
            "b/2025-11-21.log.gz", "@time=2025-11-21T01:00:08.000Z :u!u@u PRIVMSG #b :b's last flushed\r\n",
            modified: "2025-11-21T01:00:08.100Z", in: dir)
        let previous = try #require(try CapturePreviousRun.examine(directory: dir.path, channels: ["a", "b"]))
        #expect(previous.endedWithStop == false)
        #expect(previous.lastLine.milliseconds == start + 8_000)
        #expect(previous.lastLine(of: "b").milliseconds == start + 8_000)
        // #a's lines from 06.000 on were cut: its gap starts at its own last kept line.
        #expect(
            previous.lastLine(of: "a").milliseconds == aFlushed,
            "\(previous.lastLine(of: "a").rfc3339): #a's gap must start at its last kept line")
    }
}
