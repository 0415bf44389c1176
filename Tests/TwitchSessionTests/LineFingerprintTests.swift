import ChatStore
import IRCWire
import Testing
import TwitchSession

@Suite struct LineFingerprintTests {
    static func fingerprint(_ text: String) throws -> UInt64 {
        let bytes = Array(text.utf8)
        return LineFingerprint.of(bytes.span, try TwitchMessage.parse(bytes.span))
    }

    @Test("a line with an id is known by its id, whatever else the copy carries")
    func byId() throws {
        let live = "@badges=;id=abc-1;tmi-sent-ts=1700000000000 :u!u@u.tmi.twitch.tv PRIVMSG #c :hi"
        let historical =
            "@badges=;historical=1;id=abc-1;rm-deleted=1;rm-received-ts=1700000000123;tmi-sent-ts=1700000000000 "
            + ":u!u@u.tmi.twitch.tv PRIVMSG #c :hi"
        #expect(try Self.fingerprint(live) == Self.fingerprint(historical))
        #expect(try Self.fingerprint(live) != Self.fingerprint(live.replacingOccurrences("abc-1", "abc-2")))
    }

    @Test("a line without an id is known by the line without historical, rm-* and time tags")
    func byLine() throws {
        let live = ":u!u@u.tmi.twitch.tv JOIN #c"
        let historical = "@historical=1;rm-received-ts=1700000000123 :u!u@u.tmi.twitch.tv JOIN #c"
        let stored = "@time=2023-11-14T22:13:20.000Z;historical=1 :u!u@u.tmi.twitch.tv JOIN #c"
        #expect(try Self.fingerprint(live) == Self.fingerprint(historical))
        #expect(try Self.fingerprint(live) == Self.fingerprint(stored))
        #expect(try Self.fingerprint(live) != Self.fingerprint(":v!v@v.tmi.twitch.tv JOIN #c"))
        let clear = "@room-id=1;target-user-id=2;tmi-sent-ts=5 :tmi.twitch.tv CLEARCHAT #c :bob"
        let clearCopy =
            "@historical=1;room-id=1;rm-received-ts=9;target-user-id=2;tmi-sent-ts=5 :tmi.twitch.tv CLEARCHAT #c :bob"
        #expect(try Self.fingerprint(clear) == Self.fingerprint(clearCopy))
        // A tag other than the receive-time ones makes it another line.
        let other = "@room-id=1;target-user-id=2;tmi-sent-ts=6 :tmi.twitch.tv CLEARCHAT #c :bob"
        #expect(try Self.fingerprint(clear) != Self.fingerprint(other))
    }

    @Test("an empty id is no id: such a line is known by its bytes")
    func emptyId() throws {
        #expect(try Self.fingerprint("@id=x PING") != Self.fingerprint("@id= PING"))
        #expect(try Self.fingerprint("@id= PING") == Self.fingerprint("@historical=1;id= PING"))
        #expect(try Self.fingerprint("@id= PING") != Self.fingerprint("PING"))
    }

    @Test("the service's time is rm-received-ts, else tmi-sent-ts")
    func serviceTime() throws {
        func time(_ text: String) throws -> Int64? {
            let bytes = Array(text.utf8)
            return LineFingerprint.serviceTime(bytes.span, try ParsedLine.parse(bytes.span))?.milliseconds
        }
        #expect(try time("@rm-received-ts=20;tmi-sent-ts=10 :a PRIVMSG #c :x") == 20)
        #expect(try time("@tmi-sent-ts=10 :a PRIVMSG #c :x") == 10)
        #expect(try time(":a JOIN #c") == nil)
    }
}

extension String {
    fileprivate func replacingOccurrences(_ a: String, _ b: String) -> String {
        split(separator: a, omittingEmptySubsequences: false).joined(separator: b)
    }
}
