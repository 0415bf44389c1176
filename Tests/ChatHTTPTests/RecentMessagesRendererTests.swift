import ChatFormat
import ChatStore
import Foundation
import IRCWire
import Testing

@Suite struct RecentMessagesRendererTests {
    /// A moderated channel: two messages of user 9 (one deleted by CLEARMSG), a timeout of user 9,
    /// a whole-chat clear, then a message after it, plus lines of kinds the service does not export.
    static let moderated = [
        "@id=m1;user-id=9 :troll!troll@troll.tmi.twitch.tv PRIVMSG #c :first",
        "@id=m2;user-id=8 :nice!nice@nice.tmi.twitch.tv PRIVMSG #c :second",
        ":justinfan1!justinfan1@justinfan1.tmi.twitch.tv JOIN #c",
        "@login=troll;target-msg-id=m1 :tmi.twitch.tv CLEARMSG #c :first",
        "@id=m3;user-id=9 :troll!troll@troll.tmi.twitch.tv PRIVMSG #c :third",
        "@ban-duration=600;room-id=1;target-user-id=9 :tmi.twitch.tv CLEARCHAT #c :troll",
        "@id=m4;user-id=8 :nice!nice@nice.tmi.twitch.tv PRIVMSG #c :fourth",
        "@msg-id=host_on :tmi.twitch.tv NOTICE #c :Now hosting x.",
        "@room-id=1 :tmi.twitch.tv CLEARCHAT #c",
        "@emote-only=0;room-id=1 :tmi.twitch.tv ROOMSTATE #c",
        "@id=m5;user-id=8 :nice!nice@nice.tmi.twitch.tv PRIVMSG #c :fifth",
        "@msg-id=subs_on :tmi.twitch.tv NOTICE #c :This room is now in subscribers-only mode.",
    ]

    static func store(_ lines: [String], capacity: Int = 100, firstMs: Int64 = 1_000) throws -> ChatStore {
        let store = ChatStore(capacity: capacity, internsSenders: false)
        for (i, line) in lines.enumerated() {
            let bytes = Array(line.utf8)
            _ = try store.ingest(bytes.span, receivedAt: Timestamp(milliseconds: firstMs + Int64(i)))
        }
        return store
    }

    struct Answer: Decodable, Equatable {
        var messages: [String]
        var error: String?
        var errorCode: String?

        enum CodingKeys: String, CodingKey {
            case messages, error
            case errorCode = "error_code"
        }
    }

    static func answer(
        _ store: ChatStore, channel: String = "c", query: RecentMessagesQuery = RecentMessagesQuery(), bound: Int = 500,
        joined: Bool = true
    ) throws -> Answer {
        let renderer = try #require(RecentMessagesRenderer(store: store))
        let body = renderer.body(channel: channel, query: query, bound: bound, joined: joined)
        return try JSONDecoder().decode(Answer.self, from: Data(body))
    }

