import ChatTestSupport
import IRCWire
import Testing

@Suite struct ParsedLineTests {
    /// The verb's rule (ASCII letters and digits up to a space or the end) as a byte loop.
    static func expectedVerb(_ line: [UInt8], from start: Int) -> Result<Range<Int>, LineError> {
        var k = start
        while k < line.count, (line[k] | 0x20) &- 0x61 < 26 || line[k] &- 0x30 < 10 { k += 1 }
        if k < line.count && line[k] != 0x20 { return .failure(.invalidCommand(offset: k)) }
        return .success(start..<k)
    }

    @Test(
        "the verb: every byte value at every place of verbs of 1 to 20 bytes, at every alignment, ended by a space or the line"
    )
    func verbEveryByte() {
        var checked = 0
        for prefix in 0..<9 {
            let source = [UInt8(ascii: ":")] + [UInt8](repeating: UInt8(ascii: "s"), count: prefix + 1) + [0x20]
            for length in 1...20 {
                for place in 0..<length {
                    for value in 0...255 {
                        let byte = UInt8(value)
                        if byte == 0x20 && place == 0 { continue }  // a space there is not in the verb
                        var verb = (0..<length).map { UInt8(ascii: "A") + UInt8(($0 * 7) % 26) | UInt8($0 % 2) << 5 }
                        if length > 3 { verb[length / 2] = UInt8(ascii: "0") + UInt8(length % 10) }
                        verb[place] = byte
                        for tail in [[], [0x20, UInt8(ascii: "x")]] {
                            let line = source + verb + tail
                            let expected = Self.expectedVerb(line, from: source.count)
                            let got = Result { () throws(LineError) -> Range<Int> in
                                try ParsedLine.parse(line.span).verbRange.range
                            }
                            #expect(got == expected, "prefix \(prefix), length \(length), place \(place), byte \(byte)")
                            checked += 1
                        }
                    }
                }
            }
        }
        #expect(checked > 900_000)
    }

    static func parse(_ s: String) -> Result<ParsedLine, LineError> {
        let bytes = Array(s.utf8)
        do throws(LineError) { return .success(try ParsedLine.parse(bytes.span)) } catch { return .failure(error) }
    }

    @Test(
        "malformed lines are errors with the offset where parsing stopped",
        arguments: [
            ("", LineError.empty),
            ("@a=b;c", .missingCommand(offset: 6)),
            ("@a=b ", .missingCommand(offset: 5)),
            (":source", .missingCommand(offset: 7)),
            (":source   ", .missingCommand(offset: 10)),
            ("@a :src", .missingCommand(offset: 7)),
            ("PRIV\u{0}MSG #c :x", .invalidCommand(offset: 4)),
            ("\u{1}\u{2}garbage", .invalidCommand(offset: 0)),
            ("@a=b :src PRIV/MSG", .invalidCommand(offset: 14)),
        ])
    func errors(input: String, expected: LineError) {
        #expect(Self.parse(input) == .failure(expected))
    }

    @Test("a line of spaces is empty")
    func spaces() {
        #expect(Self.parse("    ") == .failure(.empty))
    }

    @Test("lines longer than 16-bit offsets allow are refused, not truncated")
    func tooLong() {
        let bytes = [UInt8](repeating: UInt8(ascii: "A"), count: 70_000)
        #expect(throws: LineError.tooLong(length: 70_000)) { try ParsedLine.parse(bytes.span) }
    }

    @Test("parameters: count, middle and trailing, leading and repeated spaces")
    func params() throws {
        let atoms = try Atoms.parse(Array(":s CMD  a   b :c d ".utf8))
        #expect(atoms.params == ["a", "b", "c d "])
        let bytes = Array("CMD a b c".utf8)
        let p = try ParsedLine.parse(bytes.span)
        #expect(p.paramCount == 3 && !p.hasTrailing)
        let last = p.lastParam(in: bytes.span)
        #expect(last.map { string(bytes.span, $0) } == "c")
        let none = p.param(3, in: bytes.span)
        #expect(none == nil)
    }

