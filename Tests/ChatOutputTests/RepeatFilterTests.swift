import ChatOutput
import IRCWire
import Testing
import TwitchSession

/// ``RepeatFilter``: ids by channel and id from any input; id-less lines by their content without
/// receive-time tags, from another input only; chatcap's records never.
@Suite struct RepeatFilterTests {
    /// Runs `lines` (input index, time in ms, line) through one filter and returns the verdicts.
    static func verdicts(_ lines: [(input: Int, at: Int64, line: String)], windowMs: Int64 = 10_000)
        throws -> [RepeatFilter.Verdict]
    {
        var filter = RepeatFilter(windowMs: windowMs)
        return try lines.map { input, at, line in
            let bytes = Array(line.utf8)
            let message = try TwitchMessage.parse(bytes.span)
            return filter.check(message, in: bytes.span, at: at, input: input)
        }
    }

    @Test("the content hash leaves out exactly the receive-time tags")
    func hash() throws {
        func hash(_ line: String) throws -> UInt64 {
            let bytes = Array(line.utf8)
            return LineFingerprint.contentHash(try ParsedLine.parse(bytes.span), in: bytes.span)
        }
        let plain = try hash("@room-id=1;tmi-sent-ts=5 :tmi.twitch.tv CLEARCHAT #c :u")
        #expect(
            try hash("@time=2025-11-21T00:00:00.000Z;room-id=1;tmi-sent-ts=5 :tmi.twitch.tv CLEARCHAT #c :u") == plain)
        #expect(
            try hash(
                "@historical=1;room-id=1;rm-received-ts=9;tmi-sent-ts=5;rm-deleted=1 :tmi.twitch.tv CLEARCHAT #c :u")
                == plain)
        #expect(try hash("@room-id=1;tmi-sent-ts=6 :tmi.twitch.tv CLEARCHAT #c :u") != plain)
        #expect(try hash("@room-id=1;tmi-sent-ts=5 :tmi.twitch.tv CLEARCHAT #c :v") != plain)
        #expect(try hash("@room-id=1;tmi-sent-ts=5;times=1 :tmi.twitch.tv CLEARCHAT #c :u") != plain)
        #expect(try hash(":a!a@a JOIN #c") == (try hash("@time=2025-11-21T00:00:00.000Z :a!a@a JOIN #c")))
    }

    @Test("id-less lines: another input's copy is a repeat, the same input's is not; outside the window neither")
    func idless() throws {
        let join = ":a!a@a JOIN #c"
        let late = "@time=2025-11-21T00:00:00.000Z :a!a@a JOIN #c"
        #expect(
            try Self.verdicts([(0, 0, join), (1, 10, late), (0, 20, join), (1, 30, join), (2, 20_100, join)])
                == [.new, .repeatedLine, .new, .repeatedLine, .new])
    }

    @Test("ids: any input's copy in the channel is a repeat; records always pass")
    func ids() throws {
        let record = "@time=2025-11-21T00:00:00.000Z :chatcap CAPTURE start * :capture started"
        #expect(
            try Self.verdicts([
                (0, 0, "@id=m1 :u!u@u PRIVMSG #c :hi"), (0, 1, "@id=m1 :u!u@u PRIVMSG #c :hi"),
                (1, 2, "@id=m1 :u!u@u PRIVMSG #d :hi"), (0, 3, record), (1, 4, record),
            ]) == [.new, .repeatedId, .new, .new, .new])
    }
}
