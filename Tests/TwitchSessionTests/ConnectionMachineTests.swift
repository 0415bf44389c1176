import IRCWire
import Testing
import TwitchSession

@Suite struct ConnectionMachineTests {
    @Test("start asks for a connection, then CAP REQ and NICK; anonymous sends no PASS")
    func anonymousHandshake() throws {
        var driver = SessionDriver(channels: ["a"])
        #expect(driver.startMachine() == [.connect(after: 0)])
        let actions = driver.send(.connected)
        #expect(actions.records == [.connected(attempt: 1, at: SessionDriver.start.wall)])
        #expect(actions.sentVerbs == ["CAP", "NICK", "USER"])
        #expect(actions.sent[0] == .capabilityRequest())
        let wire = try String(decoding: actions.sent[0].wireBytes(), as: UTF8.self)
        #expect(wire == "CAP REQ :twitch.tv/tags twitch.tv/commands twitch.tv/membership\r\n")
        let nick = actions.sent[1].params[0]
        #expect(nick.hasPrefix("justinfan"))
        #expect(nick.count > "justinfan".count && nick.dropFirst(9).allSatisfy(\.isNumber))
        #expect(driver.machine.phase == .registering)
    }

    @Test("the anonymous nick depends on the seed only")
    func anonymousNickIsSeeded() {
        let a = ConnectionMachine(channels: [], seed: 1).nick
        #expect(a == ConnectionMachine(channels: [], seed: 1).nick)
        let others = Set((2..<20).map { ConnectionMachine(channels: [], seed: $0).nick })
        #expect(others.count > 10)
    }

    @Test("with a token: CAP REQ, then PASS, then NICK with the login")
    func tokenHandshake() throws {
        let credentials = try Credentials.oauth(login: "NightOwl", token: "abc123secret")
        var driver = SessionDriver(channels: ["a"], credentials: credentials)
        driver.startMachine()
        let sent = driver.send(.connected).sent
        #expect(sent.map(\.verb) == ["CAP", "PASS", "NICK", "USER"])
        #expect(sent[1] == .pass(token: "abc123secret"))
        #expect(sent[1].isSecret)
        #expect(sent[2] == .nick("nightowl"))
        #expect(!"\(sent[1])".contains("abc123secret"))
    }

