import ChatServe
import Foundation
import Glibc
import Testing

/// The test switches of `chatcap serve`: RECONNECT, drop, stall and refused JOINs, over real sockets.
@Suite(.timeLimit(.minutes(20))) struct ServeFaultTests {
    static let privmsg = "Fixtures/lines/privmsg.irc"

    @Test("--reconnect-after N: N lines, then RECONNECT, then the connection closes")
    func reconnect() throws {
        let expected = try fixtureLines("privmsg.irc", channel: "pixelharbor")
        let server = try ServeHarness(
            [Self.privmsg],
            options: ServeOptions(port: 0, speed: nil, keepTime: true, faults: ServeFaults(reconnectAfter: 5)))
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        _ = try client.join("pixelharbor")
        #expect(try client.drain(forMs: 2_000) == Array(expected.prefix(5)) + [":tmi.twitch.tv RECONNECT"])
        #expect(client.ended)
        #expect(
            server.waitForReport(containing: "disconnected: 5 lines sent; sent RECONNECT after 5 lines") != nil,
            "\(server.reports)")
    }

    @Test("--reconnect-grace: after RECONNECT the client goes on playing, and is closed when the grace ends")
    func reconnectGrace() throws {
        let expected = try fixtureLines("privmsg.irc", channel: "pixelharbor")
        var faults = ServeFaults(reconnectAfter: 5)
        faults.reconnectGraceMs = 800
        let server = try ServeHarness(
            [Self.privmsg], options: ServeOptions(port: 0, speed: nil, keepTime: true, faults: faults))
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        _ = try client.join("pixelharbor")
        let started = Date()
        let received = try client.drain(forMs: 3_000)
        #expect(received == Array(expected.prefix(5)) + [":tmi.twitch.tv RECONNECT"] + Array(expected.dropFirst(5)))
        #expect(expected.count > 5, "lines are played after the RECONNECT")
        #expect(client.ended)
        let report = server.waitForReport(containing: "sent RECONNECT after 5 lines")
        #expect(report != nil, "\(server.reports)")
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed >= 0.7, "closed after the 0.8 s grace, not before: \(elapsed) s")
    }

    @Test("--drop-after N: N lines, then the connection closes without a word")
    func drop() throws {
        let expected = try fixtureLines("privmsg.irc", channel: "pixelharbor")
        let server = try ServeHarness(
            [Self.privmsg],
            options: ServeOptions(port: 0, speed: nil, keepTime: true, faults: ServeFaults(dropAfter: 3)))
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        _ = try client.join("pixelharbor")
        #expect(try client.drain(forMs: 2_000) == Array(expected.prefix(3)))
        #expect(client.ended)
        #expect(
            server.waitForReport(containing: "disconnected: 3 lines sent; dropped after 3 lines") != nil,
            "\(server.reports)")
    }

    @Test("--stall-after N: N lines, then silence: no more lines, no PONG, but the connection stays open")
    func stall() throws {
        let expected = try fixtureLines("privmsg.irc", channel: "pixelharbor")
        let server = try ServeHarness(
            [Self.privmsg],
            options: ServeOptions(port: 0, speed: nil, keepTime: true, faults: ServeFaults(stallAfter: 4)))
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        try client.send("PING :before")
        #expect(try client.line() == ":tmi.twitch.tv PONG tmi.twitch.tv :before")
        _ = try client.join("pixelharbor")
        #expect(try client.lines(4) == Array(expected.prefix(4)))
        try client.send("PING :after")
        #expect(try client.drain(forMs: 600).isEmpty, "neither lines nor a PONG after the stall")
        #expect(!client.ended, "the connection stays open")
        #expect(server.reports.contains { $0.contains("stalled after 4 lines") })
    }

    @Test("--refuse-join: Twitch's msg_channel_suspended NOTICE and no echo; other channels still join")
    func refuseJoin() throws {
        let server = try ServeHarness(
            [Self.privmsg],
            options: ServeOptions(
                port: 0, speed: nil, keepTime: true, faults: ServeFaults(refusedChannels: ["lunafrost"])))
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        #expect(
            try client.join("lunafrost") == [
                "@msg-id=msg_channel_suspended :tmi.twitch.tv NOTICE #lunafrost :This channel does not exist or has been suspended."
            ])
        #expect(try client.drain(forMs: 200).isEmpty, "no echo and no replay for a refused channel")
        let joined = try client.join("pixelharbor")
        #expect(joined.first == ":justinfan123!justinfan123@justinfan123.tmi.twitch.tv JOIN #pixelharbor")
        let replayed = try client.drain(forMs: 500)
        #expect(replayed.count == 24)
        #expect(replayed.allSatisfy { $0.contains(" #pixelharbor ") })
    }

    @Test("fault counts of 0 fire as soon as the replay starts")
    func reconnectAtOnce() throws {
        let server = try ServeHarness(
            [Self.privmsg],
            options: ServeOptions(port: 0, speed: nil, keepTime: true, faults: ServeFaults(reconnectAfter: 0)))
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        let lines = try client.drain(forMs: 1_000)
        #expect(lines.isEmpty, "nothing happens before a JOIN")
        _ = try client.join("pixelharbor")
        #expect(try client.drain(forMs: 1_000) == [":tmi.twitch.tv RECONNECT"])
        #expect(client.ended)
    }
}
