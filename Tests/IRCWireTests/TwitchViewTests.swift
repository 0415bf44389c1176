import ChatTestSupport
import IRCWire
import Testing

/// A line and its Twitch view, for tests: the bytes are kept so that ranges can be read back.
struct Viewed {
    let bytes: [UInt8]
    let message: TwitchMessage

    init(_ line: String) throws {
        let bytes = Array(line.utf8)
        self.bytes = bytes
        message = try TwitchMessage.parse(bytes.span)
    }

    var privmsg: Privmsg? { message.privmsg(in: bytes.span) }
    var userNotice: UserNotice? { message.userNotice(in: bytes.span) }
    var clearChat: ClearChat? { message.clearChat(in: bytes.span) }
    var clearMsg: ClearMsg? { message.clearMsg(in: bytes.span) }
    var roomState: RoomState? { message.roomState(in: bytes.span) }
    var userState: UserState? { message.userState(in: bytes.span) }
    var notice: Notice? { message.notice(in: bytes.span) }
    var whisper: Whisper? { message.whisper(in: bytes.span) }
    var membership: Membership? { message.membership(in: bytes.span) }
    var hostTarget: HostTarget? { message.hostTarget(in: bytes.span) }
    var capReply: CapReply? { message.capReply(in: bytes.span) }
    var pingToken: ByteRange? { message.pingToken(in: bytes.span) }
    var sharedChatSource: SharedChatSource? { message.sharedChatSource(in: bytes.span) }
    var sentTimestamp: Int64? { message.sentTimestamp(in: bytes.span) }
    var bits: Int64? { message.bits(in: bytes.span) }
    func flag(_ k: TwitchTagKey) -> Bool { message.tags.flag(k, in: bytes.span) }
    func msgParam(_ k: StaticString) -> TagValue? { message.tags.msgParam(k, in: bytes.span) }
    func codePoints(_ r: ByteRange) -> Int { CodePoints.count(in: bytes.span, r) }

    func s(_ r: ByteRange?) -> String? { r.map { string(bytes.span, $0) } }
    func s(_ v: TagValue?) -> String? { v.map { string(bytes.span, $0) } }
    func tag(_ k: TwitchTagKey) -> String? { s(message.tags[k]) }
    var badges: [String] {
        var c = message.badges
        var out: [String] = []
        while let b = c.next(in: bytes.span) { out.append("\(s(b.name)!)/\(s(b.version)!)") }
        return out
    }
    var emotes: [String] {
        var c = message.emotes
        var out: [String] = []
        while let e = c.next(in: bytes.span) { out.append("\(s(e.id)!):\(e.start)-\(e.last)") }
        return out
    }
}

@Suite struct TwitchViewTests {
    @Test("PRIVMSG: channel, login, text, tags, badges, emotes")
    func privmsg() throws {
        let v = try Viewed(
            "@badge-info=subscriber/14;badges=broadcaster/1,subscriber/3012;color=#1E90FF;display-name=Night\\sOwl;"
                + "emotes=25:0-4,12-16/1902:6-10;first-msg=1;id=abc;returning-chatter=1;tmi-sent-ts=1763700001971;"
                + "user-id=58213370 :nightowl!nightowl@nightowl.tmi.twitch.tv PRIVMSG #pixelharbor :Kappa Keepo Kappa")
        let p = try #require(v.privmsg)
        #expect(v.message.command == .privmsg)
        #expect(v.s(p.channel) == "pixelharbor")
        #expect(v.s(p.login) == "nightowl")
        #expect(v.s(p.text) == "Kappa Keepo Kappa")
        #expect(!p.isAction)
        #expect(v.tag(.displayName) == "Night Owl")
        #expect(v.tag(.color) == "#1E90FF")
        #expect(v.sentTimestamp == 1_763_700_001_971)
        #expect(v.flag(.firstMsg))
        #expect(v.flag(.returningChatter))
        #expect(v.badges == ["broadcaster/1", "subscriber/3012"])
        #expect(v.emotes == ["25:0-4", "25:12-16", "1902:6-10"])
        #expect(v.message.tags.unknownCount == 0)
        #expect(v.message.tags.count == 10)
    }

