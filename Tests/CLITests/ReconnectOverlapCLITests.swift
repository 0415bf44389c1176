import ChatTestSupport
import Foundation
import Glibc
import Testing

/// RECONNECT without a hole: `chatcap serve --reconnect-after N --reconnect-grace S` sends RECONNECT
/// to each connection after N lines and closes it S seconds later, as Twitch does. capture opens the
/// replacement at once and keeps the old connection until the replacement has joined and a line has
/// come on both. What serve played is recorded independently by `Tests/Support/recent_messages_service.py
/// record` (an IRC client of serve on overlapping connections of its own).
@Suite(.serialized) struct ReconnectOverlapCLITests {
    /// One capture behind its own serve (grace `grace`) and recorder; the audit of its messages, its
    /// gap records and how many RECONNECTs it went through.
    struct Outcome {
        var audit: BackfillCLITests.Audit
        var gaps: Int
        var reconnects: Int
        /// Of those, the connections serve closed (its grace ran out) before capture closed them.
        var closedByServer: Int
        /// The summary's count of lines received on both connections and written once.
        var writtenOnce: Int?
    }

    final class Run {
        let dir: String
        let serve: ServeProcess
        let recorder = Process()
        let capture: ChatcapProcess

        init(grace: String, fixture: String, dir: String) throws {
            self.dir = dir
            serve = try ServeProcess([
                fixture, "--port", "0", "--loop", "--reconnect-after", "300", "--reconnect-grace", grace,
            ])
            _ = try startPythonServer(
                recorder,
                arguments: [BackfillCLITests.script, "record", "\(serve.port)", "100", dir + "/recorded.log"]
                    + BackfillCLITests.channels, what: "the recorder")
            capture = try ChatcapProcess(
                ["capture", "--dir", dir + "/capture"] + BackfillCLITests.channels + [
                    "--host", "127.0.0.1", "--port", "\(serve.port)", "--plain", "--status", "none", "--join-rate",
                    "1000", "--duration", "15",
                ])
        }

        func finish() throws -> Outcome {
            #expect(capture.exitStatus(within: 40) == 0, "\(capture.stderr)")
            kill(recorder.processIdentifier, SIGKILL)
            recorder.waitUntilExit()
            _ = serve.stop()
            let served = BackfillCLITests.served(dir + "/recorded.log")
            #expect(served.count > 1_000, "the recorder heard \(served.count) messages")
            // Each connection that went, but the last (stopped): closed by us after the handover
            // ("the server asked us to reconnect"), or by serve first ("the server closed the connection").
            let reconnects = capture.stderr.split(separator: "\n").count {
                $0.contains("disconnected: ") && !$0.hasSuffix("disconnected: stopped")
            }
            let closedByServer = capture.stderr.split(separator: "\n").count {
                $0.hasSuffix("disconnected: the server closed the connection")
            }
            return Outcome(
                audit: try BackfillCLITests.audit(dir + "/capture", served: served),
                gaps: try BackfillCLITests.gaps(dir + "/capture").count, reconnects: reconnects,
                closedByServer: closedByServer,
                writtenOnce: capture.stderr.split(separator: "\n").first { $0.contains("RECONNECT overlaps: ") }
                    .flatMap { Int($0.split(separator: "RECONNECT overlaps: ").last?.prefix { $0.isNumber } ?? "") })
        }
    }

    @Test(
        "capture through 10+ RECONNECTs with a 5 s grace: each old connection closed by capture once caught up, every served id once, 0 missing, 0 doubled, no gap; grace 0 loses lines and records gaps",
        .timeLimit(.minutes(20)))
    func noHole() throws {
        let dir = try CLITempDirectory.make("overlap")
        defer { CLITempDirectory.remove(dir) }
        let fixture = try BackfillCLITests.fixture(in: dir)
        try FileManager.default.createDirectory(atPath: dir + "/grace", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/none", withIntermediateDirectories: true)
        // Both runs at once: the test takes one run's time.
        let graceful = try Run(grace: "5", fixture: fixture, dir: dir + "/grace")
        let abrupt = try Run(grace: "0", fixture: fixture, dir: dir + "/none")
        let kept = try graceful.finish()
        let lost = try abrupt.finish()

        #expect(kept.reconnects >= 10, "\(kept.reconnects) RECONNECTs")
        #expect(kept.audit.captured > 2_000, "\(kept.audit)")
        #expect(kept.audit.missing == 0, "\(kept.audit)")
        #expect(kept.audit.doubled == 0, "\(kept.audit)")
        #expect(kept.gaps == 0, "no gap when the overlap worked")
        // A line on both connections closes the old one within milliseconds of the joins, whichever
        // connection is read first: not serve's grace (a RECONNECT every grace, not every 300 lines,
        // when only the replacement's second copy counted).
        #expect(
            kept.closedByServer == 0, "\(kept.closedByServer) of \(kept.reconnects) old connections closed by serve")
        #expect((kept.writtenOnce ?? 0) > 0, "the overlaps carried lines on both connections, said in the summary")

        #expect(lost.reconnects >= 10, "\(lost.reconnects) RECONNECTs")
        #expect(lost.gaps == lost.reconnects * BackfillCLITests.channels.count, "a gap per channel per RECONNECT")
        #expect(lost.audit.missing > 0, "closed at once, the old connection takes lines with it: \(lost.audit)")
        #expect(lost.audit.doubled == 0, "\(lost.audit)")
    }
}
