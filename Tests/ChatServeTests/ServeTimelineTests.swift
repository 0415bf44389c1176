import ChatPosix
import ChatServe
import ChatTestSupport
import Foundation
import Glibc
import Testing

/// Timelines (issue #14 item 2, issue #12 item 13): by default the log plays like live chat, one
/// position shared by every client and channel, and a reconnecting client continues where the channel
/// is; with --from-start every JOIN gets its channel from the log's start.
@Suite(.timeLimit(.minutes(20))) struct ServeTimelineTests {
    static let privmsg = "Fixtures/lines/privmsg.irc"

    /// `count` PRIVMSGs of `#channel`, ids `m0`, `m1`, …, `gapMs` apart.
    static func numberedLog(_ directory: InputTempDirectory, count: Int, gapMs: Int, channel: String = "c") throws
        -> String
    {
        var text = ""
        for i in 0..<count {
            text +=
                "@id=m\(i);room-id=42;tmi-sent-ts=\(1_763_700_000_000 + i * gapMs) :u!u@u.tmi.twitch.tv PRIVMSG #\(channel) :line \(i)\r\n"
        }
        return try directory.write("numbered.irc", Array(text.utf8))
    }

    /// The `id` tags of the PRIVMSG lines among `lines`, in order.
    static func ids(_ lines: [String]) -> [String] {
        lines.filter { $0.contains(" PRIVMSG #") }.compactMap { line -> String? in
            guard let tags = line.split(separator: " ").first, tags.hasPrefix("@") else { return nil }
            for tag in tags.dropFirst().split(separator: ";") where tag.hasPrefix("id=") {
                return String(tag.dropFirst(3))
            }
            return nil
        }
    }

    @Test(
        "--from-start: a channel joined after another plays from the log's start, not the client's position (#12 item 13)"
    )
    func laterJoinStartsAtTheLogStart() throws {
        let server = try ServeHarness([Self.privmsg], options: ServeOptions(port: 0, speed: nil, fromStart: true))
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        _ = try client.join("pixelharbor")
        let pixelharbor = try client.lines(until: { $0.hasSuffix(":) hi chat") })
        #expect(pixelharbor.filter { $0.contains(" PRIVMSG #pixelharbor ") }.count == 24)
        // The log's only #lunafrost line (its last) was read past by the client's replay.
        try client.send("JOIN #lunafrost")
        let lunafrost = try client.lines(until: { $0.contains("good morning luna") }, timeoutMs: 2_000)
        #expect(lunafrost.filter { $0.contains(" PRIVMSG #lunafrost ") }.count == 1, "\(lunafrost)")
    }

    @Test("two clients of a channel see the same position: the later one does not get the earlier lines")
    func sharedPosition() throws {
        let directory = try InputTempDirectory()
        let log = try Self.numberedLog(directory, count: 30, gapMs: 100)
        let server = try ServeHarness([log], options: ServeOptions(port: 0, speed: 1))
        defer { server.stop() }
        let first = try ServeTestClient(port: server.port)
        _ = try first.login("justinfan1")
        _ = try first.join("c")
        var firstLines = try first.lines(10, timeoutMs: 3_000)
        #expect(Self.ids(firstLines) == (0..<10).map { "m\($0)" })
        let second = try ServeTestClient(port: server.port)
        _ = try second.login("justinfan2")
        _ = try second.join("c")
        // Whatever reached the first client by the time the second's JOIN was answered: the lines
        // played before the second joined are among them.
        firstLines += try first.drain(forMs: 1)
        let sentBeforeJoin = Self.ids(firstLines).count
        firstLines += try first.lines(until: { $0.hasSuffix(":line 29") }, timeoutMs: 5_000)
        let secondLines = try second.lines(until: { $0.hasSuffix(":line 29") }, timeoutMs: 5_000)
        let firstIds = Self.ids(firstLines)
        let secondIds = Self.ids(secondLines)
        #expect(firstIds == (0..<30).map { "m\($0)" })
        // The second client joined after m9, and before the line after the last one the first had at
        // its JOIN's answer: it starts there (however slow the machine, no window on time) and gets
        // exactly the rest, in the same order.
        let start = 30 - secondIds.count
        #expect(start >= 10 && start <= sentBeforeJoin, "the second client started at m\(start) (\(sentBeforeJoin))")
        #expect(secondIds == Array(firstIds[start...]))
    }

    @Test(
        "a client reconnecting after --drop-after gets no message id twice: the channel goes on, --loop ids are fresh")
    func reconnectGetsNoIdTwice() throws {
        let server = try ServeHarness(
            [Self.privmsg], options: ServeOptions(port: 0, speed: nil, loop: true, faults: ServeFaults(dropAfter: 5)))
        defer { server.stop() }
        var lines: [String] = []
        for connection in 1...7 {
            let client = try ServeTestClient(port: server.port)
            _ = try client.login("justinfan\(connection)")
            _ = try client.join("pixelharbor")
            lines += try client.drain(forMs: 1_000)
            #expect(client.ended, "connection \(connection) was dropped")
        }
        let ids = Self.ids(lines)
        // 7 connections of 5 lines: the log's 24 lines of the channel, then 11 of its second pass.
        #expect(lines.count == 35)
        #expect(ids.count == 35)
        #expect(Set(ids).count == 35, "\(ids.count - Set(ids).count) ids received twice")
    }

    @Test("--from-start: a channel joined later and a client joining second both get the channel from the log's start")
    func fromStartLaterJoin() throws {
        let server = try ServeHarness(
            [Self.privmsg], options: ServeOptions(port: 0, speed: nil, fromStart: true, keepTime: true))
        defer { server.stop() }
        let expected = try fixtureLines("privmsg.irc", channel: "pixelharbor")
        let first = try ServeTestClient(port: server.port)
        _ = try first.login("justinfan1")
        _ = try first.join("pixelharbor")
        #expect(try first.lines(expected.count) == expected)
        _ = try first.join("lunafrost")
        #expect(try first.lines(1) == (try fixtureLines("privmsg.irc", channel: "lunafrost")))
        let second = try ServeTestClient(port: server.port)
        _ = try second.login("justinfan2")
        _ = try second.join("pixelharbor")
        #expect(try second.lines(expected.count) == expected)
        #expect(try second.drain(forMs: 300).isEmpty)
    }

    @Test(
        "default: a channel joined later joins the log where it is; a client joining after the log's end gets nothing")
    func laterJoinIsLive() throws {
        let server = try ServeHarness([Self.privmsg])
        defer { server.stop() }
        let first = try ServeTestClient(port: server.port)
        _ = try first.login("justinfan1")
        _ = try first.join("pixelharbor")
        #expect(try first.lines(24).count == 24)
        // The log's only #lunafrost line (its last) was read past after #pixelharbor's: a live channel
        // has no past.
        _ = try first.join("lunafrost")
        #expect(try first.drain(forMs: 300).isEmpty)
        let second = try ServeTestClient(port: server.port)
        _ = try second.login("justinfan2")
        _ = try second.join("pixelharbor")
        #expect(try second.drain(forMs: 300).isEmpty)
        #expect(server.waitForReport(containing: "end of the log (pass 1): 24 lines played (#pixelharbor 24)") != nil)
    }

    @Test(
        "default, paced: a channel joined while the log waits for another channel's line still gets its lines on time")
    func sparseChannelJoinedLater() throws {
        let directory = try InputTempDirectory()
        var text = ""
        for (ms, channel, word) in [(0, "a", "a0"), (800, "b", "b1"), (1_200, "b", "b2"), (1_500, "a", "a3")] {
            text +=
                "@id=\(word);tmi-sent-ts=\(1_763_700_000_000 + ms) :u!u@u.tmi.twitch.tv PRIVMSG #\(channel) :\(word)\r\n"
        }
        let log = try directory.write("sparse.irc", Array(text.utf8))
        let server = try ServeHarness([log], options: ServeOptions(port: 0, speed: 1))
        defer { server.stop() }
        let first = try ServeTestClient(port: server.port)
        _ = try first.login("justinfan1")
        _ = try first.join("a")
        #expect(try first.lines(1).first?.hasSuffix(":a0") == true)
        let second = try ServeTestClient(port: server.port)
        _ = try second.login("justinfan2")
        _ = try second.join("b")
        #expect(
            try second.lines(2, timeoutMs: 3_000).map { $0.split(separator: ":").last.map(String.init) } == [
                "b1", "b2",
            ])
        #expect(try first.lines(1, timeoutMs: 3_000).first?.hasSuffix(":a3") == true)
    }

    @Test("default: a JOIN of a channel the log lacks does not start the log; the first channel of the log does")
    func unknownChannelDoesNotStartTheLog() throws {
        let server = try ServeHarness([Self.privmsg])
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        _ = try client.join("mybotchannel")
        #expect(try client.drain(forMs: 300).isEmpty)
        _ = try client.join("pixelharbor")
        #expect(try client.lines(24).filter { $0.contains(" PRIVMSG #pixelharbor ") }.count == 24)
    }

    @Test("default: channels joined in one burst all play from the log's start")
    func burstOfJoins() throws {
        let server = try ServeHarness([Self.privmsg])
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        try client.send("JOIN #pixelharbor", "JOIN #lunafrost")
        let lines = try client.lines(until: { $0.hasSuffix("good morning luna") })
        #expect(lines.filter { $0.contains(" PRIVMSG #pixelharbor ") }.count == 24)
        #expect(lines.filter { $0.contains(" PRIVMSG #lunafrost ") }.count == 1)
    }

    @Test("--loop: pass 2 has ids of its own, and its CLEARMSGs target the ids their messages have in pass 2")
    func loopIdsAndClearMsgTargets() throws {
        let server = try ServeHarness(
            ["Fixtures/lines/moderation.irc"], options: ServeOptions(port: 0, speed: nil, loop: true, keepTime: true))
        defer { server.stop() }
        let expected = try fixtureLines("moderation.irc", channel: "pixelharbor")
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        _ = try client.join("pixelharbor")
        let lines = try client.lines(expected.count * 2)
        #expect(lines.count == expected.count * 2)
        let first = Array(lines.prefix(expected.count))
        let second = Array(lines.suffix(expected.count))
        #expect(first == expected)
        var renamed: [String: String] = [:]  // pass-1 id -> pass-2 id, line by line
        for (a, b) in zip(first, second) {
            if let old = LineTags.value("id", in: a), let new = LineTags.value("id", in: b) {
                #expect(old != new)
                #expect(
                    new.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil)
                renamed[old] = new
            }
        }
        #expect(renamed.count == 8)
        let clearmsgs = zip(first, second).filter { $0.0.contains(" CLEARMSG ") }
        #expect(clearmsgs.count == 2)
        for (a, b) in clearmsgs {
            let target = try #require(LineTags.value("target-msg-id", in: a))
            #expect(
                LineTags.value("target-msg-id", in: b) == renamed[target], "pass 2's CLEARMSG names pass 2's message")
        }
    }
}
