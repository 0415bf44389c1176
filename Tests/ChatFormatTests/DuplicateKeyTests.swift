import ChatStore
import ChatTestSupport
import IRCWire
import Testing

@testable import ChatFormat

/// Every JSON object chatcap writes has each key once. Tag keys become object keys in `--format irc`
/// (`"tags"`), in `--format json --with-tags` (`"tags"`) and in a USERNOTICE's `"params"`: a key
/// given twice (`@a=1;a=2`) and keys that differ only in invalid UTF-8 (`\xff`, `\xfe`: both are
/// written as U+FFFD) are written once, with the value of the last of them.
@Suite struct DuplicateKeyTests {
    /// The line's ircdocs atoms object.
    static func atoms(_ line: [UInt8]) throws -> String {
        let message = try TwitchMessage.parse(line.span)
        var out = JSONWriter()
        IRCAtomsEncoder.encode(line.span, message, into: &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// The line's typed object with every tag.
    static func typed(_ line: [UInt8]) throws -> String {
        let message = try TwitchMessage.parse(line.span)
        var out = JSONWriter()
        let context = LineContext(timestamp: nil, tombstone: Tombstone.none, isMirror: false)
        TypedJSONEncoder.encode(line.span, message, context, options: JSONOptions(withTags: true), into: &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    static func bytes(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } }
    static func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("a tag given twice is one key with the last value (IRCv3: the last one wins)")
    func repeatedKey() throws {
        #expect(
            try Self.atoms(Self.ascii("@a=1;b=x;a=2 :n!n@n PRIVMSG #c :hi"))
                == ##"{"tags":{"b":"x","a":"2"},"source":"n!n@n","verb":"PRIVMSG","params":["#c","hi"]}"##)
        #expect(
            try Self.atoms(Self.ascii("@a=1;a;a=\\s PING x")) == #"{"tags":{"a":" "},"verb":"PING","params":["x"]}"#)
        #expect(try Self.atoms(Self.ascii("@id=1;id=2 PING x")) == #"{"tags":{"id":"2"},"verb":"PING","params":["x"]}"#)
    }

    @Test("keys that differ only in invalid UTF-8 are one key (U+FFFD), with the last value")
    func keysEqualAfterRepair() throws {
        let line = Self.bytes(Self.ascii("@"), [0xFF], Self.ascii("=1;"), [0xFE], Self.ascii("=2;a=3 PING x"))
        #expect(try Self.atoms(line) == #"{"tags":{"\#u{FFFD}":"2","a":"3"},"verb":"PING","params":["x"]}"#)
        let typed = try Self.typed(line)
        #expect(typed.hasSuffix(#","tags":{"\#u{FFFD}":"2","a":"3"}}"#), "\(typed)")
        // A valid U+FFFD and a cut-short sequence (E2 82, one maximal invalid subpart) both read as
        // U+FFFD; F0 9F is one subpart too, so "k\u{FFFD}\u{FFFD}" stays a key of its own.
        let mixed = Self.bytes(
            Self.ascii("@k"), Array("\u{FFFD}".utf8), Self.ascii("=1;k"), [0xE2, 0x82], Self.ascii("=2;k"),
            [0xFF, 0xFE],
            Self.ascii("=3;k"), [0xF0, 0x9F], Self.ascii("=4 PING x"))
        #expect(
            try Self.atoms(mixed)
                == #"{"tags":{"k\#u{FFFD}\#u{FFFD}":"3","k\#u{FFFD}":"4"},"verb":"PING","params":["x"]}"#)
    }

    @Test("msg-param keys of a USERNOTICE that differ only in invalid UTF-8 are one \"params\" key")
    func userNoticeParams() throws {
        let line = Self.bytes(
            Self.ascii("@msg-id=sub;msg-param-"), [0xFF], Self.ascii("=1;msg-param-"), [0xFE],
            Self.ascii("=2;msg-param-months=3;msg-param-months=4 :tmi.twitch.tv USERNOTICE #c"))
        let typed = try Self.typed(line)
        #expect(typed.contains(#""params":{"\#u{FFFD}":"2","months":4}"#), "\(typed)")
    }

    @Test("repaired key equality agrees with UTF8Repair on 20,000 random keys", arguments: [1, 2, 3])
    func randomKeys(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        // Bytes that make every kind of sequence: ASCII, leads, continuations, never-valid bytes.
        let alphabet: [UInt8] = [
            0x61, 0x62, 0x80, 0x82, 0x9F, 0xA0, 0xBD, 0xBF, 0xC2, 0xE0, 0xE2, 0xED, 0xEF, 0xF0, 0xF4, 0xFE, 0xFF,
        ]
        func key() -> [UInt8] {
            (0..<Int.random(in: 0...4, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
        }
        func repaired(_ bytes: [UInt8]) -> [UInt8] {
            var out: [UInt8] = []
            var repair = UTF8Repair()
            for b in bytes { repair.feed(b) { out.append($0) } }
            repair.finish { out.append($0) }
            return out
        }
        var equalPairs = 0
        for _ in 0..<20_000 {
            let a = key()
            let b = Bool.random(using: &rng) ? key() : repaired(a)
            let expected = repaired(a) == repaired(b)
            if expected { equalPairs += 1 }
            #expect(UTF8Repair.equalAfterRepair(a.span, b.span) == expected, "\(a) \(b)")
        }
        #expect(equalPairs > 5_000)
    }

    @Test("the shortcut for sections without repeats writes what checking every tag writes")
    func shortcutEqualsCheckingEveryTag() throws {
        let vocabulary: [[UInt8]] = [
            Self.ascii("id=1"), Self.ascii("id=2"), Self.ascii("color=#F00"), Self.ascii("mod"),
            Self.ascii("msg-param-months=3"), Self.ascii("msg-param-months=4"), Self.ascii("msg-param-x=y"),
            Self.ascii("x-a=1"), Self.ascii("x-a=2"), Self.ascii("x-b"), Self.bytes([0xFF], Self.ascii("=1")),
            Self.bytes([0xFE], Self.ascii("=2")), Self.ascii("display-name=A\\sB"), Self.ascii("emotes="),
        ]
        var rng: UInt64 = 7
        var shortcuts = 0
        for _ in 0..<3_000 {
            var parts: [[UInt8]] = []
            for _ in 0..<(1 + Int(rng >> 60)) {
                rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                parts.append(vocabulary[Int((rng >> 33) % UInt64(vocabulary.count))])
            }
            var line = Self.ascii("@")
            for (k, part) in parts.enumerated() { line += (k > 0 ? Self.ascii(";") : []) + part }
            line += Self.ascii(" :n!n@n PRIVMSG #c :hi")
            let message = try TwitchMessage.parse(line.span)
            var fast = JSONWriter()
            IRCAtomsEncoder.writeTags(line.span, message, into: &fast)
            var checked = JSONWriter()
            IRCAtomsEncoder.writeTags(line.span, message, into: &checked, checksEveryTag: true)
            #expect(fast.bytes == checked.bytes, "\(String(decoding: line, as: UTF8.self))")
            let tags = message.tags
            if tags.isRegular && tags.msgParamCount + tags.unknownCount <= 1 { shortcuts += 1 }
        }
        #expect(shortcuts > 200, "the shortcut is taken often enough to be what is tested")
    }
}
