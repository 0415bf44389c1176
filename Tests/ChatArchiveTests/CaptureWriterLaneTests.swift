import ChatArchive
import ChatTestSupport
import Foundation
import Testing

/// `CaptureWriter` finding lanes through its ``NameIndex`` (ChatStore): many channels, interleaved
/// so that the last-lane shortcut never applies, in every case.
@Suite struct CaptureWriterLaneTests {
    @Test(
        "600 joined channels, interleaved and in mixed case, each get one lane; others go to _session",
        .timeLimit(.minutes(20)))
    func manyChannelsInterleaved() throws {
        let dir = try InputTempDirectory()
        let count = 600
        var options = CaptureOptions()
        // Joined in mixed case, some with `#`, one twice.
        options.channels = (0..<count).map { $0 % 3 == 0 ? "#Ch\($0)x" : "cH\($0)X" } + ["CH7X"]
        options.maxOpenFiles = 16
        let writer = try CaptureWriter(directory: dir.path, options: options)
        let t = CaptureWriterTests.at("2025-11-21T04:26:41.971Z")
        // Three rounds: lower, upper, as joined; a channel never follows itself, and every fifth line
        // is of a channel not joined (same shape of name).
        let cases: [(Int) -> String] = [{ "ch\($0)x" }, { "CH\($0)X" }, { "Ch\($0)x" }]
        for (round, name) in cases.enumerated() {
            for i in 0..<count {
                let c = (i * 7 + round) % count  // 7 is prime to 600: every channel once a round
                try CaptureWriterTests.append(writer, ":u!u@u PRIVMSG #\(name(c)) :round \(round)", t)
                if i % 5 == 0 { try CaptureWriterTests.append(writer, ":u!u@u PRIVMSG #ch\(c)y :not joined", t) }
            }
        }
        try writer.close()
        let counters = writer.channelCounters
        #expect(counters.count == count + 1)
        #expect(Set(counters.map(\.channel)) == Set((0..<count).map { "ch\($0)x" } + ["_session"]))
        #expect(counters.filter { $0.channel != "_session" }.allSatisfy { $0.lines == 3 && $0.messages == 3 })
        #expect(writer.unjoinedLines == 3 * count / 5)
        for c in [0, 7, 599] {
            let text = try CaptureWriterTests.zcat(dir.path + "/ch\(c)x/2025-11-21.log.gz")
            let rounds = text.split(separator: "\r\n").map { $0.split(separator: " :").last.map(String.init) ?? "" }
            #expect(rounds == ["round 0", "round 1", "round 2"], "#ch\(c)x: \(text)")
        }
        #expect(CaptureWriterTests.files(dir.path).count == count + 1)
    }

    @Test("with every channel taken, 1,000 interleaved channels each get one lane, whatever their case")
    func everyChannel() throws {
        let dir = try InputTempDirectory()
        var options = CaptureOptions()
        options.maxOpenFiles = 8
        let writer = try CaptureWriter(directory: dir.path, options: options)
        let t = CaptureWriterTests.at("2025-11-21T04:26:41.971Z")
        for round in 0..<2 {
            for c in 0..<1_000 {
                let name = round == 0 ? "a\(c)b" : "A\(c)B"
                try CaptureWriterTests.append(writer, "PING :x", t)
                try CaptureWriterTests.append(writer, ":u!u@u PRIVMSG #\(name) :\(round)", t)
            }
        }
        #expect(writer.openFileCount <= 8)
        try writer.close()
        let counters = writer.channelCounters
        #expect(counters.count == 1_001 && counters.last?.channel == "_session" && counters.last?.lines == 2_000)
        #expect(counters.dropLast().allSatisfy { $0.lines == 2 })
        #expect(counters.first?.channel == "a0b" && counters[999].channel == "a999b")
    }
}