    @Test("PRIVMSG /me: the ACTION wrapper is removed, emote indices count code points of the inner text")
    func action() throws {
        let v = try Viewed("@emotes=25:6-10 :a!a@a PRIVMSG #c :\u{1}ACTION waves Kappa\u{1}")
        let p = try #require(v.privmsg)
        #expect(p.isAction)
        #expect(v.s(p.text) == "waves Kappa")
        var cursor = v.message.emotes
        let next = cursor.next(in: v.bytes.span)
        let e = try #require(next)
        let cp = v.codePoints(p.text)
        let r = try #require(e.clamped(toCodePointCount: cp))
        #expect(r == 6..<11)
        // An action without closing \u{1} and an empty action still count as actions.
        let open = try Viewed(":a!a@a PRIVMSG #c :\u{1}ACTION dances")
        #expect(open.s(open.privmsg?.text) == "dances")
        let empty = try Viewed(":a!a@a PRIVMSG #c :\u{1}ACTION\u{1}")
        #expect(empty.privmsg?.isAction == true)
        #expect(empty.s(empty.privmsg?.text) == "")
        let notAction = try Viewed(":a!a@a PRIVMSG #c :\u{1}ACTIONS are loud")
        #expect(notAction.privmsg?.isAction == false)
    }

    @Test("emotes: code points of astral characters and clamping of out-of-range indices")
    func emoteCodePoints() throws {
        // "👋🏽 Kappa 𝕏": 👋 🏽 space K a p p a space 𝕏 → Kappa is code points 3...7.
        let v = try Viewed("@emotes=25:3-7/99:9-40/7:50-60 :a!a@a PRIVMSG #c :👋🏽 Kappa 𝕏")
        let p = try #require(v.privmsg)
        let cp = v.codePoints(p.text)
        #expect(cp == 10)
        var c = v.message.emotes
        var ranges: [Range<Int>?] = []
        while let e = c.next(in: v.bytes.span) { ranges.append(e.clamped(toCodePointCount: cp)) }
        #expect(ranges == [3..<8, 9..<10, nil])
        let kappa = CodePoints.byteOffset(ofCodePoint: 3, in: v.bytes.span, p.text)
        #expect(kappa - Int(p.text.lower) == 9)  // 4 + 4 + 1 bytes before "Kappa"
    }

    @Test("emotes: malformed pieces are skipped and counted")
    func malformedEmotes() throws {
        let v = try Viewed("@emotes=25:0-4,x-2,7/nocolon/1:1-1, :a!a@a PRIVMSG #c :Kappa")
        var c = v.message.emotes
        var got: [String] = []
        while let e = c.next(in: v.bytes.span) { got.append("\(v.s(e.id)!):\(e.start)-\(e.last)") }
        #expect(got == ["25:0-4", "1:1-1"])
        #expect(c.malformedCount == 3)
    }

    @Test("reply, bits, highlighted message, custom reward")
    func replyAndBits() throws {
        let v = try Viewed(
            "@bits=100;msg-id=highlighted-message;custom-reward-id=r1;reply-parent-msg-id=p1;reply-parent-user-id=9;"
                + "reply-parent-user-login=bob;reply-parent-display-name=Bob;reply-parent-msg-body=hi\\sthere;"
                + "reply-thread-parent-msg-id=t1;reply-thread-parent-user-login=carol :a!a@a PRIVMSG #c :@Bob cheer100")
        let r = try #require(v.message.replyParent)
        #expect(v.s(r.messageId) == "p1")
        #expect(v.s(r.login) == "bob")
        #expect(v.s(r.body) == "hi there")
        #expect(v.s(r.threadMessageId) == "t1")
        #expect(v.bits == 100)
        #expect(v.tag(.msgId) == "highlighted-message")
        #expect(v.tag(.customRewardId) == "r1")
    }

    @Test(
        "USERNOTICE kinds, including unknown ones",
        arguments: [
            ("sub", UserNoticeKind.sub), ("resub", .resub), ("subgift", .subgift), ("raid", .raid),
            ("announcement", .announcement), ("sharedchatnotice", .sharedchatnotice),
            ("viewermilestone", .viewermilestone),
        ])
    func userNoticeKinds(id: String, kind: UserNoticeKind) throws {
        let v = try Viewed(
            "@msg-id=\(id);system-msg=a\\sb;login=x;msg-param-months=3 :tmi.twitch.tv USERNOTICE #c :hello")
        let n = try #require(v.userNotice)
        #expect(n.kind == kind)
        #expect(v.s(n.text) == "hello")
        #expect(v.s(n.systemMessage) == "a b")
        #expect(v.message.tags.msgParamCount == 1)
        #expect(v.s(v.msgParam("months")) == "3")
    }

