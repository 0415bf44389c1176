import ChatTestSupport
import IRCWire
import Testing

@Suite struct OutgoingMessageTests {
    static func line(_ m: OutgoingMessage) throws -> String {
        String(decoding: try m.wireBytes(), as: UTF8.self)
    }

    @Test("the Twitch handshake and commands serialise as Twitch expects")
    func twitchCommands() throws {
        #expect(
            try Self.line(.capabilityRequest())
                == "CAP REQ :twitch.tv/tags twitch.tv/commands twitch.tv/membership\r\n")
        #expect(try Self.line(.nick("justinfan123")) == "NICK justinfan123\r\n")
        #expect(try Self.line(.join(["Foo", "#bar"])) == "JOIN #foo,#bar\r\n")
        #expect(try Self.line(.part("foo")) == "PART #foo\r\n")
        #expect(try Self.line(.pong("tmi.twitch.tv")) == "PONG tmi.twitch.tv\r\n")
        #expect(
            try Self.line(.privmsg(channel: "foo", text: "hi there", replyTo: "a;b c"))
                == "@reply-parent-msg-id=a\\:b\\sc PRIVMSG #foo :hi there\r\n")
        #expect(try Self.line(.pass(token: "abc")) == "PASS oauth:abc\r\n")
    }

    @Test("a PASS line never shows its token in descriptions")
    func secrets() {
        let pass = OutgoingMessage.pass(token: "oauth:supersecret")
        #expect(pass.description == "PASS ***")
        #expect(!"\(pass)".contains("supersecret"))
        #expect(OutgoingMessage.nick("me").description == "NICK me")
    }

    @Test("tag values escape every special byte and round-trip through the parser")
    func escaping() throws {
        let value = "a;b c\\d\re\nf"
        let bytes = try OutgoingMessage(tags: [OutgoingTag("k", value), OutgoingTag("e")], verb: "X").wireBytes()
        #expect(String(decoding: bytes, as: UTF8.self) == "@k=a\\:b\\sc\\\\d\\re\\nf;e X\r\n")
        let atoms = try Atoms.parse(Array(bytes.dropLast(2)))
        #expect(atoms.tags == ["k": value, "e": ""])
    }

    @Test(
        "lines that cannot be represented are refused, not mangled",
        arguments: [
            (
                OutgoingMessage(verb: "PRIVMSG", params: ["#c", "line\r\nQUIT"]),
                SerializationError.forbiddenByte(part: "parameter 2")
            ),
            (OutgoingMessage(verb: "X", params: ["a b", "c"]), .middleParameter(index: 1)),
            (OutgoingMessage(verb: "X", params: ["", "c"]), .middleParameter(index: 1)),
            (OutgoingMessage(verb: "X", params: [":a", "c"]), .middleParameter(index: 1)),
            (OutgoingMessage(verb: "BAD VERB"), .invalidVerb("BAD VERB")),
            (OutgoingMessage(tags: [OutgoingTag("bad key")], verb: "X"), .invalidTagKey("bad key")),
            (OutgoingMessage(source: "a b", verb: "X"), .invalidSource),
        ])
    func refused(message: OutgoingMessage, error: SerializationError) {
        #expect(throws: error) { try message.wireBytes() }
    }
}
