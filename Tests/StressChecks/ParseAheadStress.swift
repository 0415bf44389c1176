import ChatInput
import ChatTestSupport

/// ``ParseAhead`` under load, for `make tsan` (which runs the Stress suites under ThreadSanitizer):
/// random block shapes over a merge of plain and gzip inputs, read to the end or stopped at a random
/// event; the owner sees what the reader on one thread hands out, and every block crossing the
/// threads is ordered by the stage's lock.
enum ParseAheadStress {
    /// 40 rounds (``StressScale``) of random block shapes, to the end or stopped at a random event: the same events as
    /// one thread.
    static func randomShapesAndStops() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("a.log", sampleChatLines(1500, channel: "a", start: 1_000, text: "alpha"))
        let b = try dir.write("b.log", sampleChatLines(1000, channel: "b", start: 1_700, text: "beta"))
        let gz = try dir.writeGzip("c.log.gz", sampleChatLines(1000, channel: "c", start: 1_300, text: "gamma gamma"))
        let paths = [a, b, gz]
        let expected = MergeTranscript.direct(MergeReader(paths: paths))
        check(expected.statistics.lines == 3_500)
        var random = InputRandom(seed: 26)
        for round in 0..<StressScale.of(40, atLeast: 8) {
            let bytes = [64, 1024, 8192, 65_536][Int(random.next() % 4)]
            let events = 1 + Int(random.next() % 300)
            let count = 1 + Int(random.next() % 4)
            let stage = ParseAhead(MergeReader(paths: paths), blockBytes: bytes, blockEvents: events, blockCount: count)
            let stopAt = round % 2 == 0 ? expected.events.count : Int(random.next() % UInt64(expected.events.count))
            var got: [String] = []
            while got.count < stopAt && stage.next({ got.append(MergeTranscript.entry($0, $1)) }) {}
            stage.finish()
            check(got == Array(expected.events.prefix(stopAt)), "round \(round): \(bytes) bytes, \(events) events")
            let read = stage.statistics.lines
            if stopAt == expected.events.count {
                check(stage.statistics == expected.statistics, "round \(round)")
            } else {
                // Read on by at most the blocks in the pool and the event that found none free.
                check(read <= stopAt + count * events + 1, "round \(round): read \(read) for \(stopAt)")
            }
        }
    }

    /// 40 rounds (``StressScale``) over one lane, its parse shared: random block shapes and sharings, to the end or
    /// stopped at a random event.
    static func sharedParseRandomShapesAndStops() throws {
        let dir = try InputTempDirectory()
        let a = try dir.write("a.log", sampleChatLines(1500, channel: "a", start: 1_000, text: "alpha"))
        let gz = try dir.writeGzip("c.log.gz", sampleChatLines(1000, channel: "c", start: 1_300, text: "gamma gamma"))
        let bad = try dir.write("bad.log", Array("@bad\r\n:u!u@u PRIVMSG #c :u\rcr\r\n".utf8))
        let makeReader = { MergeReader(paths: [bad, a, gz, bad], groups: [[0, 1, 2, 3]]) }
        let expected = MergeTranscript.direct(makeReader())
        check(expected.statistics.lines == 2_502)
        check(expected.statistics.malformedLines == 2)
        var random = InputRandom(seed: 28)
        let sharings: [ParseAhead.Sharing] = [.claimed, .claimed, .owner, .alternate]
        for round in 0..<StressScale.of(40, atLeast: 8) {
            let bytes = [64, 1024, 8192, 65_536][Int(random.next() % 4)]
            let events = 1 + Int(random.next() % 300)
            let count = 1 + Int(random.next() % 4)
            let sharing = sharings[Int(random.next() % 4)]
            let stage = ParseAhead(
                makeReader(), blockBytes: bytes, blockEvents: events, blockCount: count, sharing: sharing)
            let stopAt = round % 2 == 0 ? expected.events.count : Int(random.next() % UInt64(expected.events.count))
            var got: [String] = []
            while got.count < stopAt && stage.next({ got.append(MergeTranscript.entry($0, $1)) }) {}
            stage.finish()
            let shape = "round \(round): \(bytes) bytes, \(events) events, \(count) blocks, \(sharing)"
            // A bare-CR warning and its line come in one call: the stop may fall after both.
            check(Array(got.prefix(stopAt)) == Array(expected.events.prefix(stopAt)), "\(shape)")
            if stopAt == expected.events.count {
                check(stage.statistics == expected.statistics, "\(shape)")
                let parsed = stage.blocksParsed
                check(parsed.reader + parsed.owner == stage.blocksHandedOver, "\(shape)")
            } else {
                check(stage.statistics.lines <= stopAt + count * events + 1, "\(shape)")
            }
        }
    }
}
