import ChatLogStore
import ChatLogs
import ChatStore
import IRCWire
import Testing

/// One line at a time, from byte arrays: the text, JSON, NDJSON and raw shapes of rustlog's responders.
@Suite struct LogEncoderTests {
    static func encode(_ text: String, _ format: LogFormat, received: Timestamp? = nil) throws -> String {
        let bytes = Array(text.utf8)
        let message = try TwitchMessage.parse(bytes.span)
        var encoder = LogEncoder(format: format)
        return encoder.encode(StoredLine(message: message, received: received), in: bytes.span) {
            span in String(decoding: (0..<span.count).map { span[$0] }, as: UTF8.self)
        }
    }

    @Test(
        "text: rustlog's line for each kind of message",
        arguments: [
            (
                "@time=2025-11-21T04:26:41.971Z;room-id=1;tmi-sent-ts=1763699201000;user-id=2 :a!a@a.tmi.twitch.tv PRIVMSG #c :hi there",
                "[2025-11-21 04:26:41] #c a: hi there\r\n"
            ),
            (
                "@room-id=1;tmi-sent-ts=1763699201000 :a!a@a.tmi.twitch.tv PRIVMSG #c :\u{1}ACTION dances\u{1}",
                "[2025-11-21 04:26:41] #c a: dances\r\n"
            ),
            (
                "@ban-duration=1;room-id=1;target-user-id=3;tmi-sent-ts=1763699201000 :tmi.twitch.tv CLEARCHAT #c :b",
                "[2025-11-21 04:26:41] #c b: b has been timed out for 1 seconds\r\n"
            ),
            (
                "@room-id=1;target-user-id=3;tmi-sent-ts=1763699201000 :tmi.twitch.tv CLEARCHAT #c :b",
                "[2025-11-21 04:26:41] #c b: b has been banned\r\n"
            ),
            (
                "@room-id=1;tmi-sent-ts=1763699201000 :tmi.twitch.tv CLEARCHAT #c",
                "[2025-11-21 04:26:41] #c Chat has been cleared\r\n"
            ),
            (
                "@login=b;room-id=1;target-msg-id=x;tmi-sent-ts=1763699201000 :tmi.twitch.tv CLEARMSG #c :bad words",
                "[2025-11-21 04:26:41] #c b: message `bad words` from `b` has been deleted\r\n"
            ),
            (
                "@login=b;msg-id=raid;room-id=1;system-msg=5\\sraiders\\sfrom\\sb;tmi-sent-ts=1763699201000 :tmi.twitch.tv USERNOTICE #c",
                "[2025-11-21 04:26:41] #c b: 5 raiders from b\r\n"
            ),
            (
                "@login=b;msg-id=x;room-id=1;tmi-sent-ts=1763699201000 :tmi.twitch.tv USERNOTICE #c :no system message",
                "[2025-11-21 04:26:41] #c b: \r\n"
            ),
        ])
    func text(line: String, expected: String) throws {
        #expect(try Self.encode(line, .text) == expected)
    }

    @Test("the time is tmi-sent-ts, else when capture received the line")
    func times() throws {
        let line = "@time=2025-11-21T04:26:41.971Z;room-id=1 :a!a@a.tmi.twitch.tv PRIVMSG #c :hi"
        let received = try #require(Timestamp(rfc3339: "2025-11-21T04:26:41.971Z"))
        #expect(try Self.encode(line, .text, received: received) == "[2025-11-21 04:26:41] #c a: hi\r\n")
        #expect(
            try Self.encode(line, .jsonBasic, received: received).contains(#""timestamp":"2025-11-21T04:26:41.971Z""#))
    }

    @Test("raw: the line without the time tag capture added, CRLF after it")
    func raw() throws {
        #expect(
            try Self.encode("@time=2025-11-21T04:26:41.971Z;room-id=1 :a!a@a.tmi.twitch.tv PRIVMSG #c :hi", .raw)
                == "@room-id=1 :a!a@a.tmi.twitch.tv PRIVMSG #c :hi\r\n")
        #expect(
            try Self.encode("@time=2025-11-21T04:26:41.971Z :a!a@a.tmi.twitch.tv PRIVMSG #c :hi", .raw)
                == ":a!a@a.tmi.twitch.tv PRIVMSG #c :hi\r\n")
        #expect(try Self.encode("@room-id=1 :a!a@a PRIVMSG #c :hi", .raw) == "@room-id=1 :a!a@a PRIVMSG #c :hi\r\n")
    }

    @Test("json: rustlog's full message, keys in its order, strings escaped, tag values as on the wire")
    func json() throws {
        let line =
            #"@time=2025-11-21T04:26:41.971Z;display-name=A\sB;id=i;room-id=1;tmi-sent-ts=1763699201005;user-id=2 :a!a@a.tmi.twitch.tv PRIVMSG #c :say "hi" \o/"#
        #expect(
            try Self.encode(line, .json)
                == #"{"text":"say \"hi\" \\o/","displayName":"A B","timestamp":"2025-11-21T04:26:41.005Z","id":"i","tags":{"display-name":"A\\sB","id":"i","room-id":"1","tmi-sent-ts":"1763699201005","user-id":"2"},"username":"a","channel":"c","raw":"@display-name=A\\sB;id=i;room-id=1;tmi-sent-ts=1763699201005;user-id=2 :a!a@a.tmi.twitch.tv PRIVMSG #c :say \"hi\" \\o/","type":1}"#
        )
        #expect(
            try Self.encode(line, .ndjson)
                == #"{"text":"say \"hi\" \\o/","displayName":"A B","timestamp":"2025-11-21T04:26:41.005Z","id":"i","tags":{"display-name":"A\\sB","id":"i","room-id":"1","tmi-sent-ts":"1763699201005","user-id":"2"}}"#
                + "\r\n")
    }

    @Test("served lines: a room-id, and not ROOMSTATE (rustlog's bot keeps those)")
    func served() throws {
        func served(_ text: String) throws -> Bool {
            let bytes = Array(text.utf8)
            return StoredLine(message: try TwitchMessage.parse(bytes.span), received: nil).isServed
        }
        #expect(try served("@room-id=1 :a!a@a PRIVMSG #c :hi"))
        #expect(try served("@room-id=1 :tmi.twitch.tv CLEARCHAT #c"))
        #expect(try !served("@room-id=1;slow=0 :tmi.twitch.tv ROOMSTATE #c"))
        #expect(try !served(":a!a@a PRIVMSG #c :hi"))
        #expect(try !served(":a!a@a JOIN #c"))
        #expect(try !served("@room-id=1 :tmi.twitch.tv PING"))
    }
}