    @Test("JOINs wait for the welcome; CAP ACK is reported and followed by CAP END")
    func joinsAfterWelcome() {
        var driver = SessionDriver(channels: ["a", "b"])
        driver.startMachine()
        driver.send(.connected)
        let ack = driver.receive(":tmi.twitch.tv CAP * ACK :twitch.tv/tags twitch.tv/commands twitch.tv/membership")
        #expect(
            ack.records == [.capabilities(.acknowledged(OutgoingMessage.twitchCapabilities), at: driver.now.wall)])
        #expect(ack.sent == [OutgoingMessage(verb: "CAP", params: ["END"])])
        #expect(ack.joined.isEmpty)
        let welcome = driver.receive(":tmi.twitch.tv 001 \(driver.machine.nick) :Welcome, GLHF!")
        #expect(welcome.joined == ["a", "b"])
        #expect(driver.machine.phase == .ready)
    }

    @Test("the welcome's nick is adopted, so our JOIN echo is recognised under it")
    func welcomeNickIsAdopted() {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.send(.connected)
        driver.receive(":tmi.twitch.tv 001 justinfan999 :Welcome")
        #expect(driver.machine.nick == "justinfan999")
        let echo = driver.receive(":justinfan999!justinfan999@justinfan999.tmi.twitch.tv JOIN #a")
        #expect(echo.joinedRecords == ["a"])
    }

    @Test("CAP NAK: reported as degraded, CAP END sent, the session goes on")
    func capabilityRejected() {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.send(.connected)
        let nak = driver.receive(":irc.example.net CAP * NAK :twitch.tv/tags twitch.tv/commands twitch.tv/membership")
        let outcome = CapabilityOutcome.rejected(OutgoingMessage.twitchCapabilities)
        #expect(nak.records == [.capabilities(outcome, at: driver.now.wall)])
        #expect(outcome.isDegraded && outcome.description.contains("continuing without"))
        #expect(nak.sentVerbs == ["CAP"])
        let welcome = driver.receive(":irc.example.net 001 \(driver.machine.nick) :Welcome to ExampleNet")
        #expect(welcome.joined == ["a"])
        // A plain server echoes JOIN without tags: still recognised.
        #expect(driver.echoJoins(["a"]).joinedRecords == ["a"])
    }

    @Test("no answer to CAP REQ: degraded after the timeout, CAP END lets a plain server register")
    func capabilityTimeout() {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.send(.connected)
        #expect(driver.advance(by: 4_999).records.isEmpty)
        let timeout = driver.advance(by: 1)
        #expect(timeout.records == [.capabilities(.noAnswer(afterMs: 5_000), at: driver.now.wall)])
        #expect(timeout.sent == [OutgoingMessage(verb: "CAP", params: ["END"])])
        #expect(driver.machine.capabilityOutcome?.isDegraded == true)
        // A late ACK is not reported twice.
        #expect(driver.receive(":s CAP * ACK :twitch.tv/tags").records.isEmpty)
        #expect(driver.receive(":s 001 \(driver.machine.nick) :Welcome").joined == ["a"])
    }

    @Test("a partial CAP ACK is reported with what is missing")
    func capabilityPartial() {
        var driver = SessionDriver(channels: [])
        driver.startMachine()
        driver.send(.connected)
        let ack = driver.receive(":s CAP * ACK :twitch.tv/tags")
        #expect(
            ack.records == [
                .capabilities(
                    .partial(granted: ["twitch.tv/tags"], missing: ["twitch.tv/commands", "twitch.tv/membership"]),
                    at: driver.now.wall)
            ])
    }

    @Test("PING is answered with PONG echoing the token")
    func pingPong() throws {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.connectAndRegister()
        let actions = driver.receive("PING :tmi.twitch.tv")
        #expect(actions.sent == [.pong("tmi.twitch.tv")])
        #expect(try String(decoding: actions.sent[0].wireBytes(), as: UTF8.self) == "PONG tmi.twitch.tv\r\n")
        #expect(driver.receive("PING :a token with spaces").sent == [.pong("a token with spaces")])
    }

    @Test("after 60 s without a line we PING; a reply keeps the connection")
    func idlePingAnswered() {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.connectAndRegister()
        driver.echoJoins(["a"])
        #expect(driver.advance(by: 59_999).sent.isEmpty)
        let probe = driver.advance(by: 1)
        #expect(probe.sentVerbs == ["PING"])
        #expect(driver.receive(":tmi.twitch.tv PONG tmi.twitch.tv :\(probe.sent[0].params[0])").isEmpty)
        let later = driver.advance(by: 30_000)
        #expect(later.closeReasons.isEmpty && later.sent.isEmpty)
    }

    @Test("a chat line resets the idle timer")
    func chatLineResetsIdle() {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.connectAndRegister()
        driver.advance(by: 50_000)
        driver.receive("@id=1 :u!u@u.tmi.twitch.tv PRIVMSG #a :hello")
        #expect(driver.advance(by: 59_999).sent.isEmpty)
        #expect(driver.advance(by: 1).sentVerbs == ["PING"])
    }

    @Test(
        "chatReceived (the session's path for PRIVMSG and USERNOTICE) resets the idle timer and answers a probe as a chat line does"
    )
    func chatReceivedAsAChatLine() {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.connectAndRegister()
        driver.echoJoins(["a"])
        driver.advance(by: 50_000)
        driver.machine.chatReceived(at: driver.now)
        #expect(driver.advance(by: 59_999).sent.isEmpty)
        #expect(driver.advance(by: 1).sentVerbs == ["PING"], "idle 60 s after the chat line")
        driver.advance(by: 5_000)
        driver.machine.chatReceived(at: driver.now)
        let later = driver.advance(by: 30_000)
        #expect(later.closeReasons.isEmpty && later.sent.isEmpty, "the chat line answered the probe")
    }

    @Test(
        "ServerLine.mayControl: a line whose command it leaves out classifies as other; each command it names has a line that is not"
    )
    func mayControlMatchesTheClassifier() throws {
        func line(_ raw: String) throws -> (command: TwitchCommand, kind: ServerLine) {
            let bytes = Array(raw.utf8)
            let message = try TwitchMessage.parse(bytes.span)
            return (message.command, ServerLine(message, in: bytes.span, ownNick: "me"))
        }
        let chat = [
            "@id=1 :u!u@u.tmi.twitch.tv PRIVMSG #a :hello", "@msg-id=sub :tmi.twitch.tv USERNOTICE #a :hi",
            ":tmi.twitch.tv CLEARCHAT #a :u", "@target-msg-id=1 :tmi.twitch.tv CLEARMSG #a :x",
            "@slow=0 :tmi.twitch.tv ROOMSTATE #a", ":tmi.twitch.tv USERSTATE #a", ":tmi.twitch.tv GLOBALUSERSTATE",
            ":u!u@u.tmi.twitch.tv PART #a", ":tmi.twitch.tv 002 me :Your host is tmi.twitch.tv",
            ":me.tmi.twitch.tv 353 me = #a :me", ":tmi.twitch.tv HOSTTARGET #a :b 3",
        ]
        for raw in chat {
            let (command, kind) = try line(raw)
            #expect(!ServerLine.mayControl(command), "\(raw)")
            #expect(kind == .other, "\(raw)")
        }
        let control = [
            "PING :tmi.twitch.tv", ":tmi.twitch.tv PONG tmi.twitch.tv :x", ":tmi.twitch.tv CAP * ACK :twitch.tv/tags",
            ":tmi.twitch.tv 001 me :Welcome, GLHF!", ":me!me@me.tmi.twitch.tv JOIN #a",
            "@msg-id=msg_banned :tmi.twitch.tv NOTICE #a :banned", ":tmi.twitch.tv RECONNECT",
        ]
        for raw in control {
            let (command, kind) = try line(raw)
            #expect(ServerLine.mayControl(command), "\(raw)")
            #expect(kind != .other, "\(raw)")
        }
    }

    @Test("no reply to our PING within 10 s: the connection is dead, closed and reconnected")
    func deadConnection() {
        var settings = ConnectionSettings()
        settings.backoff.jitter = .none
        var driver = SessionDriver(channels: ["a"], settings: settings)
        driver.startMachine()
        driver.connectAndRegister()
        driver.echoJoins(["a"])
        #expect(driver.advance(by: 60_000).sentVerbs == ["PING"])
        #expect(driver.advance(by: 9_999).closeReasons.isEmpty)
        let dead = driver.advance(by: 1)
        #expect(dead.closeReasons == [.unresponsive])
        #expect(dead.records.contains(.disconnected(.unresponsive, at: driver.now.wall)))
        #expect(dead.connectDelays == [1_000])
        #expect(driver.machine.phase == .connecting)
    }

    @Test("RECONNECT with the overlap off closes the connection and connects again after a short jittered delay")
    func serverReconnect() {
        var settings = ConnectionSettings()
        settings.overlapReconnects = false
        var driver = SessionDriver(channels: ["a"], settings: settings)
        driver.startMachine()
        driver.connectAndRegister()
        let actions = driver.receive(":tmi.twitch.tv RECONNECT")
        #expect(actions.closeReasons == [.serverRequestedReconnect])
        #expect(actions.connectDelays.count == 1)
        #expect((0...1_000).contains(actions.connectDelays[0]))
        #expect(driver.machine.phase == .connecting)
        // The next connection logs in again and rejoins.
        let again = driver.connectAndRegister()
        #expect(again.sentVerbs.prefix(2) == ["CAP", "NICK"])
        #expect(again.joined == ["a"])
        #expect(driver.machine.connectionCount == 2)
    }

    @Test("no welcome within 20 s: the connection is given up and retried")
    func registrationTimeout() {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.send(.connected)
        driver.receive(":s CAP * ACK :twitch.tv/tags twitch.tv/commands twitch.tv/membership")
        #expect(driver.advance(by: 19_999).closeReasons.isEmpty)
        let actions = driver.advance(by: 1)
        #expect(actions.closeReasons == [.registrationTimedOut])
        #expect(actions.connectDelays.count == 1)
    }

    @Test("Login authentication failed is fatal: one clear record, closed, never retried")
    func authenticationFailure() throws {
        let credentials = try Credentials.oauth(login: "owl", token: "oauth:badbadbad")
        var driver = SessionDriver(channels: ["a"], credentials: credentials)
        driver.startMachine()
        driver.send(.connected)
        let actions = driver.receive(":tmi.twitch.tv NOTICE * :Login authentication failed")
        #expect(actions.closeReasons == [.authenticationFailed("Login authentication failed")])
        #expect(actions.connectDelays.isEmpty)
        let fatal = actions.records.compactMap { if case .fatal(let message, _) = $0 { message } else { nil } }
        #expect(fatal.count == 1)
        #expect(fatal[0].contains("'owl'") && fatal[0].contains("Login authentication failed"))
        #expect(fatal[0].contains("Not reconnecting"))
        #expect(!fatal[0].contains("badbadbad"))
        #expect(driver.machine.phase == .stopped)
        #expect(driver.machine.failure == .authenticationFailed("Login authentication failed"))
        #expect(driver.machine.nextDeadline == nil)
        #expect(driver.send(.closed(.endOfStream)).isEmpty)
        #expect(driver.advance(by: 600_000).isEmpty)
    }

    @Test("a rejected certificate is fatal (failure recorded), unless retryCertificateErrors")
    func certificateRejected() throws {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        let actions = driver.send(.closed(.certificateRejected("bad certificate.")))
        #expect(actions.connectDelays.isEmpty)
        let fatal = actions.records.compactMap { if case .fatal(let message, _) = $0 { message } else { nil } }
        #expect(fatal.count == 1 && fatal[0].contains("bad certificate.") && fatal[0].contains("Not reconnecting"))
        #expect(driver.machine.phase == .stopped)
        #expect(driver.machine.failure == .certificateRejected("bad certificate."))

        var settings = ConnectionSettings()
        settings.retryCertificateErrors = true
        var retrying = SessionDriver(channels: ["a"], settings: settings)
        retrying.startMachine()
        #expect(retrying.send(.closed(.certificateRejected("bad certificate."))).connectDelays.count == 1)
        #expect(retrying.machine.phase == .connecting && retrying.machine.failure == nil)
    }

    @Test("Improperly formatted auth is fatal too")
    func malformedAuthentication() {
        var driver = SessionDriver(channels: [])
        driver.startMachine()
        driver.send(.connected)
        let actions = driver.receive(":tmi.twitch.tv NOTICE * :Improperly formatted auth")
        #expect(actions.connectDelays.isEmpty && driver.machine.phase == .stopped)
    }

    @Test("other users' JOINs and chat are plain lines; our JOIN is recognised case-insensitively")
    func classification() {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.connectAndRegister()
        let nick = driver.machine.nick
        func classify(_ raw: String) -> ServerLine {
            let bytes = Array(raw.utf8)
            return driver.machine.classify(try! TwitchMessage.parse(bytes.span), in: bytes.span)
        }
        #expect(classify(":someone!someone@someone.tmi.twitch.tv JOIN #a") == .other)
        #expect(classify(":\(nick.uppercased())!x@y JOIN #A") == .ownJoin(channel: "a"))
        #expect(classify("@badges= :u!u@u PRIVMSG #a :hi") == .other)
        #expect(classify(":tmi.twitch.tv RECONNECT") == .reconnect)
        #expect(classify("PING :x") == .ping(token: "x"))
        #expect(
            classify("@msg-id=msg_banned :tmi.twitch.tv NOTICE #a :You are permanently banned")
                == .notice(channel: "a", msgId: "msg_banned", text: "You are permanently banned"))
        #expect(
            classify(":tmi.twitch.tv NOTICE * :Login authentication failed")
                == .notice(channel: nil, msgId: nil, text: "Login authentication failed"))
    }

    @Test("printing or dumping a PASS action never shows the token")
    func passActionIsRedacted() throws {
        let credentials = try Credentials.oauth(login: "owl", token: "oauth:hunter2hunter2")
        var driver = SessionDriver(channels: [], credentials: credentials)
        driver.startMachine()
        let actions = driver.send(.connected)
        var dumped = ""
        dump(actions, to: &dumped)
        for text in ["\(actions)", String(reflecting: actions), dumped, "\(driver.machine)"] {
            #expect(!text.contains("hunter2"), "leaked in: \(text)")
        }
        #expect("\(actions)".contains("PASS ***"))
    }

    @Test("stop closes the connection; events after it do nothing")
    func stop() {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.connectAndRegister()
        let actions = driver.machine.stop(at: driver.now)
        #expect(actions.closeReasons == [.stopped])
        #expect(driver.send(.tick).isEmpty)
    }
}
