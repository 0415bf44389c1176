import ChatFormat
import ChatStore
import IRCWire
import Testing

@Suite struct HistoricalLineTests {
    static func exported(
        _ text: String, receivedAtMs: Int64 = 1_700_000_000_123, deleted: Bool = false, notice: Bool = false
    ) throws -> String {
        let bytes = Array(text.utf8)
        let message = try TwitchMessage.parse(bytes.span)
        var out: [UInt8] = []
        HistoricalLine.write(
            bytes.span, message: message, receivedAt: Timestamp(milliseconds: receivedAtMs), deleted: deleted,
            clearchatToNotice: notice,
            into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @Test("puts the service's tags before the line's own, which keep their order")
    func tagged() throws {
        #expect(
            try Self.exported("@badges=;id=a1;tmi-sent-ts=5 :u!u@u.tmi.twitch.tv PRIVMSG #c :hi")
                == "@rm-received-ts=1700000000123;historical=1;badges=;id=a1;tmi-sent-ts=5 :u!u@u.tmi.twitch.tv PRIVMSG #c :hi"
        )
    }

    @Test("gives a line without tags a tag section")
    func untagged() throws {
        #expect(
            try Self.exported(":tmi.twitch.tv NOTICE #c :Hello", receivedAtMs: 7)
                == "@rm-received-ts=7;historical=1 :tmi.twitch.tv NOTICE #c :Hello")
        #expect(
            try Self.exported("PRIVMSG #c :no source", receivedAtMs: 7)
                == "@rm-received-ts=7;historical=1 PRIVMSG #c :no source")
    }

    @Test("marks a moderated line rm-deleted=1, first")
    func deleted() throws {
        #expect(
            try Self.exported("@id=a1 :u!u@u PRIVMSG #c :gone", receivedAtMs: 42, deleted: true)
                == "@rm-deleted=1;rm-received-ts=42;historical=1;id=a1 :u!u@u PRIVMSG #c :gone")
    }

    @Test("replaces the service tags a line already has, and drops empty elements")
    func replacesServiceTags() throws {
        #expect(
            try Self.exported(
                "@historical=1;id=a1;rm-received-ts=99;;rm-deleted=1;flags= :u!u@u PRIVMSG #c :again", receivedAtMs: 5)
                == "@rm-received-ts=5;historical=1;id=a1;flags= :u!u@u PRIVMSG #c :again")
        #expect(
            try Self.exported("@rm-received-ts=99 :u!u@u PRIVMSG #c :only", receivedAtMs: 5)
                == "@rm-received-ts=5;historical=1 :u!u@u PRIVMSG #c :only")
    }

    @Test("keeps escaped tag values and key-only tags byte for byte")
    func escapes() throws {
        #expect(
            try Self.exported(#"@system-msg=a\sb\:c\\;vip :u!u@u USERNOTICE #c :"quoted" \ text"#, receivedAtMs: 1)
                == #"@rm-received-ts=1;historical=1;system-msg=a\sb\:c\\;vip :u!u@u USERNOTICE #c :"quoted" \ text"#)
    }

    @Test("leaves a CLEARCHAT as it is without clearchatToNotice")
    func clearChatKept() throws {
        #expect(
            try Self.exported("@ban-duration=600;target-user-id=9 :tmi.twitch.tv CLEARCHAT #c :troll", receivedAtMs: 3)
                == "@rm-received-ts=3;historical=1;ban-duration=600;target-user-id=9 :tmi.twitch.tv CLEARCHAT #c :troll"
        )
    }

    @Test(
        "writes a CLEARCHAT as the service's NOTICE with clearchatToNotice",
        arguments: [
            (
                "@ban-duration=620;room-id=1;target-user-id=9;tmi-sent-ts=2 :tmi.twitch.tv CLEARCHAT #c :troll",
                "@rm-received-ts=3;historical=1;msg-id=rm-timeout :tmi.twitch.tv NOTICE #c :troll has been timed out for 10m 20s."
            ),
            (
                "@room-id=1;target-user-id=9 :tmi.twitch.tv CLEARCHAT #c :troll",
                "@rm-received-ts=3;historical=1;msg-id=rm-permaban :tmi.twitch.tv NOTICE #c :troll has been permanently banned."
            ),
            (
                "@room-id=1;tmi-sent-ts=2 :tmi.twitch.tv CLEARCHAT #c",
                "@rm-received-ts=3;historical=1;msg-id=rm-clearchat :tmi.twitch.tv NOTICE #c :Chat has been cleared by a moderator."
            ),
        ])
    func clearChatToNotice(line: String, expected: String) throws {
        #expect(try Self.exported(line, receivedAtMs: 3, notice: true) == expected)
    }

    @Test("a deleted CLEARCHAT notice keeps rm-deleted=1")
    func deletedNotice() throws {
        #expect(
            try Self.exported(
                "@ban-duration=1 :tmi.twitch.tv CLEARCHAT #c :x", receivedAtMs: 3, deleted: true, notice: true)
                == "@rm-deleted=1;rm-received-ts=3;historical=1;msg-id=rm-timeout :tmi.twitch.tv NOTICE #c :x has been timed out for 1s."
        )
    }

    @Test(
        "writes durations as humantime does",
        arguments: [
            (Int64(0), "0s"), (1, "1s"), (59, "59s"), (60, "1m"), (620, "10m 20s"), (3_600, "1h"), (86_400, "1day"),
            (90_061, "1day 1h 1m 1s"), (172_800, "2days"), (1_209_600, "14days"), (2_630_016, "1month"),
            (31_557_600, "1year"), (-5, "0s"),
        ])
    func durations(seconds: Int64, text: String) throws {
        let line = try Self.exported("@ban-duration=\(seconds) :tmi.twitch.tv CLEARCHAT #c :x", notice: true)
        #expect(line.hasSuffix(" :x has been timed out for \(text)."), "\(line)")
    }
}
