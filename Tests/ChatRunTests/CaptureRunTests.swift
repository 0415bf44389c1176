import ChatArchive
import ChatLive
import ChatPosix
import ChatRun
import ChatServe
import ChatTestSupport
import Foundation
import Synchronization
import Testing
import TwitchSession

/// The capture run in process, against ChatServe's stand-in server on 127.0.0.1: what it writes,
/// what it says, and why it ended — the orchestration the `capture` command only wires.
@Suite(.timeLimit(.minutes(20))) struct CaptureRunTests {
    static func settings(port: UInt16, directory: String, durationMs: Int64?) -> CaptureRun.Settings {
        var connection = LiveConnection(
            channels: ["pixelharbor"], credentials: .anonymous,
            endpoint: Endpoint(host: "127.0.0.1", port: port, tls: nil), settings: ConnectionSettings())
        connection.durationMs = durationMs
        connection.durationText = durationMs.map { "\($0 / 1000) s" } ?? ""
        return CaptureRun.Settings(
            connection: connection, named: ["pixelharbor"], directory: directory, options: CaptureOptions())
    }

    @Test("a run joins, writes the channel's lines, ends at its duration, stores its stop record and says each step")
    func durationEnds() throws {
        let server = try StandInServer()
        defer { server.stop() }
        let directory = try InputTempDirectory()
        let console = RunConsoleRecorder()
        let run = CaptureRun(
            Self.settings(port: server.port, directory: directory.path, durationMs: 2_000),
            console: console.console, stop: StopFlag(), http: nil, service: nil, reload: nil)
        guard case .ended(let end) = try run.run() else {
            Issue.record("the run did not start")
            return
        }
        #expect(end.ending == .deadline)
        #expect(end.failure == nil)
        #expect(end.joined == ["pixelharbor"])
        #expect(end.writer.lineCount > 0)
        run.report(end)
        let said = console.said
        #expect(said.contains("chatcap: 1 of 1 channel joined in "))
        #expect(said.contains("chatcap: stopped: --duration 2 s reached\n"))
        #expect(said.contains("chatcap: captured \(end.writer.lineCount) lines, "))
        let days = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/pixelharbor")
        #expect(days.count == 1 && days[0].hasSuffix(".log.gz"))
        let session = try InputShell.run(
            "zcat " + InputShell.quote(directory.path) + "/_session/*.log.gz | grep -c 'capture stopped after'")
        #expect(String(decoding: session.output, as: UTF8.self) == "1\n")
    }

    @Test(
        "a stop (SIGINT, SIGTERM) ends the run as stopped (a quiet run says nothing); raised before, it ends at the start"
    )
    func stopEnds() throws {
        let server = try StandInServer()
        defer { server.stop() }
        let directory = try InputTempDirectory()
        let console = RunConsoleRecorder()
        let stop = StopFlag()
        var settings = Self.settings(port: server.port, directory: directory.path, durationMs: nil)
        settings.quiet = true
        let run = CaptureRun(settings, console: console.console, stop: stop, http: nil, service: nil, reload: nil)
        let stopper = Thread {
            usleep(1_000_000)
            stop.raise()
        }
        stopper.start()
        guard case .ended(let end) = try run.run() else {
            Issue.record("the run did not start")
            return
        }
        #expect(end.ending == .stopped)
        #expect(end.joined == ["pixelharbor"])
        run.report(end)
        #expect(console.said == "")
        let loud = RunConsoleRecorder()
        let again = CaptureRun(
            Self.settings(port: server.port, directory: directory.path, durationMs: nil), console: loud.console,
            stop: stop, http: nil, service: nil, reload: nil)
        // Raised before the start: the previous run's files are not read to the end, nothing is written.
        guard case .stoppedBeforeStart = try again.run() else {
            Issue.record("a stop raised before the start must end the run there")
            return
        }
        #expect(loud.said == "chatcap: stopped while reading the previous run's files; nothing was written\n")
    }
}
