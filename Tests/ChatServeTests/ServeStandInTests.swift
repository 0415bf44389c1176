import ChatPosix
import ChatServe
import ChatTestSupport
import Foundation
import Glibc
import Testing
import TwitchSession

/// serve as a Twitch stand-in (issue #14 items 3–6): times rebased to now, a client's PRIVMSG relayed,
/// keepalive PINGs, captures served clean, unknown channels.
@Suite(.timeLimit(.minutes(20))) struct ServeStandInTests {
    static let privmsg = "Fixtures/lines/privmsg.irc"

    static var nowMs: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    @Test(
        "tmi-sent-ts and rm-received-ts are rebased to the moment of sending (their distance kept); --keep-time sends them as recorded"
    )
    func timeRebased() throws {
        let directory = try InputTempDirectory()
        let log = try directory.write(
            "timed.irc",
            Array(
                ("@id=a;rm-received-ts=1763700000250;tmi-sent-ts=1763700000000 :u!u@u.tmi.twitch.tv PRIVMSG #c :one\r\n"
                    + "@id=b;tmi-sent-ts=1763700000100 :u!u@u.tmi.twitch.tv PRIVMSG #c :two\r\n").utf8))
        for keepTime in [false, true] {
            let server = try ServeHarness([log], options: ServeOptions(port: 0, speed: nil, keepTime: keepTime))
            defer { server.stop() }
            let client = try ServeTestClient(port: server.port)
            _ = try client.login()
            _ = try client.join("c")
            let before = Self.nowMs
            let lines = try client.lines(2)
            let after = Self.nowMs
            #expect(lines.count == 2)
            let sent = lines.compactMap { LineTags.value("tmi-sent-ts", in: $0).flatMap { Int64($0) } }
            let received = try #require(LineTags.value("rm-received-ts", in: lines[0]).flatMap { Int64($0) })
            if keepTime {
                #expect(sent == [1_763_700_000_000, 1_763_700_000_100])
                #expect(received == 1_763_700_000_250)
            } else {
                #expect(sent.count == 2)
                for ts in sent { #expect(ts >= before - 2_000 && ts <= after + 2_000, "tmi-sent-ts \(ts) is not now") }
                #expect(received - sent[0] == 250, "rm-received-ts keeps its distance from tmi-sent-ts")
            }
        }
    }

    @Test(
        "a client's PRIVMSG reaches the others of the channel tagged as Twitch tags it; the sender gets USERSTATE, no echo"
    )
    func relay() throws {
        let server = try ServeHarness([Self.privmsg])
        defer { server.stop() }
        let sender = try ServeTestClient(port: server.port)
        _ = try sender.login("BotUnderTest")
        _ = try sender.join("pixelharbor")
        let listener = try ServeTestClient(port: server.port)
        _ = try listener.login("justinfan2")
        _ = try listener.join("pixelharbor")
        let plain = try ServeTestClient(port: server.port)
        _ = try plain.login("justinfan3", capabilities: nil)
        _ = try plain.join("pixelharbor")
        let elsewhere = try ServeTestClient(port: server.port)
        _ = try elsewhere.login("justinfan4")
        _ = try elsewhere.join("lunafrost")
        _ = try sender.lines(24)  // the channel's log
        _ = try elsewhere.lines(1)
        let before = Self.nowMs
        try sender.send("PRIVMSG #pixelharbor :hello from the bot", "PRIVMSG #pixelharbor :\u{1}ACTION waves\u{1}")
        let heard = try listener.lines(until: { $0.hasSuffix("ACTION waves\u{1}") }).filter {
            $0.contains(":botundertest!")
        }
        #expect(heard.count == 2)
        let line = try #require(heard.first)
        let userId = ServeServerTests.userId("botundertest")
        let id = try #require(LineTags.value("id", in: line))
        let ts = try #require(LineTags.value("tmi-sent-ts", in: line).flatMap { Int64($0) })
        #expect(
            line == "@badge-info=;badges=;color=;display-name=BotUnderTest;emotes=;first-msg=0;flags=;id=\(id);mod=0;"
                + "returning-chatter=0;room-id=141981764;subscriber=0;tmi-sent-ts=\(ts);turbo=0;user-id=\(userId);"
                + "user-type= :botundertest!botundertest@botundertest.tmi.twitch.tv PRIVMSG #pixelharbor :hello from the bot"
        )
        #expect(id.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil)
        #expect(ts >= before - 1_000 && ts <= Self.nowMs + 1_000)
        #expect(heard[1].hasSuffix(" PRIVMSG #pixelharbor :\u{1}ACTION waves\u{1}"), "/me is kept")
        #expect(LineTags.value("id", in: heard[1]) != id)
        // The sender: one USERSTATE per message, naming its id; no echo of its own message.
        let own = try sender.lines(2)
        #expect(
            own[0]
                == "@badge-info=;badges=;color=;display-name=BotUnderTest;emote-sets=0;id=\(id);mod=0;subscriber=0;"
                + "user-type= :tmi.twitch.tv USERSTATE #pixelharbor")
        #expect(own[1].hasSuffix(":tmi.twitch.tv USERSTATE #pixelharbor"))
        #expect(try sender.drain(forMs: 300).isEmpty)
        // Without twitch.tv/tags the line comes untagged; another channel hears nothing.
        let untagged = try plain.lines(until: { $0.hasSuffix("ACTION waves\u{1}") }).filter {
            $0.contains(":botundertest!")
        }
        #expect(
            untagged == [
                ":botundertest!botundertest@botundertest.tmi.twitch.tv PRIVMSG #pixelharbor :hello from the bot",
                ":botundertest!botundertest@botundertest.tmi.twitch.tv PRIVMSG #pixelharbor :\u{1}ACTION waves\u{1}",
            ])
        #expect(try elsewhere.drain(forMs: 300).isEmpty)
        try sender.send("QUIT")
        #expect(server.waitForReport(containing: "(botundertest) disconnected: 24 lines sent") != nil)
        try listener.send("QUIT")
        let farewell = try #require(server.waitForReport(containing: "(justinfan2) disconnected: "))
        #expect(farewell.hasSuffix(" lines sent, 2 relayed; the client quit"), "\(farewell)")
    }

    @Test(
        "keepalive: PING every interval; a client that does not answer is closed after the timeout, one that answers stays"
    )
    func keepalive() throws {
        let server = try ServeHarness(
            [Self.privmsg], options: ServeOptions(port: 0, speed: nil, pingIntervalMs: 1_000, pongTimeoutMs: 1_000))
        defer { server.stop() }
        let answering = try ServeTestClient(port: server.port)
        _ = try answering.login("justinfan1")
        let silent = try ServeTestClient(port: server.port)
        _ = try silent.login("justinfan2")
        let start = Moment.now().monotonicMs
        var pings = 0
        while Moment.now().monotonicMs - start < 3_500 {
            guard let line = try answering.line(timeoutMs: 100) else { continue }
            if line == "PING :tmi.twitch.tv" {
                pings += 1
                try answering.send("PONG :tmi.twitch.tv")
            }
        }
        #expect(pings == 3, "a PING a second")
        #expect(!answering.ended)
        let heard = try silent.drain(forMs: 100)
        #expect(heard.first == "PING :tmi.twitch.tv")
        #expect(silent.ended, "closed for not answering")
        #expect(
            server.waitForReport(containing: "(justinfan2) disconnected: 0 lines sent; no PONG within 1.0 s") != nil)
        #expect(!server.reports.contains { $0.contains("(justinfan1) disconnected") })
    }

    @Test(
        "a capture directory is served without the recording client's JOIN, names, USERSTATE, ROOMSTATE and time tags")
    func captureServedClean() throws {
        let directory = try InputTempDirectory()
        let t = "@time=2025-11-21T04:00:0"
        // The layout capture writes (gzip or not: the reader tells by the first bytes).
        try directory.write(
            "cap/_session/2025-11-21.log.gz",
            Array(
                ("\(t)0.000Z :tmi.twitch.tv 001 justinfan777 :Welcome, GLHF!\r\n"
                    + "\(t)0.010Z;badge-info=;badges=;color=;display-name=justinfan777;emote-sets=0;user-id=;user-type= "
                    + ":tmi.twitch.tv GLOBALUSERSTATE\r\n"
                    + "\(t)0.020Z :chatcap CAPTURE joined #pixelharbor :joined\r\n").utf8))
        try directory.write(
            "cap/pixelharbor/2025-11-21.log.gz",
            Array(
                ("\(t)0.100Z :justinfan777!justinfan777@justinfan777.tmi.twitch.tv JOIN #pixelharbor\r\n"
                    + "\(t)0.110Z :justinfan777.tmi.twitch.tv 353 justinfan777 = #pixelharbor :justinfan777\r\n"
                    + "\(t)0.120Z :justinfan777.tmi.twitch.tv 366 justinfan777 #pixelharbor :End of /NAMES list\r\n"
                    + "\(t)0.130Z;badge-info=;badges=;color=;display-name=justinfan777;emote-sets=0;mod=0;subscriber=0;"
                    + "user-type= :tmi.twitch.tv USERSTATE #pixelharbor\r\n"
                    + "\(t)0.140Z;emote-only=0;followers-only=-1;r9k=0;room-id=141981764;slow=0;subs-only=0 "
                    + ":tmi.twitch.tv ROOMSTATE #pixelharbor\r\n"
                    + "\(t)1.000Z;id=m1;room-id=141981764;tmi-sent-ts=1763697600900 :a!a@a.tmi.twitch.tv PRIVMSG #pixelharbor :one\r\n"
                    + "\(t)2.000Z :ronni!ronni@ronni.tmi.twitch.tv JOIN #pixelharbor\r\n"
                    + "\(t)3.000Z;room-id=141981764;slow=30 :tmi.twitch.tv ROOMSTATE #pixelharbor\r\n"
                    + "\(t)4.000Z;id=m2;room-id=141981764;tmi-sent-ts=1763697603900 :b!b@b.tmi.twitch.tv PRIVMSG #pixelharbor :two\r\n"
                    + "\(t)5.000Z :justinfan777!justinfan777@justinfan777.tmi.twitch.tv PART #pixelharbor\r\n").utf8))
        let server = try ServeHarness([directory.path + "/cap"])
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        _ = try client.join("pixelharbor")
        let served = try client.drain(forMs: 500)
        #expect(
            served == [
                "@id=m1;room-id=141981764;tmi-sent-ts=1763697600900 :a!a@a.tmi.twitch.tv PRIVMSG #pixelharbor :one",
                ":ronni!ronni@ronni.tmi.twitch.tv JOIN #pixelharbor",
                "@room-id=141981764;slow=30 :tmi.twitch.tv ROOMSTATE #pixelharbor",
                "@id=m2;room-id=141981764;tmi-sent-ts=1763697603900 :b!b@b.tmi.twitch.tv PRIVMSG #pixelharbor :two",
            ])
        #expect(
            server.waitForReport(
                containing:
                    "end of the log (pass 1): 4 lines played (#pixelharbor 4), 6 lines of the recording client left out"
            )
                != nil, "\(server.reports)")
    }

    @Test(
        "--unknown-channel: empty joins a channel the log lacks (explained once on stderr); refuse drops the JOIN silently"
    )
    func unknownChannel() throws {
        let empty = try ServeHarness([Self.privmsg])
        defer { empty.stop() }
        let client = try ServeTestClient(port: empty.port)
        _ = try client.login()
        let joined = try client.join("nolog")
        #expect(joined.count == 5)
        #expect(joined.first == ":justinfan123!justinfan123@justinfan123.tmi.twitch.tv JOIN #nolog")
        _ = try client.join("nolog2")
        #expect(try client.drain(forMs: 300).isEmpty)
        let reports = empty.reports.filter { $0.contains("is not in the log") }
        #expect(reports.count == 2)
        #expect(
            reports.first?.hasSuffix(
                "#nolog is not in the log: joined, with nothing to play (--unknown-channel empty); "
                    + "--unknown-channel refuse drops such JOINs, as Twitch does for a channel that does not exist")
                == true)
        #expect(
            reports.last?.hasSuffix("#nolog2 is not in the log: joined, with nothing to play (--unknown-channel empty)")
                == true)

        let refuse = try ServeHarness(
            [Self.privmsg], options: ServeOptions(port: 0, speed: nil, keepTime: true, unknownChannel: .refuse))
        defer { refuse.stop() }
        let refused = try ServeTestClient(port: refuse.port)
        _ = try refused.login()
        try refused.send("JOIN #nolog")
        #expect(try refused.drain(forMs: 500).isEmpty, "Twitch quietly drops a JOIN of a channel that does not exist")
        #expect(refuse.waitForReport(containing: "#nolog is not in the log: JOIN dropped without an answer") != nil)
        _ = try refused.join("pixelharbor")
        #expect(try refused.lines(24).count == 24, "a channel of the log still joins")
    }
}
