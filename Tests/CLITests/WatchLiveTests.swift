import ChatTestSupport
import Foundation
import Testing

/// `chatcap watch CHANNEL` live, against `chatcap serve` on 127.0.0.1, inside tmux.
@Suite(.serialized, .timeLimit(.minutes(20))) struct WatchLiveTests {
    @Test("watch a live channel: header says live, served rows appear, q restores the terminal")
    func liveChannel() throws {
        let server = try ServeProcess.onFreePort(["Fixtures/lines/moderation.irc", "--speed", "max"])
        defer { server.kill() }
        let tmux = try WatchTmux()
        defer { tmux.kill() }
        try tmux.line(
            "clear; echo MARKER-BEFORE-WATCH; \(CLI.shellBinary) watch pixelharbor --host 127.0.0.1 --port \(server.port) --plain; echo EXIT=$?"
        )
        let (shown, screen) = tmux.wait(timeout: 15) { s in
            s.first?.contains("live") == true && s.contains { $0.contains("-- lurk_lord was timed out for 1s") }
        }
        try #require(shown, "\(screen.joined(separator: "\n"))")
        #expect(screen[0].hasPrefix(" #pixelharbor"))
        #expect(
            screen.contains {
                $0.contains("trollface99: this streamer is so bad LUL [deleted] [timed out 600s] [cleared]")
            })
        #expect(
            screen.contains {
                $0.contains("LinkSpammer: cheap viewers at example dot com [deleted] [banned] [cleared]")
            })
        try tmux.keys("q")
        #expect(tmux.waitAlternate(false))
        let after = tmux.wait(for: "EXIT=0")
        #expect(after.ok, "\(after.screen.joined(separator: "\n"))")
        #expect(after.screen.contains { $0.contains("MARKER-BEFORE-WATCH") })
    }

    @Test("connection options mean live: watch NAME --host … joins #NAME even where a file NAME exists")
    func connectionOptionsMeanLive() throws {
        let server = try ServeProcess.onFreePort(["Fixtures/lines/moderation.irc", "--speed", "max"])
        defer { server.kill() }
        let dir = try InputTempDirectory()
        try dir.write("pixelharbor", Array("@tmi-sent-ts=1763700000000 :x!x@x PRIVMSG #fromfile :not this\r\n".utf8))
        let tmux = try WatchTmux()
        defer { tmux.kill() }
        try tmux.line(
            "cd \(InputShell.quote(dir.path)) && \(CLI.shellBinary) watch pixelharbor --host 127.0.0.1 --port \(server.port) --plain; echo EXIT=$?"
        )
        let (shown, screen) = tmux.wait(timeout: 15) { s in
            s.first?.contains("live") == true && s.contains { $0.contains("-- lurk_lord was timed out for 1s") }
        }
        try #require(shown, "\(screen.joined(separator: "\n"))")
        #expect(screen[0].hasPrefix(" #pixelharbor"))
        #expect(!screen.contains { $0.contains("not this") })
        try tmux.keys("q")
        #expect(tmux.wait(for: "EXIT=0").ok)
    }
}
