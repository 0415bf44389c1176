import ChatPosix
import ChatServe
import ChatTestSupport
import Foundation
import Glibc
import IRCWire
import Testing
import TwitchSession

/// `ChatServer` over real sockets on 127.0.0.1: the login, JOIN, the replay and its filter, PING.
@Suite(.timeLimit(.minutes(20))) struct ServeServerTests {
    static let privmsg = "Fixtures/lines/privmsg.irc"

    @Test(
        "the login is answered like Twitch: CAP ACK, 001–004, the MOTD, then GLOBALUSERSTATE, in order; PASS is never reported"
    )
    func handshake() throws {
        let server = try ServeHarness([Self.privmsg])
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        let welcome = try client.login(
            "justinfan123", capabilities: "twitch.tv/tags twitch.tv/commands twitch.tv/membership")
        #expect(
            welcome == [
                ":tmi.twitch.tv CAP * ACK :twitch.tv/tags twitch.tv/commands twitch.tv/membership",
                ":tmi.twitch.tv 001 justinfan123 :Welcome, GLHF!",
                ":tmi.twitch.tv 002 justinfan123 :Your host is tmi.twitch.tv",
                ":tmi.twitch.tv 003 justinfan123 :This server is rather new",
                ":tmi.twitch.tv 004 justinfan123 :-",
                ":tmi.twitch.tv 375 justinfan123 :-",
                ":tmi.twitch.tv 372 justinfan123 :You are in a maze of twisty passages, all alike.",
                ":tmi.twitch.tv 376 justinfan123 :>",
                "@badge-info=;badges=;color=;display-name=justinfan123;emote-sets=0;turbo=0;user-id="
                    + "\(Self.userId("justinfan123"));user-type= :tmi.twitch.tv GLOBALUSERSTATE",
            ])
        try client.send("QUIT")
        #expect(server.waitForReport(containing: "disconnected") != nil)
        #expect(!server.reports.joined().contains("not-a-real-token"))
        #expect(!server.reports.joined().contains("PASS"))
    }

    @Test("CAP LS holds the welcome until CAP END, as an IRCv3 server does")
    func capabilityNegotiation() throws {
        let server = try ServeHarness([Self.privmsg])
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        try client.send("CAP LS 302", "NICK justinfan7", "USER justinfan7 8 * :justinfan7")
        #expect(try client.line() == ":tmi.twitch.tv CAP * LS :twitch.tv/tags twitch.tv/commands twitch.tv/membership")
        #expect(try client.line(timeoutMs: 200) == nil, "no welcome before CAP END")
        try client.send("CAP REQ :twitch.tv/membership", "CAP END")
        #expect(try client.line() == ":tmi.twitch.tv CAP * ACK :twitch.tv/membership")
        #expect(try client.line() == ":tmi.twitch.tv 001 justinfan7 :Welcome, GLHF!")
        try client.send("CAP REQ :twitch.tv/tags sasl")
        #expect(try client.lines(until: { $0.contains("NAK") }).last == ":tmi.twitch.tv CAP * NAK :twitch.tv/tags sasl")
    }

    @Test(
        "JOIN is echoed with 353, 366, USERSTATE and a full ROOMSTATE (room id from the log), for each channel of a list"
    )
    func join() throws {
        let server = try ServeHarness([Self.privmsg])
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        try client.send("JOIN #PixelHarbor,#nolog")
        let replies = try client.lines(until: { $0.hasSuffix("ROOMSTATE #nolog") })
        #expect(
            Array(replies.prefix(5)) == [
                ":justinfan123!justinfan123@justinfan123.tmi.twitch.tv JOIN #pixelharbor",
                ":justinfan123.tmi.twitch.tv 353 justinfan123 = #pixelharbor :justinfan123",
                ":justinfan123.tmi.twitch.tv 366 justinfan123 #pixelharbor :End of /NAMES list",
                "@badge-info=;badges=;color=;display-name=justinfan123;emote-sets=0;mod=0;subscriber=0;user-type= "
                    + ":tmi.twitch.tv USERSTATE #pixelharbor",
                "@emote-only=0;followers-only=-1;r9k=0;room-id=141981764;slow=0;subs-only=0 :tmi.twitch.tv ROOMSTATE #pixelharbor",
            ])
        // The replay may interleave with the second channel's replies; its own lines come in order.
        let nolog = replies.filter { $0.contains("#nolog") }
        #expect(nolog.count == 5)
        #expect(nolog.first == ":justinfan123!justinfan123@justinfan123.tmi.twitch.tv JOIN #nolog")
        let roomstate = try #require(nolog.last)
        #expect(roomstate.hasPrefix("@emote-only=0;followers-only=-1;r9k=0;room-id="))
        #expect(roomstate.hasSuffix(";slow=0;subs-only=0 :tmi.twitch.tv ROOMSTATE #nolog"))
        try client.send("PART #nolog")
        #expect(
            try client.lines(until: { $0.contains("PART") }).last
                == ":justinfan123!justinfan123@justinfan123.tmi.twitch.tv PART #nolog")
    }

    @Test(
        "every line of the joined channel arrives, byte for byte and in order, and nothing of other channels",
        arguments: ["pixelharbor", "lunafrost"])
    func replaysJoinedChannelOnly(channel: String) throws {
        let expected = try fixtureLines("privmsg.irc", channel: channel)
        #expect(!expected.isEmpty)
        let server = try ServeHarness([Self.privmsg])
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        _ = try client.join(channel)
        let replayed = try client.lines(expected.count)
        #expect(replayed == expected)
        #expect(try client.drain(forMs: 300).isEmpty, "nothing after the channel's last line")
        try client.send("QUIT")
        #expect(
            server.waitForReport(
                containing: "disconnected: \(expected.count) line\(expected.count == 1 ? "" : "s") sent") != nil,
            "\(server.reports)")
    }

    @Test("without twitch.tv/tags the lines go out without their tags, as Twitch does")
    func tagsStripped() throws {
        let expected = try fixtureLines("privmsg.irc", channel: "pixelharbor").map { line in
            String(line[line.index(after: line.firstIndex(of: " ")!)...])
        }
        let server = try ServeHarness([Self.privmsg])
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login(capabilities: nil)
        let join = try client.join("pixelharbor")
        #expect(join.last == ":tmi.twitch.tv ROOMSTATE #pixelharbor")
        #expect(try client.lines(expected.count) == expected)
    }

    @Test("PING is answered with Twitch's PONG, before and after the login; unknown commands get 421")
    func pingAndUnknown() throws {
        let server = try ServeHarness([Self.privmsg])
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        try client.send("PING :early")
        #expect(try client.line() == ":tmi.twitch.tv PONG tmi.twitch.tv :early")
        _ = try client.login()
        try client.send("PING :tmi.twitch.tv", "WHO #pixelharbor", "PING x")
        #expect(
            try client.lines(3) == [
                ":tmi.twitch.tv PONG tmi.twitch.tv :tmi.twitch.tv",
                ":tmi.twitch.tv 421 justinfan123 WHO :Unknown command",
                ":tmi.twitch.tv PONG tmi.twitch.tv :x",
            ])
    }

    @Test("--from-start: each client has its own position, a second client gets the log from its start")
    func independentPositions() throws {
        let expected = try fixtureLines("privmsg.irc", channel: "pixelharbor")
        let server = try ServeHarness(
            [Self.privmsg], options: ServeOptions(port: 0, speed: nil, fromStart: true, keepTime: true))
        defer { server.stop() }
        let first = try ServeTestClient(port: server.port)
        _ = try first.login("justinfan1")
        _ = try first.join("pixelharbor")
        #expect(try first.lines(expected.count) == expected)
        let second = try ServeTestClient(port: server.port)
        _ = try second.login("justinfan2")
        _ = try second.join("pixelharbor")
        #expect(try second.lines(expected.count) == expected)
    }

    @Test("--speed paces lines by their timestamps: 30 s of log at 60x take about half a second")
    func paced() throws {
        let expected = try fixtureLines("privmsg.irc", channel: "pixelharbor")
        let server = try ServeHarness([Self.privmsg], options: ServeOptions(port: 0, speed: 60, keepTime: true))
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        _ = try client.join("pixelharbor")
        let start = Moment.now().monotonicMs
        let first = try client.lines(1)
        let firstAt = Moment.now().monotonicMs - start
        let rest = try client.lines(expected.count - 1, timeoutMs: 5_000)
        let elapsed = Moment.now().monotonicMs - start
        #expect(first + rest == expected)
        #expect(firstAt < 200, "the first line is due at once")
        // 1763700030457 - 1763700001971 ms of log (the last #pixelharbor line) at 60x: 475 ms.
        #expect(elapsed >= 400 && elapsed < 3_000, "took \(elapsed) ms")
    }

    @Test(
        "a speed as small as a Double gets, over lines 8,000 years apart: the JOIN is served, the far line waits, PING is answered",
        arguments: [1e-300, 0.001])
    func extremeSpeedAtJoin(speed: Double) throws {
        let directory = try InputTempDirectory()
        let path = try directory.file("far.irc")
        let lines = [
            "@tmi-sent-ts=0 :a!a@a.tmi.twitch.tv PRIVMSG #c :first",
            "@tmi-sent-ts=253402300799999 :a!a@a.tmi.twitch.tv PRIVMSG #c :in the year 9999",
        ]
        try lines.map { $0 + "\r\n" }.joined().write(toFile: path, atomically: true, encoding: .utf8)
        let server = try ServeHarness(
            [path], options: ServeOptions(port: 0, speed: speed, fromStart: true, keepTime: true))
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        #expect(try client.join("c").last?.hasSuffix(" :tmi.twitch.tv ROOMSTATE #c") == true)
        #expect(try client.line() == lines[0])
        #expect(try client.line(timeoutMs: 300) == nil, "the far line waits")
        try client.send("PING :alive")
        #expect(try client.line() == ":tmi.twitch.tv PONG tmi.twitch.tv :alive")
        let second = try ServeTestClient(port: server.port)
        _ = try second.login("justinfan2")
        _ = try second.join("c")
        #expect(try second.line() == lines[0])
    }

    @Test("--loop starts the channel over at the end of the log; each pass after the first has fresh message ids")
    func loops() throws {
        let expected = try fixtureLines("privmsg.irc", channel: "pixelharbor")
        let server = try ServeHarness(
            [Self.privmsg], options: ServeOptions(port: 0, speed: nil, loop: true, keepTime: true))
        defer { server.stop() }
        let client = try ServeTestClient(port: server.port)
        _ = try client.login()
        _ = try client.join("pixelharbor")
        let lines = try client.lines(expected.count * 2 + 3)
        #expect(Array(lines.prefix(expected.count)) == expected, "the first pass as recorded")
        #expect(
            lines.map(Self.withoutId) == (expected + expected + expected.prefix(3)).map(Self.withoutId),
            "every pass the same lines but for their ids")
        let ids = ServeTimelineTests.ids(lines)
        #expect(ids.count == lines.count)
        #expect(Set(ids).count == ids.count, "no id twice over three passes")
        // A reply names its parent by the parent's id of the same pass.
        let secondPass = Array(lines[expected.count..<(2 * expected.count)])
        let parent = try #require(secondPass.first { $0.hasSuffix(":good evening chat, what did I miss?") })
        let reply = try #require(secondPass.first { $0.contains(":@NightOwlGG you missed the boss fight") })
        let parentId = try #require(ServeTimelineTests.ids([parent]).first)
        #expect(reply.contains(";reply-parent-msg-id=\(parentId);"))
        #expect(reply.contains(";reply-thread-parent-msg-id=\(parentId);"))
    }

    /// `line` with the values of its message-id tags left out.
    static func withoutId(_ line: String) -> String {
        line.replacing(/(?<key>[@;](id|reply-parent-msg-id|reply-thread-parent-msg-id|target-msg-id))=[^; ]*/) {
            "\($0.output.key)="
        }
    }

    /// The user-id serve gives `login` (FNV-1a of the login, as RoomDirectory makes ids).
    static func userId(_ login: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in login.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return String(100_000_000 + hash % 900_000_000)
    }

    @Test("a log read from standard input or a pipe is held in memory and replayed to every client (--from-start)")
    func pipedInput() throws {
        let directory = try InputTempDirectory()
        let fifo = directory.path + "/log.fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        let bytes = try Fixtures.bytes("lines/privmsg.irc")
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        writer.start()
        let server = try ServeHarness(
            [fifo], options: ServeOptions(port: 0, speed: nil, fromStart: true, keepTime: true))
        defer { server.stop() }
        let expected = try fixtureLines("privmsg.irc", channel: "pixelharbor")
        for nick in ["justinfan1", "justinfan2"] {
            let client = try ServeTestClient(port: server.port)
            _ = try client.login(nick)
            _ = try client.join("pixelharbor")
            #expect(try client.lines(expected.count) == expected)
        }
    }

    @Test("a client that does not read holds the replay back: the log is not queued for it")
    func backPressure() throws {
        let directory = try InputTempDirectory()
        let line = try #require(try fixtureLines("privmsg.irc", channel: "pixelharbor").first)
        // ~34 MB: several times what the kernel buffers on loopback for one connection (about 9 MB
        // here: the server's send buffer grows to tcp_wmem's 4 MB maximum, doubled by the kernel).
        let count = 80_000
        var log: [UInt8] = []
        log.reserveCapacity(count * (line.utf8.count + 2))
        for _ in 0..<count { log += Array(line.utf8) + [0x0D, 0x0A] }
        let path = try directory.write("big.irc", log)
        let server = try ServeHarness([path])
        defer { server.stop() }
        // A small receive buffer keeps the kernel from soaking up the log on the client's behalf.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var size: Int32 = 8 * 1024
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = server.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0)
        let login = "NICK justinfan5\r\nJOIN #pixelharbor\r\n"
        _ = write(descriptor, login, login.utf8.count)
        usleep(500_000)
        close(descriptor)
        let report = try #require(server.waitForReport(containing: "disconnected"))
        let sent = try #require(
            report.split(separator: " ").firstIndex(of: "lines").map {
                Int(report.split(separator: " ")[$0 - 1]) ?? -1
            })
        #expect(sent > 0 && sent < count / 2, "\(report)")
    }
}
