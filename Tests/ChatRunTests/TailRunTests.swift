import ChatLive
import ChatMemory
import ChatOutput
import ChatPosix
import ChatRun
import ChatStore
import ChatTestSupport
import Foundation
import Testing
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// The tail run in process against the stand-in server: lines through the pipeline into a file,
/// what it says, why it ended — what the `tail` command only wires.
@Suite(.timeLimit(.minutes(20))) struct TailRunTests {
    @Test("a run joins, prints the channel's lines, ends at its duration, and reports its figures")
    func durationEnds() throws {
        let server = try StandInServer()
        defer { server.stop() }
        let directory = try InputTempDirectory()
        let path = try directory.file("out.txt")
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let sink = OutputSink(descriptor: descriptor)
        let budget = MemoryBudget(limit: 1 << 30)
        var options = PipelineOptions()
        options.budget = budget
        let pipeline = OutputPipeline(options: options, sink: sink, diagnose: { _ in })
        var connection = LiveConnection(
            channels: ["#PixelHarbor"], credentials: .anonymous,
            endpoint: Endpoint(host: "127.0.0.1", port: server.port, tls: nil), settings: ConnectionSettings())
        connection.durationMs = 1_500
        connection.durationText = "1.5 s"
        let console = RunConsoleRecorder()
        let run = TailRun(
            connection, console: console.console, stop: StopFlag(), pipeline: pipeline, sink: sink, budget: budget,
            http: nil, service: nil, reload: nil)
        run.stats = true
        let end = try run.run()
        try pipeline.finish()
        #expect(end.ending == .deadline)
        #expect(end.failure == nil)
        #expect(end.joined == 1)
        #expect(end.settled != nil)
        run.report(end)
        let said = console.said
        #expect(said.contains("chatcap: 1 of 1 channel joined in "))
        #expect(said.contains("chatcap: stopped: --duration 1.5 s reached\n"))
        #expect(said.contains("chatcap: stats: \(pipeline.summary.lines) lines in "))
        #expect(said.contains("chatcap: " + budget.summary + "\n"))
        let printed = try String(contentsOfFile: path, encoding: .utf8)
        #expect(pipeline.summary.lines > 0)
        let lines = printed.split(separator: "\n")
        #expect(lines.count == pipeline.summary.written)
        // The server's own lines first (text format), then the channel's chat.
        #expect(lines.first?.hasSuffix("CAP * ACK twitch.tv/tags twitch.tv/commands twitch.tv/membership") == true)
        #expect(lines.contains { $0.contains("#pixelharbor") })
    }
}
