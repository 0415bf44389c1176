import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `tmi-sent-ts` as serve stamps it: the moment a line is played, so it never goes back in the order
/// serve sends its lines. Tests that hold what capture stored against what serve played (the kill -9
/// and backfill audits) rely on it: a line stamped a millisecond before the line played ahead of it
/// fell outside the gap that excused it (seen: `CrashRejoinCLITests`, one id "missing" of 8,421).
@Suite struct ServeSentTimeCLITests {
    @Test(
        "serve's tmi-sent-ts never decreases in the order it sends lines, and lies between the connect and the read",
        .timeLimit(.minutes(20)))
    func sentTimesInOrder() throws {
        let dir = try CLITempDirectory.make("serve-sent-time")
        defer { CLITempDirectory.remove(dir) }
        // About 1,400 lines a second (the fixture's 350 at speed 4), paced: serve plays them in many
        // turns of its loop, each turn reading the clocks again.
        let serve = try ServeProcess([try BackfillCLITests.fixture(in: dir), "--port", "0", "--speed", "4", "--loop"])
        defer { _ = serve.stop(with: SIGKILL) }
        let startMs = Int64(Date().timeIntervalSince1970 * 1000)
        let client = try ServeLineClient(port: serve.port)
        client.send("CAP REQ :twitch.tv/tags twitch.tv/commands", "NICK justinfan77")
        for channel in BackfillCLITests.channels { client.send("JOIN #\(channel)") }
        var previousMs: Int64? = nil
        var count = 0
        var decreases: [String] = []
        while count < 6_000, let line = client.line(timeoutMs: 20_000) {
            guard line.hasPrefix("@"), BackfillCLITests.message(Substring(line)) != nil,
                let sent = LineTags.value("tmi-sent-ts", in: Substring(line)).flatMap({ Int64($0) })
            else { continue }
            count += 1
            let readMs = Int64(Date().timeIntervalSince1970 * 1000)
            // Never after the read (the old offset, from clocks cut to the millisecond, was a millisecond
            // ahead in about half of serve's turns); a line due in the turn that took the JOIN may carry
            // the millisecond before the connect (two floors).
            #expect(
                sent >= startMs - 1 && sent <= readMs, "played at \(sent), connected at \(startMs), read at \(readMs)")
            if let previousMs, sent < previousMs, decreases.count < 5 {
                decreases.append("\(previousMs) then \(sent)")
            }
            previousMs = sent
        }
        #expect(count == 6_000, "\(count) lines read")
        #expect(decreases.isEmpty, "tmi-sent-ts went back: \(decreases)")
    }
}
