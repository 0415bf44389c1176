import Testing

@testable import ChatServe

/// `ServeSession` without sockets: commands in, actions out.
@Suite struct ServeSessionTests {
    private func run(_ session: inout ServeSession, _ verb: String, _ params: String..., refused: Set<String> = [])
        -> [ServeAction]
    {
        session.receive(ClientCommand(verb: verb, params: params), refused: refused, rooms: RoomDirectory())
    }

    @Test("nothing but PING is answered before NICK; JOIN before the login is ignored")
    func beforeLogin() {
        var session = ServeSession()
        #expect(run(&session, "JOIN", "#a").isEmpty)
        #expect(run(&session, "PASS", "oauth:x").isEmpty)
        #expect(run(&session, "FOO").isEmpty)
        #expect(run(&session, "PING", "t") == [.send(":tmi.twitch.tv PONG tmi.twitch.tv :t")])
        #expect(!session.isRegistered)
    }

    @Test("an invalid login gets 432 and no welcome; logins are lower-cased")
    func nicknames() {
        var session = ServeSession()
        #expect(run(&session, "NICK", "bad-name!") == [.send(":tmi.twitch.tv 432 * bad-name! :Erroneous nickname")])
        #expect(!session.isRegistered)
        let welcome = run(&session, "NICK", "JustinFan99")
        #expect(welcome.count == 7)
        #expect(session.nick == "justinfan99")
        #expect(run(&session, "NICK", "other").isEmpty, "Twitch ignores a second NICK")
    }

    @Test("JOIN reports joined channels; PART only parts joined ones; refused channels are not joined")
    func channels() {
        var session = ServeSession()
        _ = run(&session, "NICK", "justinfan1")
        let actions = run(&session, "JOIN", "#a,#B,#c", refused: ["c"])
        #expect(actions.filter { if case .joined = $0 { true } else { false } } == [.joined("a"), .joined("b")])
        #expect(actions.contains(.refused("c")))
        #expect(session.channels == ["a", "b"])
        #expect(run(&session, "PART", "#zzz").isEmpty)
        #expect(
            run(&session, "PART", "#a") == [
                .send(":justinfan1!justinfan1@justinfan1.tmi.twitch.tv PART #a"), .parted("a"),
            ])
        #expect(session.channels == ["b"])
    }

    @Test("tags go out only after twitch.tv/tags was acknowledged; CAP REQ -cap removes it")
    func tagsCapability() {
        var session = ServeSession()
        #expect(!session.sendsTags)
        #expect(run(&session, "CAP", "REQ", "twitch.tv/tags") == [.send(":tmi.twitch.tv CAP * ACK :twitch.tv/tags")])
        #expect(session.sendsTags)
        #expect(session.tagged("a=1", "REST") == "@a=1 REST")
        _ = run(&session, "CAP", "REQ", "-twitch.tv/tags")
        #expect(!session.sendsTags)
        #expect(session.tagged("a=1", "REST") == "REST")
    }

    @Test("PRIVMSG is reported, QUIT closes, unknown commands get 421 after the login")
    func afterLogin() {
        var session = ServeSession()
        _ = run(&session, "NICK", "justinfan1")
        #expect(run(&session, "PRIVMSG", "#a", "hello there") == [.said(channel: "a", text: "hello there")])
        #expect(run(&session, "QUIT") == [.quit])
        #expect(run(&session, "MODE", "#a") == [.send(":tmi.twitch.tv 421 justinfan1 MODE :Unknown command")])
    }

    @Test("the earliest fault threshold fires first")
    func faults() {
        let faults = ServeFaults(reconnectAfter: 10, dropAfter: 5, stallAfter: nil)
        #expect(faults.due(afterSent: 4) == nil)
        #expect(faults.due(afterSent: 5) == .drop)
        #expect(ServeFaults(reconnectAfter: 0).due(afterSent: 0) == .reconnect)
        #expect(ServeFaults().due(afterSent: 1_000) == nil)
    }

    @Test("a channel the log does not name gets a stable made-up room id")
    func roomIds() {
        let rooms = RoomDirectory()
        #expect(rooms.id(of: "nolog") == rooms.id(of: "nolog"))
        #expect(rooms.id(of: "nolog") != rooms.id(of: "other"))
        #expect(rooms.id(of: "nolog").count == 9)
    }
}