    @Test("USERNOTICE with an undocumented msg-id keeps it; without text has no text")
    func userNoticeUnknown() throws {
        let v = try Viewed("@msg-id=futurething2027 :tmi.twitch.tv USERNOTICE #c")
        let n = try #require(v.userNotice)
        guard case .unknown(let raw) = n.kind else {
            Issue.record("expected unknown, got \(n.kind)")
            return
        }
        #expect(v.s(raw) == "futurething2027")
        #expect(n.text == nil)
    }

    @Test("CLEARCHAT: clear all, ban, timeout")
    func clearChat() throws {
        let all = try Viewed("@room-id=1;tmi-sent-ts=5 :tmi.twitch.tv CLEARCHAT #c")
        #expect(all.clearChat?.action == .clearAll)
        let ban = try Viewed("@room-id=1;target-user-id=42 :tmi.twitch.tv CLEARCHAT #c :troll")
        let b = try #require(ban.clearChat)
        guard case .ban(let login) = b.action else {
            Issue.record("not a ban: \(b.action)")
            return
        }
        #expect(ban.s(login) == "troll")
        #expect(ban.s(b.targetUserId) == "42")
        let to = try Viewed("@ban-duration=600;target-user-id=42 :tmi.twitch.tv CLEARCHAT #c :troll")
        guard case .timeout(_, let seconds)? = to.clearChat?.action else {
            Issue.record("not a timeout")
            return
        }
        #expect(seconds == 600)
    }

    @Test("CLEARMSG: target id, login, text")
    func clearMsg() throws {
        let v = try Viewed("@login=bob;room-id=;target-msg-id=m1;tmi-sent-ts=5 :tmi.twitch.tv CLEARMSG #c :bad words")
        let m = try #require(v.clearMsg)
        #expect(v.s(m.targetMessageId) == "m1")
        #expect(v.s(m.login) == "bob")
        #expect(v.s(m.text) == "bad words")
        #expect(v.tag(.roomId) == "")
    }

    @Test("ROOMSTATE: full and delta")
    func roomState() throws {
        let full = try Viewed(
            "@emote-only=0;followers-only=-1;r9k=0;room-id=1;slow=0;subs-only=0 :tmi.twitch.tv ROOMSTATE #c")
        let f = try #require(full.roomState)
        #expect(f.isFull && f.followersOnly == -1 && f.emoteOnly == false && f.slow == 0)
        let delta = try Viewed("@room-id=1;slow=30 :tmi.twitch.tv ROOMSTATE #c")
        let d = try #require(delta.roomState)
        #expect(!d.isFull && d.slow == 30 && d.emoteOnly == nil && d.subsOnly == nil)
    }

