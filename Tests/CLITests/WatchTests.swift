import ChatTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `chatcap watch` end to end: the built binary full-screen inside a private tmux server, read back
/// with `capture-pane`. Every wait is bounded; every server is killed by its socket. Without tmux the
/// tests that need it fail (``WatchTmux`` throws), as a missing tool does everywhere; the others run.
@Suite(.serialized, .timeLimit(.minutes(20)))
struct WatchTests {
    /// Rows 1 ..< last: the message area of a full-screen frame.
    static func messages(_ screen: [String], height: Int = 40) -> [String] {
        Array(screen.prefix(height).dropFirst().dropLast()).map {
            $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression)
        }
    }

    /// Whether the screen shows the end of the replay with `last` as the bottom message row.
    static func ended(_ screen: [String], last: String, height: Int = 40) -> Bool {
        screen.count >= height && screen[0].contains("replay ended")
            && messages(screen, height: height).last { !$0.isEmpty } == last
    }

    @Test("replays moderation.irc full-screen: rows, tombstones struck through, footer; q restores the terminal")
    func moderation() throws {
        let tmux = try WatchTmux()
        defer { tmux.kill() }
        try tmux.line(
            "clear; echo MARKER-BEFORE-WATCH; \(CLI.shellBinary) watch Fixtures/lines/moderation.irc --speed max --stats; echo EXIT=$?"
        )
        let (ended, screen) = tmux.settle { Self.ended($0, last: "04:43:37 -- lurk_lord was timed out for 1s") }
        try #require(ended, "\(screen.joined(separator: "\n"))")
        #expect(tmux.value("#{alternate_on}") == "1")
        #expect(screen[0].hasPrefix(" #pixelharbor") && screen[0].contains("msgs/s"))
        let rows = Self.messages(screen)
        #expect(
            Array(rows.prefix(14)) == [
                "04:43:21 trollface99: this streamer is so bad LUL [deleted] [timed out 600s] [cleared]",
                "04:43:23 LinkSpammer: cheap viewers at example dot com [deleted] [banned] [cleared]",
                "04:43:24 S NightOwlGG: ignore the trolls chat [cleared]",
                "04:43:24 trollface99: you cannot stop me [timed out 600s] [cleared]",
                "04:43:26 Lurk_Lord: who let the bots in [timed out 1s] [cleared]",
                "04:43:27 -- message deleted from trollface99: this streamer is so bad LUL",
                "04:43:29 -- message deleted from linkspammer: cheap viewers at example dot com",
                "04:43:29 -- trollface99 was timed out for 600s",
                "04:43:30 fernwood_: thanks mods SeemsGood [cleared]",
                "04:43:31 -- linkspammer was banned",
                "04:43:33 MS QuietMod: clearing chat for a fresh start [cleared]",
                "04:43:33 -- chat cleared by a moderator",
                "04:43:35 S NightOwlGG: that was fast 4Head",
                "04:43:37 -- lurk_lord was timed out for 1s",
            ])
        #expect(rows.dropFirst(14).allSatisfy { $0.isEmpty })
        #expect(screen[39].contains("q quit") && screen[39].contains("LIVE") && screen[39].contains("replay ended"))
        // Moderated rows are struck through (SGR 9); the untouched one is not.
        let styled = tmux.screenWithEscapes()
        let struck = try #require(styled.first { $0.contains("this streamer is so bad") })
        let clean = try #require(styled.first { $0.contains("that was fast") })
        #expect(struck.contains(";9m") && !clean.contains(";9m"))

        try tmux.keys("q")
        #expect(tmux.waitAlternate(false))
        let (back, after) = tmux.wait(for: "EXIT=0")
        #expect(back, "\(after.joined(separator: "\n"))")
        #expect(after.contains("MARKER-BEFORE-WATCH"))
        let stats = try #require(after.first { $0.contains("watch stats: redraws=") })
        let peak = try #require(stats.firstMatch(of: /max_redraws_in_1s=([0-9]+)/).map { Int($0.1)! })
        #expect(peak >= 1 && peak <= 30)
    }

    @Test("k and PgUp scroll back into the ring's history with a new-rows marker; G returns to live")
    func scrolling() throws {
        let tmux = try WatchTmux()
        defer { tmux.kill() }
        try tmux.line(
            "\(CLI.shellBinary) watch Fixtures/lines/privmsg.irc Fixtures/lines/usernotice.irc Fixtures/lines/moderation.irc --speed max --channel pixelharbor; echo EXIT=$?"
        )
        var (ok, screen) = tmux.settle { Self.ended($0, last: "04:43:37 -- lurk_lord was timed out for 1s") }
        try #require(ok, "\(screen.joined(separator: "\n"))")
        var rows = Self.messages(screen)
        #expect(rows.last == "04:43:37 -- lurk_lord was timed out for 1s")
        #expect(!screen.contains { $0.contains("good evening chat") })
        #expect(screen[39].contains("LIVE"))

        try tmux.keys("k")
        (ok, screen) = tmux.settle { $0.count >= 40 && $0[39].contains("PAUSED · 1 new") }
        #expect(ok, "\(screen.joined(separator: "\n"))")
        rows = Self.messages(screen)
        #expect(rows.last == "04:43:35 S NightOwlGG: that was fast 4Head")

        for _ in 0..<4 where !tmux.screen().contains(where: { $0.contains("good evening chat") }) {
            try tmux.keys("PPage")
            usleep(150_000)
        }
        (ok, screen) = tmux.settle { $0.count >= 40 && $0[1].contains("04:40:01 S NightOwlGG: good evening chat") }
        #expect(ok, "\(screen.joined(separator: "\n"))")
        #expect(screen[1].contains("good evening chat"))  // the oldest entry tops the page
        let marker = try #require(screen[39].firstMatch(of: /PAUSED · ([0-9]+) new/))
        #expect(Int(marker.1)! > 20)

        try tmux.keys("G")
        (ok, screen) = tmux.settle { $0.count >= 40 && $0[39].contains("LIVE") && $0[38].contains("lurk_lord") }
        #expect(ok, "\(screen.joined(separator: "\n"))")
        #expect(Self.messages(screen).last == "04:43:37 -- lurk_lord was timed out for 1s")
        try tmux.keys("q")
        #expect(tmux.waitAlternate(false))
        #expect(tmux.wait(for: "EXIT=0").ok)
    }

    @Test("Tab switches channels; / filters by login or text, Esc clears; a resize lays out again")
    func channelsFilterResize() throws {
        let tmux = try WatchTmux()
        defer { tmux.kill() }
        try tmux.line("\(CLI.shellBinary) watch Fixtures/lines/privmsg.irc --speed max; echo EXIT=$?")
        var (ok, screen) = tmux.settle { Self.ended($0, last: "04:40:30 Lurk_Lord: :) hi chat") }
        try #require(ok, "\(screen.joined(separator: "\n"))")
        #expect(screen[0].hasPrefix(" #pixelharbor (1/2)"))
        #expect(screen[39].contains("Tab channel"))

        try tmux.keys("Tab")
        (ok, screen) = tmux.settle {
            $0.first?.contains("#lunafrost (2/2)") == true && $0.count > 1 && $0[1].contains("MoonMoth")
        }
        #expect(ok)
        #expect(Self.messages(screen).first == "04:40:32 S MoonMoth: lunafrHeart lunafrHeart good morning luna")
        try tmux.keys("BTab")
        #expect(tmux.wait(for: "#pixelharbor (1/2)").ok)

        try tmux.keys("/")
        try tmux.tmux(["send-keys", "-t", "0", "-l", "troll"])
        try tmux.keys("Enter")
        (ok, screen) = tmux.settle {
            $0.count >= 40 && $0[39].contains("filter: troll") && $0[1].contains("trollface99")
        }
        #expect(ok, "\(screen.joined(separator: "\n"))")
        #expect(Self.messages(screen).filter { !$0.isEmpty } == ["04:40:29 trollface99: darn this game is rigged"])
        try tmux.keys("Escape")
        (ok, screen) = tmux.settle { rows in
            rows.count >= 40 && rows.contains { $0.contains("good evening chat") } && !rows[39].contains("filter:")
        }
        #expect(ok && !screen[39].contains("filter:"))

        try tmux.tmux(["resize-window", "-t", "0", "-x", "60", "-y", "20"])
        (ok, screen) = tmux.settle { rows in
            rows.count >= 20 && rows[19].contains("q quit")
                && rows.contains { $0.hasPrefix("         ") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        }
        #expect(ok, "\(screen.joined(separator: "\n"))")  // a continuation row, indented under the text
        #expect(screen.prefix(20).allSatisfy { $0.count <= 60 })
        #expect(screen[0].contains("#pixelharbor") && screen[19].contains("q quit"))
        try tmux.keys("q")
        #expect(tmux.waitAlternate(false))
    }

    @Test(
        "Ctrl-C, SIGINT and SIGTERM restore the terminal while the replay still runs",
        arguments: ["C-c", "INT", "TERM"])
    func interrupts(how: String) throws {
        let tmux = try WatchTmux()
        defer { tmux.kill() }
        try tmux.line(
            "clear; echo MARKER-BEFORE-WATCH; \(CLI.shellBinary) watch Fixtures/lines/moderation.irc --speed 0.01; echo EXIT=$?"
        )
        let (ok, screen) = tmux.wait { rows in
            rows.first?.contains("replay") == true && rows.count >= 40 && rows[39].contains("q quit")
        }
        try #require(ok, "\(screen.joined(separator: "\n"))")
        #expect(!screen[0].contains("replay ended"))
        if how == "C-c" {
            try tmux.keys("C-c")
        } else {
            let shell = try #require(Int32(tmux.value("#{pane_pid}")))
            let pgrep = try CLI.spawnUnblocked(["pgrep", "-P", "\(shell)"])
            let children = pgrep.output.split(separator: "\n").compactMap { Int32($0) }
            let pid = try #require(children.first)
            #expect(kill(pid, how == "INT" ? SIGINT : SIGTERM) == 0)
        }
        #expect(tmux.waitAlternate(false))
        let (back, after) = tmux.wait(for: "EXIT=")
        #expect(back && after.contains("MARKER-BEFORE-WATCH"), "\(after.joined(separator: "\n"))")
        // The way out is a quit like q: the terminal restored, then exit status 0.
        let status = after.compactMap { $0.firstMatch(of: /^EXIT=([0-9]+)$/).map { String($0.1) } }
        #expect(status == ["0"], "\(after.joined(separator: "\n"))")
        let sane = try tmux.tmux(["display-message", "-p", "-t", "0", "#{cursor_flag}"]).output
        #expect(sane.trimmingCharacters(in: .whitespacesAndNewlines) == "1")  // the cursor is visible again
    }

    @Test(
        "watch DIR --follow shows lines as the files grow and as new files appear; q ends it",
        .timeLimit(.minutes(20)))
    func follows() throws {
        let dir = try InputTempDirectory()
        let now = Date().timeIntervalSince1970
        func line(_ text: String, _ offset: Double) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return
                "@time=\(formatter.string(from: Date(timeIntervalSince1970: now + offset))) :u!u@u PRIVMSG #a :\(text)\r\n"
        }
        let first = try dir.write("a/2025-11-21.log", Array(line("first line", -30).utf8))
        let tmux = try WatchTmux()
        defer { tmux.kill() }
        try tmux.line("clear; \(CLI.shellBinary) watch '\(dir.path)' --follow; echo EXIT=$?")
        let shown = { (text: String) in { (screen: [String]) in Self.messages(screen).contains { $0.hasSuffix(text) } }
        }
        let (started, screen) = tmux.wait(shown("u: first line"))
        try #require(started, "\(screen.joined(separator: "\n"))")
        // More in the file, then the next day's file (a rotation).
        let handle = try #require(FileHandle(forWritingAtPath: first))
        handle.seekToEndOfFile()
        handle.write(Data(line("second line", -20).utf8))
        try handle.close()
        let (grew, screen2) = tmux.wait(shown("u: second line"))
        #expect(grew, "\(screen2.joined(separator: "\n"))")
        _ = try dir.write("a/2025-11-22.log", Array(line("third line", -10).utf8))
        let (rotated, screen3) = tmux.wait(shown("u: third line"))
        #expect(rotated, "\(screen3.joined(separator: "\n"))")
        try tmux.keys("q")
        let (back, after) = tmux.wait(for: "EXIT=0")
        #expect(back, "\(after.joined(separator: "\n"))")
    }

    @Test("without a terminal watch refuses with exit status 74 and says why")
    func noTerminal() throws {
        let run = try CLI.shell("setsid \(CLI.shellBinary) watch Fixtures/lines/moderation.irc --speed max < /dev/null")
        #expect(run.status == 74)
        #expect(run.stderr.contains("watch needs a terminal"), "\(run.stderr)")
    }

    @Test("the help names the keys, Tab for channels, and --stats")
    func help() throws {
        let run = try CLI.run(["watch", "--help"])
        #expect(run.status == 0)
        for text in ["Tab", "--stats", "--channel", "--speed", "PgUp/PgDn", "/ filter"] {
            #expect(run.text.contains(text), "\(text)")
        }
    }
}
