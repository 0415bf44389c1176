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
        #expect(welcome.count == 8, "001–004, 375, 372, 376, then .registered (no GLOBALUSERSTATE without commands)")
        #expect(welcome.last == .registered)
        #expect(session.nick == "justinfan99")
        #expect(session.displayName == "JustinFan99")
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

    @Test("PRIVMSG is relayed (no USERSTATE without commands), QUIT closes, unknown commands get 421 after the login")
    func afterLogin() {
        var session = ServeSession()
        session.makeMessageId = { "fixed-id" }
        _ = run(&session, "NICK", "justinfan1")
        #expect(
            run(&session, "PRIVMSG", "#a", "hello there") == [.said(channel: "a", text: "hello there", id: "fixed-id")])
        #expect(run(&session, "PRIVMSG", "#a", "").isEmpty, "an empty message is not sent")
        #expect(run(&session, "QUIT") == [.quit])
        #expect(run(&session, "MODE", "#a") == [.send(":tmi.twitch.tv 421 justinfan1 MODE :Unknown command")])
    }

    @Test(
        "with twitch.tv/commands: GLOBALUSERSTATE after 376, USERSTATE between 366 and ROOMSTATE, as Twitch sends them")
    func userStates() {
        var session = ServeSession()
        _ = run(&session, "CAP", "REQ", "twitch.tv/tags twitch.tv/commands")
        let welcome = run(&session, "NICK", "JustinFan7")
        let userId = RoomDirectory.stableId("justinfan7")
        #expect(
            Array(welcome.suffix(3)) == [
                .send(":tmi.twitch.tv 376 justinfan7 :>"),
                .send(
                    "@badge-info=;badges=;color=;display-name=JustinFan7;emote-sets=0;turbo=0;user-id=\(userId);"
                        + "user-type= :tmi.twitch.tv GLOBALUSERSTATE"),
                .registered,
            ])
        var rooms = RoomDirectory()
        rooms.learn(channel: "a")
        let join = session.receive(ClientCommand(verb: "JOIN", params: ["#a"]), refused: [], rooms: rooms)
        #expect(join.count == 6)
        #expect(
            join[3]
                == .send(
                    "@badge-info=;badges=;color=;display-name=JustinFan7;emote-sets=0;mod=0;subscriber=0;user-type= "
                        + ":tmi.twitch.tv USERSTATE #a"))
        #expect(
            join[4]
                == .send(
                    "@emote-only=0;followers-only=-1;r9k=0;room-id=\(rooms.id(of: "a"));slow=0;subs-only=0 :tmi.twitch.tv ROOMSTATE #a"
                ))
        #expect(join[5] == .joined("a"))
        session.makeMessageId = { "0a1b2c3d-0000-4000-8000-000000000001" }
        #expect(
            run(&session, "PRIVMSG", "#a", "\u{1}ACTION waves\u{1}") == [
                .send(
                    "@badge-info=;badges=;color=;display-name=JustinFan7;emote-sets=0;"
                        + "id=0a1b2c3d-0000-4000-8000-000000000001;mod=0;subscriber=0;user-type= :tmi.twitch.tv USERSTATE #a"
                ),
                .said(channel: "a", text: "\u{1}ACTION waves\u{1}", id: "0a1b2c3d-0000-4000-8000-000000000001"),
            ])
        #expect(run(&session, "PONG", "tmi.twitch.tv") == [.pong])
    }

    @Test("a JOIN of a channel the log does not have: empty joins it, refuse drops it without an answer")
    func unknownChannels() {
        var rooms = RoomDirectory()
        rooms.learn(channel: "known")
        for policy in [UnknownChannelPolicy.empty, .refuse] {
            var session = ServeSession()
            _ = run(&session, "NICK", "justinfan1")
            let actions = session.receive(
                ClientCommand(verb: "JOIN", params: ["#known,#nolog"]), refused: [], rooms: rooms,
                unknownChannel: policy)
            let joined = actions.filter { if case .joined = $0 { true } else { false } }
            switch policy {
            case .empty:
                #expect(joined == [.joined("known"), .joined("nolog")])
                #expect(actions.contains(.unknownChannel("nolog", refused: false)))
                #expect(session.channels == ["known", "nolog"])
            case .refuse:
                #expect(joined == [.joined("known")])
                #expect(actions.last == .unknownChannel("nolog", refused: true), "nothing is sent for #nolog")
                #expect(session.channels == ["known"])
            }
        }
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
