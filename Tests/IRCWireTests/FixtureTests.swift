import ChatTestSupport
import IRCWire
import Testing

/// Every committed fixture, framed and parsed, checked against what `Fixtures/lines/README.md` says.
@Suite struct FixtureTests {
    struct Tally {
        var framed = 0
        var skipped: [FramingError] = []
        var rejected: [(line: Int, error: LineError)] = []
        var commands: [TwitchCommand: Int] = [:]
        var unknownTags = 0
    }

    static func tally(_ file: String) throws -> Tally {
        let input = try Fixtures.bytes("lines/" + file)
        var t = Tally()
        var framer = LineFramer()
        func handle(_ event: FramerEvent, _ framer: borrowing LineFramer) {
            switch event {
            case .skipped(let e): t.skipped.append(e)
            case .line(let line):
                t.framed += 1
                framer.withBytes(of: line) { bytes in
                    do throws(LineError) {
                        let m = try TwitchMessage.parse(bytes)
                        t.commands[m.command, default: 0] += 1
                        t.unknownTags += m.tags.unknownCount
                    } catch {
                        t.rejected.append((line.number, error))
                    }
                }
            }
        }
        framer.feed(input.span) { event, framer in handle(event, framer) }
        if let last = framer.finish() { handle(last, framer) }
        return t
    }

    /// Calls `body` with the number, parsed message and bytes of every line of `Fixtures/lines/<file>`
    /// that parses.
    static func forEachMessage(_ file: String, _ body: (Int, TwitchMessage, Span<UInt8>) -> Void) throws {
        let input = try Fixtures.bytes("lines/" + file)
        var framer = LineFramer()
        framer.feed(input.span) { event, framer in
            guard case .line(let line) = event else { return }
            framer.withBytes(of: line) { bytes in
                if let m = try? TwitchMessage.parse(bytes) { body(line.number, m, bytes) }
            }
        }
    }

    @Test(
        "line counts match the fixture README, and every line of a good fixture parses",
        arguments: [
            ("privmsg.irc", 25), ("usernotice.irc", 24), ("moderation.irc", 14), ("roomstate.irc", 10),
            ("session.irc", 32), ("shared-chat.irc", 13), ("edge-cases.irc", 18), ("lf-only.irc", 8),
        ])
    func goodFixtures(file: String, lines: Int) throws {
        let t = try Self.tally(file)
        #expect(t.framed == lines)
        #expect(t.skipped.isEmpty)
        #expect(t.rejected.isEmpty, "\(t.rejected)")
    }

    @Test(
        "fixtures we claim to cover carry no unknown tags",
        arguments: [
            "privmsg.irc", "usernotice.irc", "moderation.irc", "roomstate.irc", "session.irc", "shared-chat.irc",
            "lf-only.irc",
        ])
    func noUnknownTags(file: String) throws {
        #expect(try Self.tally(file).unknownTags == 0)
    }

    @Test("edge-cases.irc: its deliberately unknown tags are counted, not dropped")
    func edgeCaseUnknownTags() throws {
        // Line 2: x-lone-backslash, x-escaped-backslash-end, x-space-end; line 3: x-last; line 5:
        // +example.com/client-only, example.com/foo, totally-unknown-tag, twitch.tv/future-thing, x-equals;
        // line 7: example.com/trace.
        #expect(try Self.tally("edge-cases.irc").unknownTags == 10)
    }

    @Test("malformed.irc: 4 good lines; 6 rejected by the parser with positions, 1 skipped by the framer")
    func malformed() throws {
        let t = try Self.tally("malformed.irc")
        #expect(t.commands == [.privmsg: 4])
        #expect(t.rejected.map(\.line) == [2, 3, 5, 6, 7, 9])
        #expect(
            t.rejected.map(\.error) == [
                .empty, .missingCommand(offset: 93), .missingCommand(offset: 32), .empty, .invalidCommand(offset: 0),
                .invalidCommand(offset: 0),
            ])
        #expect(t.skipped.map(\.lineNumber) == [10])
        #expect(t.skipped.first?.length == 20_000)
    }

    @Test("session.irc: every server command of a session is recognised")
    func session() throws {
        let t = try Self.tally("session.irc")
        #expect(t.commands[.privmsg] == 3)
        #expect(t.commands[.join] == 3)
        #expect(t.commands[.part] == 1)
        #expect(t.commands[.notice] == 4)
        #expect(t.commands[.hosttarget] == 2)
        for c in [
            TwitchCommand.cap, .globaluserstate, .roomstate, .userstate, .ping, .pong, .whisper, .reconnect,
            .names, .endOfNames, .unknown,
        ] {
            #expect(t.commands[c] == 1, "\(c)")
        }
        let numerics = t.commands.filter { if case .numeric = $0.key { true } else { false } }.values.reduce(0, +)
        #expect(numerics + 2 == 10)  // 001–004, 375, 372, 376, 421 plus 353 and 366
    }

    @Test("usernotice.irc: every documented msg-id is recognised, the undocumented one kept as unknown")
    func userNotices() throws {
        var kinds: [String] = []
        try Self.forEachMessage("usernotice.irc") { _, m, bytes in
            guard let n = m.userNotice(in: bytes) else { return }
            if case .unknown(let raw) = n.kind {
                kinds.append("unknown:" + (raw.map { string(bytes, $0) } ?? "-"))
            } else {
                kinds.append(n.kind.name!.description)
            }
        }
        #expect(
            kinds == [
                "sub", "resub", "submysterygift", "subgift", "subgift", "giftpaidupgrade", "rewardgift",
                "anongiftpaidupgrade", "raid", "unraid", "ritual", "bitsbadgetier", "announcement", "announcement",
                "communitypayforward", "standardpayforward", "primepaidupgrade", "extendsub", "charitydonation",
                "viewermilestone", "viewermilestone", "sharedchatnotice", "onetapgiftredeemed",
                "unknown:futurething2027",
            ])
    }

    @Test("privmsg.irc lines 16–18: emotes in code points around astral characters, clamped and dropped")
    func emotes() throws {
        var byLine: [Int: [Range<Int>?]] = [:]
        try Self.forEachMessage("privmsg.irc") { number, m, bytes in
            guard (16...18).contains(number), let p = m.privmsg(in: bytes) else { return }
            let cp = CodePoints.count(in: bytes, p.text)
            var c = m.emotes
            var ranges: [Range<Int>?] = []
            while let e = c.next(in: bytes) { ranges.append(e.clamped(toCodePointCount: cp)) }
            byLine[number] = ranges
        }
        #expect(byLine[16] == [3..<8, 15..<20])
        #expect(byLine[17] == [6..<11])
        #expect(byLine[18] == [6..<11, nil])
    }
}
