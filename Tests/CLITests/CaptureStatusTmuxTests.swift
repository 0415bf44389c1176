import ChatTestSupport
import Foundation
import Testing

/// `capture`'s status line in a real 80-column terminal (tmux) with six channels, whose full line is
/// far wider: one row, redrawn in place, never wrapped or scrolled (issue 25 item 7).
/// Never skipped: without tmux, WatchTmux's init throws and the test fails saying so (make deps installs it).
@Suite(.serialized)
struct CaptureStatusTmuxTests {
    @Test("six channels at 80 columns: the status stays on one row, the summary first", .timeLimit(.minutes(20)))
    func fitsEightyColumns() throws {
        let dir = try CLITempDirectory.make("capture-tmux")
        defer { CLITempDirectory.remove(dir) }
        let server = try ServeProcess.onFreePort(["Fixtures/lines/privmsg.irc", "--speed", "20", "--loop"])
        defer { server.kill() }
        let tmux = try WatchTmux(width: 80, height: 12)
        defer { tmux.kill() }
        let channels = ["pixelharbor", "lunafrost", "quietgardenlounge", "midtownradiohour", "nightowlcasting", "cozy"]
        try tmux.line(
            "clear; " + CLI.shellBinary + " capture " + channels.joined(separator: " ")
                + " --dir '\(dir)/cap' --host 127.0.0.1 --port \(server.port) --plain --duration 4; echo \"exit=$?\"")
        let status = /^\d+ lines  [\d.]+ (?:B|KiB|MiB)  reconnects 0  gaps 0 \| #pixelharbor \d+\.\d msg\/s/
        // Redrawn 4 times a second for 4 s: any wrap or scroll would leave more rows behind.
        let (running, screen) = tmux.wait(timeout: 10) { rows in
            rows.contains { $0.firstMatch(of: status) != nil }
        }
        #expect(running, "\(screen.joined(separator: "\n"))")
        usleep(1_500_000)
        let later = tmux.screen()
        let statusRows = later.filter { $0.contains(" lines  ") || $0.contains("msg/s") }
        #expect(statusRows.count == 1, "one status row, nothing wrapped: \(later.joined(separator: "\n"))")
        let row = try #require(statusRows.first)
        #expect(row.count <= 79, "one column left free: \(row.count) \(row)")
        // The busiest channel (the only one with chat) first; then what fits of the rest, or "+N more".
        #expect(row.firstMatch(of: status) != nil && row.count >= 60, "\(row)")
        let (done, end) = tmux.wait(for: "exit=0", timeout: 10)
        #expect(done, "\(end.joined(separator: "\n"))")
        #expect(!end.contains { $0.contains(" lines  reconnects") }, "the status line is cleared at exit")
        #expect(end.contains { $0.contains("chatcap: captured ") }, "\(end.joined(separator: "\n"))")
    }
}
