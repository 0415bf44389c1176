import ChatTestSupport
import IRCWire
import Testing

@testable import ChatFormat

/// ``JSONWriter/badgeList(_:_:key:)`` writes a plain `badges` value in one pass: the same bytes as
/// walking it with ``BadgeCursor`` and writing each badge's name and version with the string writers,
/// and nothing (returning `false`) for a value it cannot take.
@Suite struct BadgeListTests {
    /// `{"a":1,` + the badges member as the cursor walk writes it + `,"z":2}`, for the value at
    /// `value` in `line`.
    static func walked(_ line: [UInt8], _ value: ByteRange) -> [UInt8] {
        var out = JSONWriter()
        out.beginObject(opening: #"{"a":"#)
        out.number(1)
        var cursor = BadgeCursor(TagValue(raw: value))
        out.key("badges")
        out.beginArray()
        while let b = cursor.next(in: line.span) {
            out.beginObject()
            out.key("name")
            out.string(line.span, b.name)
            out.key("version")
            out.string(line.span, tag: TagValue(raw: b.version))
            out.endObject()
        }
        out.endArray()
        out.member(#""z":2"#)
        out.endObject()
        return out.bytes
    }

    /// The same object with ``JSONWriter/badgeList(_:_:key:)``, or `nil` when it declined (having
    /// written nothing: checked here).
    static func listed(_ line: [UInt8], _ value: ByteRange) -> [UInt8]? {
        var out = JSONWriter()
        out.beginObject(opening: #"{"a":"#)
        out.number(1)
        let before = out.count
        guard out.badgeList(line.span, value, key: "badges") else {
            #expect(out.count == before, "a declined value writes nothing")
            return nil
        }
        out.member(#""z":2"#)
        out.endObject()
        return out.bytes
    }

    /// `@badges=<value>` then `tail`, with the value's range.
    static func line(_ value: [UInt8], tail: String = " :n!n@n PRIVMSG #c :hello there, everyone") -> (
        [UInt8], ByteRange
    ) {
        let line = Array("@badges=".utf8) + value + Array(tail.utf8)
        return (line, ByteRange(UInt16(8), UInt16(8 + value.count)))
    }

    @Test(
        "usual values are written as the cursor walk writes them",
        arguments: [
            "subscriber/24", "subscriber/3012,bits/1000", "moderator/1,subscriber/36,premium/1", "a", "a/", "/", "/1",
            "a/b/c", ",", ",,a/1,,b/2,", "glhf-pledge/1,sub_gifter/5", "x/#F00",
        ])
    func usualValues(value: String) throws {
        let (line, range) = Self.line(Array(value.utf8))
        let listed = try #require(Self.listed(line, range))
        #expect(String(decoding: listed, as: UTF8.self) == String(decoding: Self.walked(line, range), as: UTF8.self))
    }

    @Test("a value at the very end of the line, and an empty one")
    func edges() throws {
        let (line, range) = Self.line(Array("vip/1,founder/0".utf8), tail: "")
        #expect(try #require(Self.listed(line, range)) == Self.walked(line, range))
        let (empty, none) = Self.line([])
        #expect(
            String(decoding: try #require(Self.listed(empty, none)), as: UTF8.self) == #"{"a":1,"badges":[],"z":2}"#)
    }

    @Test(
        "a value with an escape, a quote, a control byte, DEL or non-ASCII is declined",
        arguments: [
            Array(#"a/b\sc"#.utf8), Array(#"a"b/1"#.utf8), [0x61, 0x2F, 0x09], [0x61, 0x7F], [0x61, 0x2F, 0xC3, 0xA9],
            Array("long-badge-name/1,another/2".utf8) + [0xFF],
        ])
    func declined(value: [UInt8]) {
        let (line, range) = Self.line(value)
        #expect(Self.listed(line, range) == nil)
    }

    @Test("random values: written as the walk writes them when plain, declined otherwise", arguments: [1, 2, 3])
    func randomValues(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let alphabet: [UInt8] = Array("ab1_-/,/,#".utf8) + [0x5C, 0x22, 0x20, 0xC3, 0xA9, 0x7F]
        var written = 0
        for _ in 0..<4_000 {
            let plainOnly = Bool.random(using: &rng)
            let value: [UInt8] = (0..<Int.random(in: 0...40, using: &rng)).map { _ in
                plainOnly ? alphabet[Int.random(in: 0..<10, using: &rng)] : alphabet.randomElement(using: &rng)!
            }
            let tails = ["", " PING x", " :n!n@n PRIVMSG #c :hello there, everyone"]
            let (line, range) = Self.line(value, tail: tails.randomElement(using: &rng)!)
            let isPlain = value.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }
            if let listed = Self.listed(line, range) {
                written += 1
                #expect(isPlain)
                #expect(listed == Self.walked(line, range), "\(String(decoding: value, as: UTF8.self))")
            } else {
                #expect(!isPlain, "\(String(decoding: value, as: UTF8.self))")
            }
        }
        #expect(written > 1_500, "the one-pass writer is what is tested")
    }

    @Test("the typed encoder writes badges and badge_info, plain or not, as before")
    func typedUser() throws {
        func typed(_ text: String) throws -> String {
            let line = Array(text.utf8)
            let message = try TwitchMessage.parse(line.span)
            var out = JSONWriter()
            TypedJSONEncoder.encode(
                line.span, message, LineContext(timestamp: nil, tombstone: nil, isMirror: false),
                options: JSONOptions(), into: &out)
            return String(decoding: out.bytes, as: UTF8.self)
        }
        let plain = try typed("@badge-info=subscriber/27;badges=subscriber/24,bits/1000 :n!n@n PRIVMSG #c :hi")
        #expect(
            plain.contains(
                #""badges":[{"name":"subscriber","version":"24"},{"name":"bits","version":"1000"}],"badge_info":[{"name":"subscriber","version":"27"}]}"#
            ), "\(plain)")
        let escaped = try typed(#"@badges=x/a\sb,y/2;badge-info=, :n!n@n PRIVMSG #c :hi"#)
        #expect(
            escaped.contains(
                #""badges":[{"name":"x","version":"a b"},{"name":"y","version":"2"}],"badge_info":[]}"#), "\(escaped)")
    }
}
