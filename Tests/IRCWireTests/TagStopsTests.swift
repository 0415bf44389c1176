import Testing

@testable import IRCWire

/// The tag pass (``TwitchTags``, which jumps between delimiters with ``TagStops``' 64-byte masks)
/// against the plain tag cursor, on tag sections built to put keys, values, `=` inside values,
/// empty elements and the section's end at every position around the 64-byte chunk edges.
@Suite struct TagStopsTests {
    /// What the plain cursor finds: each known key's last value, and the counts.
    static func reference(_ line: ParsedLine, _ bytes: Span<UInt8>) -> (values: [TwitchTagKey: TagValue], all: Int) {
        var values: [TwitchTagKey: TagValue] = [:]
        var all = 0
        var cursor = line.tags
        while let tag = cursor.next(in: bytes) {
            guard tag.key.count > 0 else { continue }
            all += 1
            if let key = TwitchTagKey(bytes: bytes, tag.key) { values[key] = tag.value }
        }
        return (values, all)
    }

    static func check(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = Array(text.utf8)
        let line = try ParsedLine.parse(bytes.span)
        let tags = TwitchTags(line, in: bytes.span)
        let expected = reference(line, bytes.span)
        #expect(tags.count == expected.all, "\(text)", sourceLocation: sourceLocation)
        for key in TwitchTagKey.allCases {
            #expect(tags[key] == expected.values[key], "\(key) in \(text)", sourceLocation: sourceLocation)
        }
    }

    @Test("keys and values at every offset around the chunk edges, with = inside values and empty elements")
    func everyOffset() throws {
        for pad in 0..<70 {
            let filler = String(repeating: "x", count: pad)
            try Self.check("@k\(filler)=v;id=a=b;color=#FF0000 :u PRIVMSG #c :hi")
            try Self.check("@id=\(filler);;display-name=N=1;user-id=42; :u PRIVMSG #c :hi")
            try Self.check("@badges=\(filler)=;emotes=;tmi-sent-ts=1700000000000;id= :u PRIVMSG #c :hi")
            try Self.check("@room-id=1;x-\(filler);mod=1;id=last :u PRIVMSG #c :hi")
            // `=` and `;` after the section are not delimiters of its last key or value.
            try Self.check("@id=\(filler) :u PRIVMSG #c :a=b;c=d;")
            try Self.check("@mod=1;id\(filler) :u=v;w PRIVMSG #c :;=;")
            // The tag section ends a few bytes before the line (its last chunk is read byte by byte).
            try Self.check("@id=\(filler);user-id=7 PING")
            try Self.check("@user-id=7;id=\(filler)= PING")
        }
    }

    @Test("long sections over many chunks: the last occurrence of a key wins; unknown keys are counted")
    func longSections() throws {
        var rng: UInt64 = 7
        let keys = ["id", "user-id", "color", "display-name", "msg-param-x", "unknown-key", "badges", "emotes", ""]
        for _ in 0..<300 {
            var parts: [String] = []
            for _ in 0..<Int((rng >> 40) % 40 + 1) {
                rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let key = keys[Int((rng >> 33) % UInt64(keys.count))]
                let value = String(repeating: (rng >> 20) % 3 == 0 ? "=" : "v", count: Int((rng >> 50) % 90))
                parts.append((rng >> 10) % 5 == 0 ? key : "\(key)=\(value)")
            }
            try Self.check("@" + parts.joined(separator: ";") + " :u PRIVMSG #c :hi")
        }
    }

    @Test("TwitchTagKey(bytes:) finds a key in place, and near the end of the bytes (copied), alike")
    func keyLookupAtEveryDistanceFromTheEnd() {
        for name in ["id", "mod", "color", "user-id", "tmi-sent-ts", "reply-thread-parent-display-name", "nope"] {
            for tail in 0..<12 {
                let text = "x;" + name + String(repeating: "=", count: tail)
                let bytes = Array(text.utf8)
                let range = ByteRange(UInt16(2), UInt16(2 + name.utf8.count))
                let key = TwitchTagKey(bytes: bytes.span, range)
                #expect(key.map { "\($0.name)" } == (name == "nope" ? nil : name), "\(name) with \(tail) bytes after")
            }
        }
    }

    @Test("isRegular: no empty element and no documented key twice")
    func regularSections() throws {
        let cases: [(String, Bool)] = [
            ("@a=1;id=x;color=#F00", true), ("@x-u=1;x-u=2;msg-param-a=1;msg-param-a=2", true), ("@id", true),
            ("@id=1;id=2", false), ("@a=1;;b=2", false), ("@a=1;", false), ("@;a=1", false),
            ("@time;color;time", false),
        ]
        for (tags, regular) in cases {
            let bytes = Array((tags + " :u PRIVMSG #c :hi").utf8)
            #expect(try TwitchMessage.parse(bytes.span).tags.isRegular == regular, "\(tags)")
        }
    }
}
