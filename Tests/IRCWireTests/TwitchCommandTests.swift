import IRCWire
import Testing

/// ``TwitchCommand``'s written-out `==` (inlinable, where the derived one was a call in every other
/// module) against what equality means for it: the same case, and for a numeric the same code.
@Suite("Twitch command equality")
struct TwitchCommandTests {
    /// One value of every case, and a second numeric: no two of them are equal.
    static let distinct: [TwitchCommand] = [
        .privmsg, .usernotice, .clearchat, .clearmsg, .roomstate, .userstate, .globaluserstate, .notice, .whisper,
        .join, .part, .cap, .ping, .pong, .reconnect, .hosttarget, .names, .endOfNames, .numeric(1), .numeric(376),
        .capture, .unknown,
    ]

    @Test("each command equals itself and no other; numerics are equal by their code")
    func equality() {
        for (i, a) in Self.distinct.enumerated() {
            for (j, b) in Self.distinct.enumerated() {
                #expect((a == b) == (i == j), "\(a) == \(b)")
                #expect((a != b) == (i != j), "\(a) != \(b)")
            }
        }
        #expect(TwitchCommand.numeric(376) == .numeric(376))
    }

    @Test("equal commands hash equally, and a set keeps one of each")
    func hashing() {
        #expect(Set(Self.distinct + Self.distinct).count == Self.distinct.count)
        for c in Self.distinct { #expect(c.hashValue == c.hashValue) }
        #expect(TwitchCommand.numeric(5).hashValue == TwitchCommand.numeric(5).hashValue)
    }

    @Test("a line's command compares as its verb says, inlined against a literal case")
    func parsedCommands() throws {
        let lines: [(String, TwitchCommand)] = [
            (":u!u@u PRIVMSG #c :hi", .privmsg), (":tmi.twitch.tv USERNOTICE #c", .usernotice),
            (":tmi.twitch.tv 366 u #c :End", .endOfNames), (":tmi.twitch.tv 001 u :Welcome", .numeric(1)),
            (":chatcap CAPTURE gap #c :x", .capture), ("FROB x", .unknown),
        ]
        for (line, command) in lines {
            let m = try TwitchMessage.parse(Array(line.utf8).span)
            #expect(m.command == command, "\(line)")
            #expect(m.command != .join, "\(line)")
            #expect((m.command == .privmsg) == (command == .privmsg), "\(line)")
        }
    }
}
