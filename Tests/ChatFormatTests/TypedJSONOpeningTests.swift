import ChatStore
import ChatTestSupport
import IRCWire
import Testing

@testable import ChatFormat

/// The typed object's first members come from a literal per command
/// (``TypedJSONEncoder/opening(_:)``, ``JSONWriter/beginObject(opening:)``), and a PRIVMSG's user
/// `"login"` is a copy of its `"about"` (``JSONWriter/value(repeating:)``): both must write what
/// the members written one by one would.
@Suite struct TypedJSONOpeningTests {
    static let commands: [TwitchCommand] = [
        .privmsg, .usernotice, .clearchat, .clearmsg, .roomstate, .userstate, .globaluserstate, .notice, .whisper,
        .join, .part, .cap, .ping, .pong, .reconnect, .hosttarget, .names, .endOfNames, .numeric(1), .numeric(376),
        .capture, .unknown,
    ]

    static func text(_ s: StaticString) -> String {
        String(decoding: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount), as: UTF8.self)
    }

    static func typed(_ text: String) throws -> String {
        let line = Array(text.utf8)
        let message = try TwitchMessage.parse(line.span)
        var out = JSONWriter(capacity: 1)
        let context = LineContext(timestamp: nil, tombstone: nil, isMirror: false)
        TypedJSONEncoder.encode(line.span, message, context, options: JSONOptions(), into: &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    @Test("every command's opening names its type and opens the channel; a capture record has none")
    func openings() {
        for command in Self.commands {
            guard let opening = TypedJSONEncoder.opening(command) else {
                #expect(command == .capture, "\(command)")
                continue
            }
            #expect(Self.text(opening) == #"{"type":""# + Self.text(command.name) + #"","channel":"#, "\(command)")
        }
    }

    @Test("the channel after the opening: escaped, repaired, empty or missing")
    func unusualChannels() throws {
        let cases: [(String, String)] = [
            (":a!a@a PRIVMSG #plain :hi", #"{"type":"privmsg","channel":"plain","ts":null,"about":"a","#),
            (":a!a@a PRIVMSG #q\"b\\s :hi", #"{"type":"privmsg","channel":"q\"b\\s","ts":null,"about":"a","#),
            (":a!a@a PRIVMSG #\u{1}\u{7F} :hi", #"{"type":"privmsg","channel":"\u0001\u007f","ts":null,"#),
            (":a!a@a PRIVMSG #\u{e9}t\u{e9} :hi", "{\"type\":\"privmsg\",\"channel\":\"\u{e9}t\u{e9}\",\"ts\":null,"),
            (":a!a@a JOIN #", #"{"type":"join","channel":null,"ts":null,"about":null,"login":null}"#),
            (":tmi.twitch.tv RECONNECT", #"{"type":"reconnect","channel":null,"ts":null,"about":null}"#),
            (":tmi.twitch.tv 376 me :>", #"{"type":"numeric","channel":null,"ts":null,"about":null,"code":376,"#),
            ("FOO bar", #"{"type":"unknown","channel":null,"ts":null,"about":null,"verb":"FOO","#),
        ]
        for (text, prefix) in cases {
            let typed = try Self.typed(text)
            #expect(typed.hasPrefix(prefix), "\(typed)")
        }
        // A channel of invalid UTF-8, repaired as every string is.
        var line = Array(":a!a@a PRIVMSG #x".utf8) + [0xFF] + Array(" :hi".utf8)
        let message = try TwitchMessage.parse(line.span)
        var out = JSONWriter()
        let context = LineContext(timestamp: nil, tombstone: nil, isMirror: false)
        TypedJSONEncoder.encode(line.span, message, context, options: JSONOptions(), into: &out)
        #expect(
            String(decoding: out.bytes, as: UTF8.self).hasPrefix("{\"type\":\"privmsg\",\"channel\":\"x\u{FFFD}\","))
        line.removeAll()
    }

    @Test("a PRIVMSG's user login is its about, escaped alike; an empty nick writes an empty login")
    func loginCopiesAbout() throws {
        let cases: [(String, String, String)] = [
            (":ann!ann@h PRIVMSG #c :hi", #""about":"ann""#, #""login":"ann""#),
            (":a\"b\\c!x@h PRIVMSG #c :hi", #""about":"a\"b\\c""#, #""login":"a\"b\\c""#),
            (":\u{e9}t\u{e9}!x@h PRIVMSG #c :hi", "\"about\":\"\u{e9}t\u{e9}\"", "\"login\":\"\u{e9}t\u{e9}\""),
            (":!u@h PRIVMSG #c :hi", #""about":null"#, #""login":"""#),
            (
                "@user-id=7 :a-very-long-login-name-of-forty-bytes-xx!x@h PRIVMSG #c :hi",
                #""about":"a-very-long-login-name-of-forty-bytes-xx""#,
                #""user":{"id":"7","login":"a-very-long-login-name-of-forty-bytes-xx","#,
            ),
        ]
        for (text, about, login) in cases {
            let typed = try Self.typed(text)
            #expect(typed.contains(about), "\(typed)")
            #expect(typed.contains(login), "\(typed)")
        }
    }

    @Test("members written whole from literals when a field is absent, written piece by piece when present")
    func literalMembers() throws {
        let bare = try Self.typed(":ann!ann@h PRIVMSG #c :hi")
        #expect(
            bare.hasSuffix(
                #""user":{"id":null,"login":"ann","display_name":null,"color":null,"badges":[],"badge_info":[]},"#
                    + #""text":"hi","action":false,"emotes":[],"bits":null,"reply":null,"first_msg":false,"#
                    + #""returning_chatter":false,"msg_id":null,"custom_reward_id":null,"room_id":null,"source":null}"#),
            "\(bare)")
        let full = try Self.typed(
            "@badges=vip/1;badge-info=subscriber/7;color=#0F0;emotes=25:0-4;bits=5;first-msg=1;returning-chatter=1;"
                + "reply-parent-msg-id=p;source-room-id=9;source-badges=;source-id=s :ann!ann@h PRIVMSG #c :\u{1}ACTION Kappa\u{1}"
        )
        for member in [
            ##""color":"#0F0","badges":[{"name":"vip","version":"1"}],"badge_info":[{"name":"subscriber","version":"7"}]}"##,
            #""action":true,"emotes":[{"id":"25","name":"Kappa","start":0,"end":5}],"bits":5,"reply":{"parent_id":"p","#,
            #""first_msg":true,"returning_chatter":true,"#,
            #""source":{"room_id":"9","id":"s","badges":[],"only":false}}"#,
        ] {
            #expect(full.contains(member), "\(full) lacks \(member)")
        }
        let notice = try Self.typed("@msg-id=raid :tmi.twitch.tv USERNOTICE #c")
        #expect(notice.contains(#""badges":[],"badge_info":[]},"text":null,"#), "\(notice)")
        #expect(notice.contains(#""emotes":[],"room_id":null,"source":null}"#), "\(notice)")
    }

    @Test("an opening and a repeated value in an array take their separators")
    func writerPieces() {
        var out = JSONWriter(capacity: 1)
        out.beginArray()
        out.beginObject(opening: #"{"k":"#)
        let start = out.count
        let value: String = "v\""
        out.string(value)
        let written = start..<out.count
        out.endObject()
        out.beginObject(opening: #"{"a":1,"k":"#)
        out.value(repeating: written)
        out.key("again")
        out.value(repeating: written)
        out.member(#""m":null"#)
        out.endObject()
        out.value(repeating: written)
        out.endArray()
        #expect(
            String(decoding: out.bytes, as: UTF8.self)
                == #"[{"k":"v\""},{"a":1,"k":"v\"","again":"v\"","m":null},"v\""]"#)
    }
}