    @Test("USERSTATE, GLOBALUSERSTATE, NOTICE, WHISPER, JOIN, PART, HOSTTARGET, CAP, PING, PONG, RECONNECT")
    func otherCommands() throws {
        let us = try Viewed("@color=#FF0000;display-name=Me;emote-sets=0,33 :tmi.twitch.tv USERSTATE #c")
        #expect(us.s(us.userState?.channel) == "c")
        let gus = try Viewed("@color=;display-name=Me;user-id=1 :tmi.twitch.tv GLOBALUSERSTATE")
        #expect(gus.userState?.isGlobal == true)
        let notice = try Viewed("@msg-id=msg_channel_suspended :tmi.twitch.tv NOTICE #c :This channel does not exist")
        let n = try #require(notice.notice)
        #expect(notice.s(n.msgId) == "msg_channel_suspended" && notice.s(n.channel) == "c")
        let star = try Viewed(":tmi.twitch.tv NOTICE * :Login authentication failed")
        #expect(star.notice?.channel == nil)
        #expect(star.s(star.notice?.text) == "Login authentication failed")
        let w = try Viewed("@thread-id=1_2;message-id=7 :bob!bob@bob.tmi.twitch.tv WHISPER me :psst")
        let wv = try #require(w.whisper)
        #expect(w.s(wv.from) == "bob" && w.s(wv.to) == "me" && w.s(wv.text) == "psst" && w.s(wv.threadId) == "1_2")
        let join = try Viewed(":ronni!ronni@ronni.tmi.twitch.tv JOIN #c")
        #expect(join.membership.map { ($0.isJoin, join.s($0.login)) }! == (true, "ronni"))
        let part = try Viewed(":ronni!ronni@ronni.tmi.twitch.tv PART #c")
        #expect(part.membership?.isJoin == false)
        let host = try Viewed(":tmi.twitch.tv HOSTTARGET #abc :xyz 10")
        let h = try #require(host.hostTarget)
        #expect(host.s(h.target) == "xyz" && h.viewers == 10)
        let unhost = try Viewed(":tmi.twitch.tv HOSTTARGET #abc :- 0")
        #expect(unhost.hostTarget?.target == nil)
        let cap = try Viewed(":tmi.twitch.tv CAP * ACK :twitch.tv/tags twitch.tv/commands")
        let c = try #require(cap.capReply)
        #expect(cap.s(c.subcommand) == "ACK" && cap.s(c.capabilities) == "twitch.tv/tags twitch.tv/commands")
        let ping = try Viewed("PING :tmi.twitch.tv")
        #expect(ping.s(ping.pingToken) == "tmi.twitch.tv")
        let pong = try Viewed(":tmi.twitch.tv PONG tmi.twitch.tv :tok")
        #expect(pong.s(pong.pingToken) == "tok")
        #expect(try Viewed(":tmi.twitch.tv RECONNECT").message.command == .reconnect)
    }

    @Test("numerics: 001–004, MOTD, 353/366 with their channel")
    func numerics() throws {
        for (line, command) in [
            (":tmi.twitch.tv 001 justinfan1 :Welcome, GLHF!", TwitchCommand.numeric(1)),
            (":tmi.twitch.tv 004 justinfan1 :-", .numeric(4)),
            (":tmi.twitch.tv 372 justinfan1 :You are in a maze of twisty passages.", .numeric(372)),
            (":tmi.twitch.tv 376 justinfan1 :>", .numeric(376)),
        ] {
            #expect(try Viewed(line).message.command == command)
        }
        let names = try Viewed(":me.tmi.twitch.tv 353 me = #c :me you")
        #expect(names.message.command == .names && names.s(names.message.channel) == "c")
        let end = try Viewed(":me.tmi.twitch.tv 366 me #c :End of /NAMES list")
        #expect(end.message.command == .endOfNames && end.s(end.message.channel) == "c")
    }

    @Test("an unknown verb is a generic line, never an error")
    func unknownVerb() throws {
        let v = try Viewed(":tmi.twitch.tv FUTURECMD #c :something")
        #expect(v.message.command == .unknown)
        #expect(v.s(v.message.channel) == nil)
    }

    @Test("shared chat: source-* tags, empty source-badges, source-only")
    func sharedChat() throws {
        let v = try Viewed(
            "@source-badges=;source-badge-info=;source-id=s1;source-room-id=77;source-only=1;room-id=1 :a!a@a PRIVMSG #c :hi"
        )
        let src = try #require(v.sharedChatSource)
        #expect(v.s(src.roomId) == "77" && v.s(src.messageId) == "s1" && src.isSourceOnly)
        var badges = src.badges
        let first = badges.next(in: v.bytes.span)
        #expect(first == nil)
        #expect(v.message.tags.unknownCount == 0)
    }

    @Test("unknown tags are kept and countable; duplicate tags: last wins")
    func unknownTags() throws {
        let v = try Viewed("@color=#1;example.com/foo=bar;weird;color=#2 :a!a@a PRIVMSG #c :x")
        #expect(v.message.tags.unknownCount == 2)
        #expect(v.tag(.color) == "#2")
        var names: [String] = []
        v.message.tags.forEachUnknown(in: v.bytes.span) { names.append(v.s($0.key)!) }
        #expect(names == ["example.com/foo", "weird"])
        let generic = v.message.line.tag("color", in: v.bytes.span)
        #expect(v.s(generic) == "#2")
    }

    @Test("parsed values stay small")
    func layout() {
        #expect(MemoryLayout<ParsedLine>.size <= 24)
        #expect(MemoryLayout<TwitchMessage>.size <= 320)
    }
}
