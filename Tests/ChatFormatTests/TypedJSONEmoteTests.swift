import ChatStore
import ChatTestSupport
import IRCWire
import Testing

@testable import ChatFormat

/// The typed encoder finds each emote's bytes in a non-ASCII text from where the previous emote
/// ended (and from the text's start for one that lies before it). These tests hold its `"emotes"`
/// to the definition — every emote's code points counted from the text's start, byte by byte — for
/// texts of one- to four-byte sequences and invalid bytes, and emotes in and out of text order.
@Suite struct TypedJSONEmoteTests {
    /// The byte offset of code point `index` of `bytes[range]`, counted from the range's start.
    static func offset(_ bytes: [UInt8], _ index: Int, _ range: Range<Int>) -> Int {
        var seen = -1
        for i in range where bytes[i] & 0xC0 != 0x80 {
            seen += 1
            if seen == index { return i }
        }
        return range.upperBound
    }

    /// `"emotes":[…]` by the definition.
    static func expectedEmotes(_ line: [UInt8]) throws -> String {
        let message = try TwitchMessage.parse(line.span)
        let chat = message.privmsg(in: line.span)
        let text = try #require(chat).text
        let count = line[text.range].filter { $0 & 0xC0 != 0x80 }.count
        var out = JSONWriter()
        out.beginObject()
        out.key("emotes")
        out.beginArray()
        var cursor = message.emotes
        while let e = cursor.next(in: line.span) {
            guard let r = e.clamped(toCodePointCount: count) else { continue }
            out.beginObject()
            out.key("id")
            out.string(line.span, e.id)
            out.key("name")
            let from = Self.offset(line, r.lowerBound, text.range)
            let to = Self.offset(line, r.upperBound, text.range)
            out.string(line.span, ByteRange(from..<to))
            out.key("start")
            out.number(r.lowerBound)
            out.key("end")
            out.number(r.upperBound)
            out.endObject()
        }
        out.endArray()
        return String(decoding: out.bytes.dropFirst(), as: UTF8.self)
    }

    static func typed(_ line: [UInt8]) throws -> String {
        let message = try TwitchMessage.parse(line.span)
        var out = JSONWriter()
        TypedJSONEncoder.encode(
            line.span, message, LineContext(timestamp: nil), options: JSONOptions(), into: &out)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    @Test("random texts and emote tags: the same emotes as counted from the text's start")
    func randomLines() throws {
        var random = SplitMix64(seed: 0xE307E5)
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("Kappa".utf8), Array(" ".utf8), Array("é".utf8), Array("✓".utf8),
            Array("🎉".utf8), [0x80], [0xFF], Array("LUL".utf8), Array("\"".utf8),
        ]
        var checked = 0
        for _ in 0..<400 {
            var text: [UInt8] = []
            for _ in 0..<Int(random.next() % 24) { text += pieces[Int(random.next() % UInt64(pieces.count))] }
            var groups: [String] = []
            for id in 0..<Int(random.next() % 4) {
                var ranges: [String] = []
                for _ in 0..<1 + Int(random.next() % 3) {
                    let start = Int(random.next() % 30)
                    let end = start + Int(random.next() % 6) - 1  // sometimes inverted
                    ranges.append("\(start)-\(end)")
                }
                groups.append("\(id * 7 + 25):" + ranges.joined(separator: ","))
            }
            let line = Array("@emotes=\(groups.joined(separator: "/")) :u!u@u PRIVMSG #c :".utf8) + text
            let typed = try Self.typed(line)
            let expected = try Self.expectedEmotes(line)
            #expect(typed.contains(expected), "\(typed) lacks \(expected)")
            checked += 1
        }
        #expect(checked == 400)
    }

    @Test("an emote before the previous one in a non-ASCII text is found from the start again")
    func outOfOrder() throws {
        let line = Array("@emotes=25:8-12/1902:0-4 :u!u@u PRIVMSG #c :Kappé é Kappa".utf8)
        #expect(
            try Self.typed(line).contains(
                #""emotes":[{"id":"25","name":"Kappa","start":8,"end":13},{"id":"1902","name":"Kappé","start":0,"end":5}]"#
            ))
    }
}
