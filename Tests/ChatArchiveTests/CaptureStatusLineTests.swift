import ChatArchive
import ChatStore
import ChatTestSupport
import Foundation
import Testing
import TwitchSession

/// The capture's status line fitted to a terminal's width: the summary first, then the busiest
/// channels as room allows, `+N more` for the rest.
@Suite struct CaptureStatusLineTests {
    /// Six channels, messages over 2 s: busiest first loudarena (60), speedrunhub (40), midtownradio (20),
    /// nightowlcast (10), cozycorner (5), quietgarden (1).
    static let rates = [
        ("quietgarden", 1), ("loudarena", 60), ("midtownradio", 20), ("speedrunhub", 40), ("cozycorner", 5),
        ("nightowlcast", 10),
    ]
    static let busiest = ["loudarena", "speedrunhub", "midtownradio", "nightowlcast", "cozycorner", "quietgarden"]

    static func snapshot() throws -> CaptureStatus.Snapshot {
        let dir = try InputTempDirectory()
        var options = CaptureOptions()
        options.channels = rates.map(\.0)
        let writer = try CaptureWriter(directory: dir.path, options: options)
        let start = CaptureWriterTests.at("2025-11-21T01:00:00.000Z", mono: 1_000)
        var status = CaptureStatus(startedAt: start)
        let sent = CaptureWriterTests.ms("2025-11-21T00:59:59.750Z")
        for (channel, count) in rates {
            for i in 0..<count {
                try CaptureWriterTests.append(writer, "@tmi-sent-ts=\(sent) :u PRIVMSG #\(channel) :\(i)", start)
            }
        }
        try writer.waitForWrites()
        let snapshot = status.snapshot(writer, now: start.advanced(byMs: 2_000))
        try writer.close()
        return snapshot
    }

    /// The channels a line shows, in its order, and its `+N more` (0 without).
    static func channels(in line: String) -> (shown: [String], more: Int) {
        let shown = line.matches(of: /#(\w+) \d+\.\d msg\/s/).map { String($0.1) }
        let more = line.firstMatch(of: /\+(\d+) more$/).map { Int($0.1)! } ?? 0
        return (shown, more)
    }

    @Test("at 40, 80 and 250 columns: no longer than the width, the summary first, channels busiest first")
    func fits() throws {
        let snapshot = try Self.snapshot()
        #expect(snapshot.busiestChannels.map(\.name) == Self.busiest)
        let wide = snapshot.line(width: 250)
        #expect(
            wide
                == snapshot.summary
                + " | #loudarena 30.0 msg/s lag 250ms  #speedrunhub 20.0 msg/s lag 250ms  #midtownradio 10.0 msg/s lag 250ms"
                + "  #nightowlcast 5.0 msg/s lag 250ms  #cozycorner 2.5 msg/s lag 250ms  #quietgarden 0.5 msg/s lag 250ms"
        )
        #expect(wide.count <= 250)
        for width in [40, 80, 250] {
            let line = snapshot.line(width: width)
            #expect(line.count <= width, "\(width): \(line.count) columns: \(line)")
            #expect(line.hasPrefix("136 lines  "), "the summary is always there: \(line)")
            let (shown, more) = Self.channels(in: line)
            #expect(shown == Array(Self.busiest.prefix(shown.count)), "busiest first: \(line)")
            #expect(shown.count + more == (width == 40 ? 0 : 6), "every channel shown or counted: \(line)")
        }
        let eighty = snapshot.line(width: 80)
        #expect(Self.channels(in: eighty).shown == ["loudarena"], "\(eighty)")
        #expect(eighty.hasSuffix(" | #loudarena 30.0 msg/s lag 250ms  +5 more"), "\(eighty)")
        // Room for "+N more" is made by leaving out one more channel (at 107, two would fit without it)…
        #expect(snapshot.line(width: 107) == eighty)
        // …but the busiest one stays.
        #expect(snapshot.line(width: 72) == snapshot.summary + " | #loudarena 30.0 msg/s lag 250ms")
        // 40 columns: the summary (36), no room for a channel nor for "+6 more".
        #expect(snapshot.summary == "136 lines  0 B  reconnects 0  gaps 0")
        #expect(snapshot.line(width: 40) == snapshot.summary)
        #expect(snapshot.line(width: 46) == snapshot.summary + " | +6 more")
        // Narrower than the summary: as many of its fields as fit; the line count, cut, at the least.
        #expect(snapshot.line(width: 20) == "136 lines  0 B")
        #expect(snapshot.line(width: 30) == "136 lines  0 B  reconnects 0")
        #expect(snapshot.line(width: 22) == "136 lines  0 B  gaps 0")
        #expect(snapshot.line(width: 5) == "136 l")
    }
}