    @Test("invalid UTF-8 is kept as bytes")
    func invalidUTF8() throws {
        let bytes: [UInt8] = Array(":a PRIVMSG #c :".utf8) + [0xFF, 0xC3, 0x41, 0xF0, 0x9F]
        let p = try ParsedLine.parse(bytes.span)
        let last = p.lastParam(in: bytes.span)
        let text = try #require(last)
        #expect(Array(bytes[text.range]) == [0xFF, 0xC3, 0x41, 0xF0, 0x9F])
    }

    @Test("source parts: nick!user@host, nick only, host only")
    func sourceParts() throws {
        for (line, nick, user, host) in [
            (":n!u@h X", "n", "u", "h"), (":n X", "n", nil, nil), (":n@h X", "n", nil, "h"),
            (":irc.example.com X", "irc.example.com", nil, nil),
        ] as [(String, String, String?, String?)] {
            let bytes = Array(line.utf8)
            let found = try ParsedLine.parse(bytes.span).sourceParts(in: bytes.span)
            let parts = try #require(found)
            #expect(string(bytes.span, parts.nick) == nick)
            #expect(parts.user.map { string(bytes.span, $0) } == user)
            #expect(parts.host.map { string(bytes.span, $0) } == host)
        }
    }

    static let afterSource = Array(" PRIVMSG #c :hi".utf8)

    /// 5,000 lines `:SOURCE PRIVMSG #c :hi`, each source 1 to 14 bytes of letters, `!`, `@` and `.`.
    static func randomSourceLines(seed: UInt64) -> [[UInt8]] {
        var random = SplitMix64(seed: seed)
        let pool = Array("ab1_!@.x".utf8)
        return (0..<5_000).map { _ in
            let source = (0..<(1 + Int(random.next() % 14))).map { _ in pool[Int(random.next() % UInt64(pool.count))] }
            return Array(":".utf8) + source + afterSource
        }
    }

