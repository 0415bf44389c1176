import ChatInput
import ChatOutput
import ChatTestSupport
import Testing

/// What `stats` counts, line by line: types by name, channels and msg-ids by their bytes (issue 26:
/// counted without a String, a Swift hash or a reference count per line; the counts are the same).
@Suite struct StatsCollectorTests {
    /// `stats` of `lines` (CRLF added).
    private func collect(_ lines: [String]) throws -> StatsCollector {
        let dir = try InputTempDirectory()
        let input = try dir.write("t.irc", Array(lines.map { $0 + "\r\n" }.joined().utf8))
        let stats = StatsCollector()
        stats.collect(try MergeReader(arguments: [input]))
        return stats
    }

    private static let time = "@time=2025-11-21T04:40:00.000Z"

    @Test func everyCommandIsCountedUnderItsTypeName() throws {
        let stats = try collect([
            ":tmi.twitch.tv 001 me :Welcome, GLHF!",
            ":me.tmi.twitch.tv 353 me = #a :me",
            ":me.tmi.twitch.tv 366 me #a :End of /NAMES list",
            ":u!u@u.tmi.twitch.tv PRIVMSG #a :hi",
            ":u!u@u.tmi.twitch.tv PRIVMSG #a :hi again",
            "@msg-id=sub :tmi.twitch.tv USERNOTICE #a",
            ":tmi.twitch.tv CLEARCHAT #a :u",
            "@target-msg-id=x :tmi.twitch.tv CLEARMSG #a :hi",
            ":tmi.twitch.tv ROOMSTATE #a",
            ":tmi.twitch.tv USERSTATE #a",
            ":tmi.twitch.tv GLOBALUSERSTATE",
            "@msg-id=slow_on :tmi.twitch.tv NOTICE #a :slow",
            ":u!u@u.tmi.twitch.tv WHISPER me :psst",
            ":u!u@u.tmi.twitch.tv JOIN #a",
            ":u!u@u.tmi.twitch.tv PART #a",
            ":tmi.twitch.tv CAP * ACK :twitch.tv/tags",
            "PING :tmi.twitch.tv",
            "PONG :tmi.twitch.tv",
            ":tmi.twitch.tv RECONNECT",
            ":tmi.twitch.tv HOSTTARGET #a :b 0",
            ":tmi.twitch.tv FROBNICATE #a",
            Self.time
                + ";gap-from=2025-11-21T04:40:00.000Z;gap-to=2025-11-21T04:40:01.500Z :chatcap CAPTURE gap #a :gap",
            Self.time + " :chatcap CAPTURE start * :capture started",
            ":chatcap CAPTURE",
        ])
        #expect(stats.lines == 24)
        #expect(stats.messages == 2)
        #expect(
            stats.perCommand == [
                "numeric": 3, "privmsg": 2, "usernotice": 1, "clearchat": 1, "clearmsg": 1, "roomstate": 1,
                "userstate": 1, "globaluserstate": 1, "notice": 1, "whisper": 1, "join": 1, "part": 1, "cap": 1,
                "ping": 1, "pong": 1, "reconnect": 1, "hosttarget": 1, "unknown": 2, "gap": 1, "session": 1,
            ])
        #expect(stats.text().contains("commands:\n  numeric: 3\n  privmsg: 2\n  unknown: 2\n  cap: 1\n"))
    }

    /// Channel names of every length from 1 to 40 bytes, names that are prefixes of others or differ
    /// only in their last byte (of 8, 9, 16 and 17 bytes: the one-word and overlapping-word reads),
    /// names that end their line (JOIN: fewer than 8 bytes left to read), and enough of them (3,000)
    /// that the table grows many times.
    @Test func channelsAreCountedByTheirBytes() throws {
        var names: [String] = []
        for length in 1...40 { names.append(String(repeating: "x", count: length)) }
        for length in [8, 9, 16, 17] {
            let stem = String(String(repeating: "ab", count: length).prefix(length - 1))
            names += [stem + "1", stem + "2"]
        }
        for i in 0..<3_000 { names.append("channel\(i)") }
        var lines: [String] = []
        var expected: [String: Int] = [:]
        for (i, name) in names.enumerated() {
            for k in 0..<(i % 3 + 1) {
                lines.append(
                    k == 0 ? ":u!u@u.tmi.twitch.tv JOIN #\(name)" : ":u!u@u.tmi.twitch.tv PRIVMSG #\(name) :hello \(k)")
                expected[name, default: 0] += 1
            }
        }
        lines.append(":tmi.twitch.tv CAP * ACK :twitch.tv/tags")
        lines.append("PING :tmi.twitch.tv")
        expected[""] = 2
        let stats = try collect(lines)
        #expect(stats.perChannel.count == names.count + 1)
        #expect(stats.perChannel == expected)
        #expect(stats.lines == lines.count)
    }

    /// msg-ids are kept raw and unescaped for output: raw ids that unescape alike are one id.
    @Test func msgIdsAreCountedUnescaped() throws {
        let stats = try collect([
            "@msg-id=slow_on :tmi.twitch.tv NOTICE #a :slow",
            "@msg-id=slow_on :tmi.twitch.tv NOTICE #b :slow",
            "@msg-id=emote\\sonly :tmi.twitch.tv NOTICE #a :x",
            "@msg-id=xq :tmi.twitch.tv NOTICE #a :x",
            "@msg-id=x\\q :tmi.twitch.tv NOTICE #a :x",
            ":tmi.twitch.tv NOTICE #a :no msg-id",
            "@msg-id=sub :tmi.twitch.tv USERNOTICE #a",
            "@msg-id=sub :tmi.twitch.tv USERNOTICE #b :hi",
            "@msg-id=raid :tmi.twitch.tv USERNOTICE #a",
            "@msg-id=futurething :tmi.twitch.tv USERNOTICE #a",
            "@msg-id=future\\sthing :tmi.twitch.tv USERNOTICE #a",
            "@login=u :tmi.twitch.tv USERNOTICE #a",
            "@msg-id=sub :tmi.twitch.tv USERNOTICE",
        ])
        #expect(stats.perNotice == ["slow_on": 2, "emote only": 1, "xq": 2])
        #expect(
            stats.perUserNotice == [
                "sub": 2, "raid": 1, "unknown:futurething": 1, "unknown:future thing": 1, "unknown": 1,
            ])
        #expect(stats.perCommand == ["notice": 6, "usernotice": 7])
    }

    @Test func gapsAreCountedPerChannel() throws {
        let gap = ";gap-from=2025-11-21T04:40:00.000Z;gap-to=2025-11-21T04:40:01.500Z :chatcap CAPTURE gap "
        let long = "averyveryverylongchannelname"
        let stats = try collect([
            Self.time + gap + "#a :gap",
            Self.time + gap + "#a :gap",
            Self.time + gap + "#\(long) :gap",
            Self.time + gap + "* :gap",
            Self.time + " :chatcap CAPTURE start * :capture started",
        ])
        #expect(stats.capture.records == 5)
        #expect(stats.capture.gaps == 3)
        #expect(stats.capture.gapMs == 4_500)
        #expect(stats.capture.runs == 1)
        #expect(stats.capture.gapChannels == ["a": 2, long: 1])
        #expect(stats.perCommand == ["gap": 3, "session": 2])
        #expect(stats.perChannel == ["": 5])
        // In the JSON, channel-less lines have a key of their own, not a channel named "" (issue #35).
        let json = String(decoding: stats.json(), as: UTF8.self)
        #expect(json.contains(#""channels":{},"no_channel":5,"#), "\(json)")
        #expect(!json.contains(#""":"#), "\(json)")
    }
}
