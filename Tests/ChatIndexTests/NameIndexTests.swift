import IRCWire
import Testing

@testable import ChatIndex

@Suite struct NameIndexTests {
    /// `count` distinct logins of 1 to 25 bytes (letters, digits, `_`), in mixed case.
    static func logins(_ count: Int) -> [[UInt8]] {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_".utf8)
        var rng: UInt64 = 0x5EED
        var seen = Set<[UInt8]>()
        var names: [[UInt8]] = []
        while names.count < count {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var name: [UInt8] = []
            for k in 0..<Int(rng >> 59) % 25 + 1 {
                name.append(alphabet[Int((rng >> UInt64(k % 40)) % UInt64(alphabet.count))])
            }
            name += Array(String(names.count).utf8)  // distinct whatever the draw
            if seen.insert(name.map(\.asciiLowercased)).inserted { names.append(name) }
        }
        return names
    }

    @Test("names whose keys all collide each keep their own value: the probes walk past the others")
    func collidingKeys() {
        var index = NameIndex(matching: .exact)
        let names = Self.logins(300)
        // Every name under the same first key: the worst a hash could do.
        for (i, name) in names.enumerated() {
            let missing = index.value(forKey: 6) { names[Int($0)] == name }
            #expect(missing == nil)
            index.insert(UInt64(i), forKey: 6)
        }
        #expect(index.count == 300)
        for (i, name) in names.enumerated() {
            var asked = 0
            let found = index.value(forKey: 6) {
                asked += 1
                return names[Int($0)] == name
            }
            #expect(found == UInt64(i))
            #expect(asked == i + 1, "the probes meet the names stored before it, in order")
        }
        #expect(index.value(forKey: 6) { _ in false } == nil)
    }

    @Test("10,000 names are each found by their own key, and a name not stored is not")
    func manyNames() {
        var index = NameIndex(matching: .exact)
        let names = Self.logins(10_001)
        for (i, name) in names.dropLast().enumerated() { index.insert(UInt64(i), for: name.span) }
        #expect(index.count == 10_000 && index.reservedBytes == 16_384 * 16)
        for (i, name) in names.dropLast().enumerated() {
            #expect(index.value(for: name.span) { names[Int($0)] == name } == UInt64(i))
        }
        let absent = names[10_000]
        #expect(index.value(for: absent.span) { names[Int($0)] == absent } == nil)
    }

    @Test("case-insensitive keys hash the lowercased bytes; exact keys tell the cases apart")
    func caseInsensitiveKeys() {
        var folding = NameIndex(matching: .asciiCaseInsensitive)
        let exact = NameIndex(matching: .exact)
        for name in Self.logins(500) {
            let lower = name.map(\.asciiLowercased)
            let upper = name.map { $0 &- UInt8(ascii: "a") < 26 ? $0 & ~0x20 : $0 }
            #expect(folding.key(for: name.span) == folding.key(for: lower.span))
            #expect(folding.key(for: upper.span) == folding.key(for: lower.span))
            #expect(folding.key(for: lower.span) == exact.key(for: lower.span))
            if upper != lower { #expect(exact.key(for: upper.span) != exact.key(for: lower.span)) }
        }
        let names: [[UInt8]] = [Array("nightowlgg".utf8), Array("xqc".utf8)]
        for (i, name) in names.enumerated() { folding.insert(UInt64(i), for: name.span) }
        let asked = Array("NightOwlGG".utf8)
        let found = folding.value(for: asked.span) {
            asked.span.equals(lowercased: names[Int($0)], at: 0..<asked.count)
        }
        #expect(found == 0)
    }

    @Test("the empty name has a key of its own (1); keys are never 0 and have bit 1 set otherwise")
    func keys() {
        var index = NameIndex(matching: .exact)
        let empty: [UInt8] = []
        #expect(index.key(for: empty.span) == 1)
        for name in Self.logins(1_000) { #expect(index.key(for: name.span) & 2 == 2) }
        index.insert(7, for: empty.span)
        #expect(index.value(for: empty.span) { $0 == 7 } == 7)
    }

    @Test("lowercasedASCII lowercases A…Z in every byte of a word and leaves every other byte as it is")
    func lowercasedWord() {
        var rng: UInt64 = 99
        for byte in 0...255 as ClosedRange<UInt64> {
            for position in 0..<8 {
                rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let word = rng & ~(0xFF << UInt64(8 * position)) | byte << UInt64(8 * position)
                var expected: UInt64 = 0
                for k in 0..<8 {
                    let b = UInt8(truncatingIfNeeded: word >> UInt64(8 * k))
                    expected |= UInt64(b.asciiLowercased) << UInt64(8 * k)
                }
                #expect(lowercasedASCII(word) == expected, "byte \(byte) at \(position) in \(word)")
            }
        }
    }

    @Test("hashing lowercased is hashing the lowercased bytes, at every length and offset", arguments: 0...40)
    func lowercasingHash(length: Int) {
        var rng = UInt64(length) &+ 1
        var bytes: [UInt8] = []
        for _ in 0..<length + 3 {
            rng = rng &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: rng >> 56))
        }
        let lower = bytes.map(\.asciiLowercased)
        let range = 3..<length + 3
        #expect(hashBytes(bytes.span, range, lowercasingASCII: true) == hashBytes(lower.span, range))
        #expect(hashBytes(lower.span, range, lowercasingASCII: false) == hashBytes(lower.span, range))
    }
}
