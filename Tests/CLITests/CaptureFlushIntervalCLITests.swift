import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `capture --flush-interval`: the files become readable through their last line at the chosen
/// interval, not at the default 0.5 s (against our own `chatcap serve` on 127.0.0.1, stopped by PID).
@Suite(.serialized, .timeLimit(.minutes(20))) struct CaptureFlushIntervalCLITests {

    /// The chat lines of channel `c` that `zcat` decodes from the capture in `dir` so far.
    static func readable(_ dir: String) throws -> [String] {
        try CaptureCLITests.zcat("\(dir)/c/*.log.gz").split(separator: "\r\n").map(String.init)
            .filter { $0.contains(" PRIVMSG #c :") }
    }

    /// The lines stored for channel `c` by the last JSON status in `stderr`.
    static func storedLines(_ stderr: String) -> Int {
        stderr.matches(of: /"channel":"c","lines":(\d+)/).last.flatMap { Int($0.1) } ?? 0
    }

    @Test(
        "--flush-interval 8: a burst of lines is not readable 1.5 s after it arrived, and all of it is from 8 s after the start on, not before"
    )
    func flushAtTheChosenInterval() throws {
        let dir = try CLITempDirectory.make("capture-flush-interval")
        defer { CLITempDirectory.remove(dir) }
        let count = 300
        var text = ""
        for i in 0..<count {
            text += "@id=m\(i);tmi-sent-ts=\(1_763_700_000_000 + i) :u!u@u PRIVMSG #c :line \(i)\r\n"
        }
        try text.write(toFile: "\(dir)/feed.irc", atomically: true, encoding: .utf8)
        // Served once, at once: after the burst the files change only by flushes.
        let server = try ServeProcess.onFreePort(["\(dir)/feed.irc", "--speed", "max", "--keep-time"])
        defer { server.kill() }
        let interval = 8.0
        let start = Date()
        let capture = try ChatcapProcess([
            "capture", "c", "--dir", "\(dir)/cap", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain",
            "--status", "json", "--status-interval", "0.1", "--duration", "30", "--flush-interval", "\(interval)",
        ])
        // Every line of the burst stored (the lane also holds our JOIN echo and the names list).
        var received: Date? = nil
        while Date().timeIntervalSince(start) < interval - 2, received == nil {
            if Self.storedLines(capture.stderr) >= count { received = Date() }
            usleep(20_000)
        }
        let arrived = try #require(received, "the lines did not arrive within \(interval - 2) s: \(capture.stderr)")
        // With 0.5 s between flushes every line would be readable well within 1.5 s.
        Thread.sleep(until: arrived.addingTimeInterval(1.5))
        try #require(Date().timeIntervalSince(start) < interval, "checked too late to tell")
        let early = try Self.readable("\(dir)/cap")
        #expect(
            early.count < count,
            "all \(early.count) lines readable \(Date().timeIntervalSince(start)) s after the start")
        // The first flush comes `interval` after the first loop turn, which is after `start`.
        var complete: Date? = nil
        while Date().timeIntervalSince(start) < interval + 5, complete == nil {
            if try Self.readable("\(dir)/cap").count == count { complete = Date() }
            usleep(50_000)
        }
        let flushed = try #require(complete, "not every line readable within \(interval + 5) s of the start")
        #expect(flushed.timeIntervalSince(start) >= interval)
        #expect(capture.isRunning, "readable because capture closed its files: \(capture.stderr)")
        let lines = try Self.readable("\(dir)/cap").map(CaptureCLITests.stripTime)
        #expect(
            lines
                == (0..<count).map { "@id=m\($0);tmi-sent-ts=\(1_763_700_000_000 + $0) :u!u@u PRIVMSG #c :line \($0)" })
        #expect(capture.stop(with: SIGINT) == 0, "\(capture.stderr)")
    }
}