    @Test("the source's nick alone is the nick of its parts, on 5,000 random sources")
    func sourceNick() throws {
        for bytes in Self.randomSourceLines(seed: 0x5_0C4) {
            let parsed = try ParsedLine.parse(bytes.span)
            #expect(
                parsed.sourceNick(in: bytes.span) == parsed.sourceParts(in: bytes.span)?.nick,
                "\(String(decoding: bytes, as: UTF8.self))")
        }
        let none = Array("PING :x".utf8)
        #expect(try ParsedLine.parse(none.span).sourceNick(in: none.span) == nil)
    }

    @Test(
        "the source's nick ends at its first ! or @, for sources of 1 to 80 bytes in lines ending right after them or far later"
    )
    func sourceNickAgainstLoop() throws {
        var random = SplitMix64(seed: 0x21C4)
        for length in 1...80 {
            for _ in 0..<40 {
                // Mostly letters, so that the first `!` or `@` falls anywhere, or nowhere.
                let source = (0..<length).map { _ -> UInt8 in
                    switch random.next() % 40 {
                    case 0: UInt8(ascii: "!")
                    case 1: UInt8(ascii: "@")
                    default: UInt8(ascii: "a") + UInt8(random.next() % 26)
                    }
                }
                let expected = source.firstIndex { $0 == UInt8(ascii: "!") || $0 == UInt8(ascii: "@") } ?? length
                // A short rest (the line ends within a block of the source) and a long one; `!` and `@`
                // after the source must not count.
                for rest in [" PING", " PRIVMSG #c :" + String(repeating: "!@", count: 40)] {
                    let bytes = Array(":".utf8) + source + Array(rest.utf8)
                    let parsed = try ParsedLine.parse(bytes.span)
                    #expect(
                        parsed.sourceNick(in: bytes.span) == ByteRange(1..<(1 + expected)),
                        "\(String(decoding: bytes, as: UTF8.self))")
                }
            }
        }
    }

    @Test("source parts match the split by first `@`, then first `!` before it, on 5,000 random sources")
    func sourcePartsAgainstSplit() throws {
        for bytes in Self.randomSourceLines(seed: 0x5_0C5) {
            // The split written out: host after the first `@`; user after the first `!` before it.
            let lo = 1
            let hi = bytes.count - Self.afterSource.count
            let at = (lo..<hi).first { bytes[$0] == UInt8(ascii: "@") }
            let nickEnd = at ?? hi
            let bang = (lo..<nickEnd).first { bytes[$0] == UInt8(ascii: "!") }
            let found = try ParsedLine.parse(bytes.span).sourceParts(in: bytes.span)
            let parts = try #require(found)
            let line = String(decoding: bytes, as: UTF8.self)
            #expect(parts.nick == ByteRange(lo..<(bang ?? nickEnd)), "\(line)")
            #expect(parts.user == bang.map { ByteRange(($0 + 1)..<nickEnd) }, "\(line)")
            #expect(parts.host == at.map { ByteRange(($0 + 1)..<hi) }, "\(line)")
        }
    }

    @Test(
        "tag values unescape lazily: every escape, unknown escapes, a lone trailing backslash",
        arguments: [
            ("a\\:b", "a;b"), ("a\\sb", "a b"), ("a\\\\b", "a\\b"), ("a\\rb", "a\rb"), ("a\\nb", "a\nb"),
            ("a\\xb", "axb"), ("ab\\", "ab"), ("\\s", " "), ("", ""), ("\\\\\\s", "\\ "),
        ])
    func unescape(raw: String, expected: String) throws {
        let bytes = Array("@k=\(raw) X".utf8)
        let parsed = try ParsedLine.parse(bytes.span)
        let found = parsed.tag("k", in: bytes.span)
        let value = try #require(found)
        #expect(string(bytes.span, value) == expected)
        #expect(value.needsUnescaping(in: bytes.span) == raw.contains("\\"))
    }

    @Test("key-only and empty tags are present and empty; absent tags are nil")
    func keyOnly() throws {
        let bytes = Array("@a;b=;c=1 X".utf8)
        let p = try ParsedLine.parse(bytes.span)
        let a = p.tag("a", in: bytes.span)
        let b = p.tag("b", in: bytes.span)
        let z = p.tag("z", in: bytes.span)
        #expect(a?.raw.isEmpty == true && b?.raw.isEmpty == true && z == nil)
    }

    @Test("integers in tag values, with overflow and junk refused")
    func integers() throws {
        let bytes = Array("@a=123;b=-5;c=x1;d=99999999999999999999;e=;f=- X".utf8)
        let p = try ParsedLine.parse(bytes.span)
        var got: [Int64?] = []
        var cursor = p.tags
        while let t = cursor.next(in: bytes.span) { got.append(t.value.integer(in: bytes.span)) }
        #expect(got == [123, -5, nil, nil, nil, nil])
    }

    @Test("ByteScan finds the first match at every alignment, and nothing past the range")
    func byteScan() {
        for length in 0..<100 {
            for position in 0..<length {
                var bytes = [UInt8](repeating: 0x41, count: length)
                bytes[position] = 0x20
                if position + 3 < length { bytes[position + 3] = 0x20 }
                #expect(ByteScan.firstIndex(of: 0x20, in: bytes.span) == position)
                #expect(ByteScan.firstIndex(of: 0x20, in: bytes.span, from: 0, to: position) == nil)
            }
        }
        // High bytes must not be mistaken for matches (the SWAR borrow trick).
        let high = [UInt8](repeating: 0xA0, count: 33) + [0x20]
        #expect(ByteScan.firstIndex(of: 0x20, in: high.span) == 33)
        let zeros = [UInt8](repeating: 0x00, count: 17) + [0x01]
        #expect(ByteScan.firstIndex(of: 0x01, in: zeros.span) == 17)
        // Past the vector blocks: a match in the second and third 32-byte blocks, from an odd start,
        // and one just outside a range that ends inside a block.
        let long = [UInt8](repeating: 0x41, count: 70) + [0x20] + [UInt8](repeating: 0x41, count: 29)
        #expect(ByteScan.firstIndex(of: 0x20, in: long.span, from: 3, to: 100) == 70)
        #expect(ByteScan.firstIndex(of: 0x20, in: long.span, from: 3, to: 70) == nil)
        #expect(ByteScan.firstIndex(of: 0x20, in: long.span, from: 71, to: 100) == nil)
    }
}
