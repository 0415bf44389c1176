import ChatServe
import ChatTestSupport
import IRCWire
import Testing

/// serve's line writer edits a regular tag section at the places its slots give (``TwitchTags/isRegular``)
/// and walks any other tag by tag; both must write the same line. Random tag sections mix the tags
/// serve rewrites or leaves out (`time`, the times, the ids; with and without values) with others, in
/// every order, and some irregular ones (a repeated key, an empty element, a trailing `;`).
@Suite struct ServedLineWriterTests {
    static let vocabulary = [
        "time=2025-11-21T04:00:00.000Z", "time", "tmi-sent-ts=1763700000123", "tmi-sent-ts=", "tmi-sent-ts=12x",
        "tmi-sent-ts", "rm-received-ts=1763700000456", "id=1b2c3d4e-0000-4000-8000-00000000abcd", "id=", "id",
        "target-msg-id=5f6e7d8c-1111-4222-8333-444455556666", "reply-parent-msg-id=abc",
        "reply-thread-parent-msg-id=def", "source-id=0123", "badges=moderator/1", "color=#FF0000", "emote-only",
        "msg-param-months=3", "x-unknown=v", "room-id=42", "display-name=Ab\\sc",
    ]

    static func line(_ rng: inout UInt64) -> String {
        func next(_ n: Int) -> Int {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((rng >> 33) % UInt64(n))
        }
        var parts: [String] = []
        var used = Set<String>()
        for _ in 0..<(1 + next(8)) {
            let tag = vocabulary[next(vocabulary.count)]
            let key = String(tag.prefix(while: { $0 != "=" }))
            // Mostly one tag per key (regular sections); now and then a repeat.
            if used.contains(key) && next(4) != 0 { continue }
            used.insert(key)
            parts.append(tag)
        }
        var section = parts.joined(separator: ";")
        switch next(12) {
        case 0: section += ";"
        case 1: section = parts.joined(separator: ";;")
        default: break
        }
        let tail = next(10) == 0 ? ":tmi.twitch.tv CLEARCHAT #c" : ":u!u@u.tmi.twitch.tv PRIVMSG #c :hi there"
        return "@" + section + " " + tail
    }

    @Test("the edited write equals the tag-by-tag walk, for every pass, kept or rebased times")
    func editedEqualsWalk() throws {
        var rng: UInt64 = 0x5EED
        var edited = ServedLineWriter()
        var walked = ServedLineWriter()
        var regular = 0
        for _ in 0..<4_000 {
            let text = Self.line(&rng)
            let bytes = Array(text.utf8)
            let message = try TwitchMessage.parse(bytes.span)
            if message.tags.isRegular { regular += 1 }
            for (pass, keepTime, lineTime) in [
                (1, false, 1_763_700_000_000), (2, false, 1_763_700_000_000), (3, true, 5),
            ]
                as [(Int, Bool, Int64?)] + [(2, false, nil)]
            {
                edited.write(
                    bytes.span, message: message, lineTime: lineTime, sentAtMs: 1_800_000_000_000, pass: pass,
                    keepTime: keepTime)
                walked.writeByCursor(
                    bytes.span, message: message, lineTime: lineTime, sentAtMs: 1_800_000_000_000, pass: pass,
                    keepTime: keepTime)
                #expect(
                    String(decoding: edited.bytes, as: UTF8.self) == String(decoding: walked.bytes, as: UTF8.self),
                    "\(text) pass \(pass) keep \(keepTime)")
                #expect(edited.untaggedStart == walked.untaggedStart, "\(text)")
            }
        }
        #expect(regular > 2_000, "most sections are regular, so the edited path is what is tested")
    }

    @Test("the written line's message is what a parse of the written bytes gives, on every write path")
    func messageEqualsAParse() throws {
        var rng: UInt64 = 0xC0FFEE
        var lines = (0..<2_000).map { _ in Array(Self.line(&rng).utf8) }
        for name in try Fixtures.lineFiles() {
            let bytes = try Fixtures.bytes("lines/" + name)
            lines += bytes.split(separator: UInt8(ascii: "\n")).map { Array($0.last == 13 ? $0.dropLast() : $0) }
        }
        var writer = ServedLineWriter()
        #expect(writer.message == nil)
        var checked = 0
        var moved = 0
        for bytes in lines {
            guard let message = try? TwitchMessage.parse(bytes.span) else { continue }
            for (pass, keepTime, lineTime) in [(1, false, 1_763_700_000_000), (2, false, nil), (3, true, 5)]
                as [(Int, Bool, Int64?)]
            {
                for walk in [false, true] {
                    if walk {
                        writer.writeByCursor(
                            bytes.span, message: message, lineTime: lineTime, sentAtMs: 1_800_000_000_000, pass: pass,
                            keepTime: keepTime)
                    } else {
                        writer.write(
                            bytes.span, message: message, lineTime: lineTime, sentAtMs: 1_800_000_000_000, pass: pass,
                            keepTime: keepTime)
                    }
                    let written = try #require(writer.message)
                    let parsed = try TwitchMessage.parse(writer.bytes.span)
                    let text = String(decoding: writer.bytes, as: UTF8.self)
                    #expect(written.line == parsed.line, "\(text)")
                    #expect(written.command == parsed.command && written.channel == parsed.channel, "\(text)")
                    #expect(Self.tags(written, writer.bytes) == Self.tags(parsed, writer.bytes), "\(text)")
                    if written.line.verbRange != message.line.verbRange { moved += 1 }
                    checked += 1
                }
            }
        }
        #expect(checked > 12_000)
        #expect(moved > checked / 2, "most writes move the line past the tags, so the shift is what is tested")
    }

    /// Everything a message's tags answer: the slots, the counts, the msg-param and unknown tags.
    static func tags(_ message: TwitchMessage, _ bytes: [UInt8]) -> [String] {
        let tags = message.tags
        var out = ["\(tags.count) \(tags.msgParamCount) \(tags.unknownCount) \(tags.isRegular)"]
        for key in TwitchTagKey.allCases { out.append("\(key) \(tags[key].map { "\($0.raw)" } ?? "-")") }
        tags.forEachMsgParam(in: bytes.span) { out.append("param \($0.key) \($0.value.raw)") }
        tags.forEachUnknown(in: bytes.span) { out.append("unknown \($0.key) \($0.value.raw)") }
        return out
    }

    @Test("a section of only `time` leaves no tags")
    func onlyTime() throws {
        let bytes = Array("@time=2025-11-21T04:00:00.000Z :u!u@u PRIVMSG #c :x".utf8)
        var writer = ServedLineWriter()
        writer.write(
            bytes.span, message: try TwitchMessage.parse(bytes.span), lineTime: 0, sentAtMs: 0, pass: 1, keepTime: false
        )
        #expect(String(decoding: writer.bytes, as: UTF8.self) == ":u!u@u PRIVMSG #c :x")
        #expect(writer.untaggedStart == 0)
    }
}