    @Test("answers the exported lines oldest first, rm-deleted where moderation hit")
    func moderatedChannel() throws {
        let answer = try Self.answer(try Self.store(Self.moderated))
        #expect(answer.error == nil && answer.errorCode == nil)
        #expect(
            answer.messages == [
                "@rm-deleted=1;rm-received-ts=1000;historical=1;id=m1;user-id=9 :troll!troll@troll.tmi.twitch.tv PRIVMSG #c :first",
                "@rm-deleted=1;rm-received-ts=1001;historical=1;id=m2;user-id=8 :nice!nice@nice.tmi.twitch.tv PRIVMSG #c :second",
                "@rm-deleted=1;rm-received-ts=1003;historical=1;login=troll;target-msg-id=m1 :tmi.twitch.tv CLEARMSG #c :first",
                "@rm-deleted=1;rm-received-ts=1004;historical=1;id=m3;user-id=9 :troll!troll@troll.tmi.twitch.tv PRIVMSG #c :third",
                "@rm-deleted=1;rm-received-ts=1005;historical=1;ban-duration=600;room-id=1;target-user-id=9 :tmi.twitch.tv CLEARCHAT #c :troll",
                "@rm-deleted=1;rm-received-ts=1006;historical=1;id=m4;user-id=8 :nice!nice@nice.tmi.twitch.tv PRIVMSG #c :fourth",
                "@rm-received-ts=1008;historical=1;room-id=1 :tmi.twitch.tv CLEARCHAT #c",
                "@rm-received-ts=1009;historical=1;emote-only=0;room-id=1 :tmi.twitch.tv ROOMSTATE #c",
                "@rm-received-ts=1010;historical=1;id=m5;user-id=8 :nice!nice@nice.tmi.twitch.tv PRIVMSG #c :fifth",
                "@rm-received-ts=1011;historical=1;msg-id=subs_on :tmi.twitch.tv NOTICE #c :This room is now in subscribers-only mode.",
            ])
    }

    @Test("rm-deleted after a CLEARMSG and after a timeout, without a whole-chat clear")
    func deletedByClearMsgAndTimeout() throws {
        let answer = try Self.answer(try Self.store(Array(Self.moderated[0..<7])))
        let deleted = answer.messages.map { $0.hasPrefix("@rm-deleted=1;") }
        // m1 (CLEARMSG), m2 (untouched), CLEARMSG, m3 (user 9 timed out), CLEARCHAT, m4.
        #expect(deleted == [true, false, false, true, false, false])
    }

    @Test("hide_moderation_messages leaves out CLEARCHAT and CLEARMSG")
    func hideModeration() throws {
        let answer = try Self.answer(
            try Self.store(Self.moderated), query: RecentMessagesQuery(hideModerationMessages: true))
        #expect(answer.messages.count == 7)
        #expect(!answer.messages.contains { $0.contains(" CLEARCHAT ") || $0.contains(" CLEARMSG ") })
    }

    @Test("hide_moderated_messages leaves out the rm-deleted lines")
    func hideModerated() throws {
        let answer = try Self.answer(
            try Self.store(Self.moderated), query: RecentMessagesQuery(hideModeratedMessages: true))
        #expect(
            answer.messages.map { $0.split(separator: " ").dropFirst(2).first } == [
                "CLEARCHAT", "ROOMSTATE", "PRIVMSG", "NOTICE",
            ])
        #expect(!answer.messages.contains { $0.contains("rm-deleted") })
    }

    @Test("clearchatToNotice writes both CLEARCHATs as NOTICEs")
    func clearchatToNotice() throws {
        let answer = try Self.answer(
            try Self.store(Self.moderated), query: RecentMessagesQuery(clearchatToNotice: true))
        #expect(
            answer.messages[4]
                == "@rm-deleted=1;rm-received-ts=1005;historical=1;msg-id=rm-timeout :tmi.twitch.tv NOTICE #c :troll has been timed out for 10m."
        )
        #expect(
            answer.messages[6]
                == "@rm-received-ts=1008;historical=1;msg-id=rm-clearchat :tmi.twitch.tv NOTICE #c :Chat has been cleared by a moderator."
        )
        #expect(!answer.messages.contains { $0.contains("CLEARCHAT") })
    }

    @Test("limit keeps the newest lines, before the filters, and never more than the bound")
    func limit() throws {
        let store = try Self.store(Self.moderated)
        let three = try Self.answer(store, query: RecentMessagesQuery(limit: 3))
        #expect(
            three.messages.map { $0.split(separator: " ").dropFirst(2).first } == ["ROOMSTATE", "PRIVMSG", "NOTICE"])
        #expect(try Self.answer(store, query: RecentMessagesQuery(limit: 0)).messages == [])
        #expect(try Self.answer(store, query: RecentMessagesQuery(limit: 50), bound: 2).messages.count == 2)
        #expect(try Self.answer(store, bound: 4).messages.count == 4)
        let hidden = try Self.answer(store, query: RecentMessagesQuery(hideModerationMessages: true, limit: 4))
        #expect(hidden.messages.count == 3)  // CLEARCHAT, ROOMSTATE, PRIVMSG, NOTICE less the CLEARCHAT
    }

    @Test("a channel not joined gets the service's error beside its lines; an unknown one none")
    func notJoined() throws {
        let store = try Self.store(Self.moderated)
        let answer = try Self.answer(store, joined: false)
        #expect(answer.messages.count == 10)
        #expect(answer.error == "The bot is currently not joined to this channel (in progress or failed previously)")
        #expect(answer.errorCode == "channel_not_joined")
        let unknown = try Self.answer(store, channel: "nobody", joined: false)
        #expect(unknown == Answer(messages: [], error: answer.error, errorCode: "channel_not_joined"))
        #expect(try Self.answer(store, channel: "nobody") == Answer(messages: [], error: nil, errorCode: nil))
    }

    @Test("escapes quotes, backslashes and control characters, and repairs invalid UTF-8")
    func escaping() throws {
        let store = ChatStore(capacity: 10, internsSenders: false)
        let bytes = Array(#"@id=q;system-msg=a\sb :u!u@u PRIVMSG #c :say "hi" \ now"#.utf8) + [0x01, 0x09, 0xFF]
        _ = try store.ingest(bytes.span, receivedAt: Timestamp(milliseconds: 5))
        let renderer = try #require(RecentMessagesRenderer(store: store))
        let body = String(
            decoding: renderer.body(channel: "c", query: RecentMessagesQuery(), bound: 500, joined: true), as: UTF8.self
        )
        // U+FFFD is written as UTF-8, not as an escape.
        let expected =
            #"{"messages":["@rm-received-ts=5;historical=1;id=q;system-msg=a\\sb :u!u@u PRIVMSG #c :say \"hi\" \\ now\u0001\t"#
            + "\u{FFFD}" + #""],"error":null,"error_code":null}"#
        #expect(body == expected)
        let decoded = try JSONDecoder().decode(Answer.self, from: Data(body.utf8))
        #expect(
            decoded.messages == [
                "@rm-received-ts=5;historical=1;id=q;system-msg=a\\sb :u!u@u PRIVMSG #c :say \"hi\" \\ now\u{1}\t\u{FFFD}"
            ])
    }

    @Test("a full ring answers its newest lines")
    func fullRing() throws {
        let lines = (0..<25).map { "@id=i\($0) :u!u@u PRIVMSG #c :line \($0)" }
        let answer = try Self.answer(try Self.store(lines, capacity: 10))
        #expect(answer.messages.count == 10)
        #expect(answer.messages.first == "@rm-received-ts=1015;historical=1;id=i15 :u!u@u PRIVMSG #c :line 15")
        #expect(answer.messages.last == "@rm-received-ts=1024;historical=1;id=i24 :u!u@u PRIVMSG #c :line 24")
    }
}
