import ChatTestSupport
import Testing

@testable import IRCWire

/// ``EmoteCursor`` against the `emotes` grammar read the plain way: split at `/`, the id before the
/// first `:`, pieces split at `,`, each piece split at its first `-` into two runs of 1 to 9 digits.
@Suite("Emote cursor")
struct EmoteCursorTests {
    /// What the plain reading yields for `value`: `id:start-last` for every well-formed piece, and
    /// the count of malformed groups and pieces (an empty group or piece is no piece).
    static func model(_ value: String) -> (emotes: [String], malformed: Int) {
        var emotes: [String] = []
        var malformed = 0
        for group in value.split(separator: "/", omittingEmptySubsequences: false) {
            guard let colon = group.firstIndex(of: ":") else {
                if !group.isEmpty { malformed += 1 }
                continue
            }
            let id = group[..<colon]
            for piece in group[group.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false) {
                guard !piece.isEmpty else { continue }
                guard let dash = piece.firstIndex(of: "-") else {
                    malformed += 1
                    continue
                }
                let first = piece[..<dash]
                let last = piece[piece.index(after: dash)...]
                func number(_ s: Substring) -> Int? {
                    guard (1...9).contains(s.count), s.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
                    return Int(s)
                }
                guard let a = number(first), let b = number(last) else {
                    malformed += 1
                    continue
                }
                emotes.append("\(id):\(a)-\(b)")
            }
        }
        return (emotes, malformed)
    }

    /// What the cursor yields for `value`, read from a PRIVMSG that carries it as its `emotes` tag.
    static func cursor(_ value: String) throws -> (emotes: [String], malformed: Int) {
        let v = try Viewed("@emotes=\(value);id=x :a!a@a PRIVMSG #c :Kappa")
        var c = v.message.emotes
        var got: [String] = []
        while let e = c.next(in: v.bytes.span) { got.append("\(v.s(e.id)!):\(e.start)-\(e.last)") }
        return (got, c.malformedCount)
    }

    @Test(
        "edge values read as the plain split reads them",
        arguments: [
            "", "/", "//", ":", "25:", "25:/", "25:,", "25:,,0-4,,", "25:0-4", "25:0-4/", "/25:0-4", "25:0-4,",
            "25:0-4,6-10/1902:12-16", "25:0-4,x-2,7/nocolon/1:1-1,", "25:-4", "25:4-", "25:-", "25:0--4",
            "25:0-4-5", "25:1:2-3", "a:b:1-2", "25:0-4:1", "25:123456789-1", "25:1234567890-1",
            "25:1-1234567890", "25:0012-0013", "25:1-2/x", "x/25:1-2", "emotesv2_abc:0-5,7-12",
            "25:1-2/:3-4", "25:٣-4",
        ])
    func edges(_ value: String) throws {
        let got = try Self.cursor(value)
        let want = Self.model(value)
        #expect(got.emotes == want.emotes, "\(value)")
        #expect(got.malformed == want.malformed, "\(value)")
    }

    @Test("10,000 random values over the grammar's bytes read as the plain split reads them")
    func random() throws {
        var rng = SplitMix64(seed: 0xE307E5)
        let alphabet = Array("0123456789:-,/x")
        let digits = Array("0123456789")
        var mismatches: [String] = []
        for round in 0..<10_000 {
            var value = ""
            let length = Int.random(in: 0...40, using: &rng)
            if round % 2 == 0 {
                // Mostly well-formed: groups of digit pieces, with a byte changed now and then.
                let groups = Int.random(in: 1...3, using: &rng)
                for g in 0..<groups {
                    if g > 0 { value += "/" }
                    value += String(Int.random(in: 1...99_999, using: &rng)) + ":"
                    for p in 0..<Int.random(in: 1...4, using: &rng) {
                        if p > 0 { value += "," }
                        let a = String(
                            (0..<Int.random(in: 1...10, using: &rng)).map { _ in digits.randomElement(using: &rng)! })
                        let b = String(
                            (0..<Int.random(in: 1...3, using: &rng)).map { _ in digits.randomElement(using: &rng)! })
                        value += a + "-" + b
                    }
                }
                if !value.isEmpty && Int.random(in: 0..<3, using: &rng) == 0 {
                    var bytes = Array(value)
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = alphabet.randomElement(using: &rng)!
                    value = String(bytes)
                }
            } else {
                value = String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
            }
            let got = try Self.cursor(value)
            let want = Self.model(value)
            if got.emotes != want.emotes || got.malformed != want.malformed { mismatches.append(value) }
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5))")
    }

    /// The id scan reads eight bytes a step and may read past the range: every range of random
    /// buffers (bytes `:`, `/`, `;`, `a`, 0x80 and 0xFF) against a byte-at-a-time search, with
    /// matches past the range's end (none counts) and ranges ending at the buffer's end.
    @Test("the id scan finds the first `:` or `/` in its range, as a byte-at-a-time search does")
    func colonOrSlash() {
        var rng = SplitMix64(seed: 0xC0105)
        let alphabet: [UInt8] = [0x3A, 0x2F, 0x3B, 0x61, 0x80, 0xFF, 0x61, 0x61]
        var failures: [String] = []
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }
            for from in 0...bytes.count {
                for end in from...bytes.count {
                    let want = bytes[from..<end].firstIndex { $0 == 0x3A || $0 == 0x2F } ?? end
                    let got = EmoteCursor.colonOrSlash(bytes.span, from: from, end: end)
                    if got != want { failures.append("\(bytes) \(from)..<\(end): \(got), not \(want)") }
                }
            }
        }
        #expect(failures.isEmpty, "first failures: \(failures.prefix(3))")
    }
}
