import Testing

@testable import ChatIndex

@Suite struct ChannelIndexTests {
    /// The entry a test stores for name number `i` (fake addresses: the index never dereferences them).
    static func entry(_ i: Int) -> ChannelIndex.Entry {
        ChannelIndex.Entry(log: UInt(0x1000 + 16 * i), ring: UInt(0x90_0000 + 32 * i), channel: i)
    }

    @Test("the slot is one cache line: the hash, the entry and 32 bytes of name")
    func slotIsALine() {
        var index = ChannelIndex(minimumCapacity: 1)
        #expect(index.reservedBytes == 16 * 64)
        let name = Array("channel1".utf8)
        index.insert(ChannelIndex.key(for: name.span), Self.entry(0))
        #expect(index.entry(for: ChannelIndex.key(for: name.span)) { _ in false } == Self.entry(0))
    }

    @Test("10,000 names are each found with their own entry, the table at most 3/4 full; a name not stored is not")
    func manyNames() {
        var index = ChannelIndex()
        let names = NameIndexTests.logins(10_001)
        for (i, name) in names.dropLast().enumerated() {
            let key = ChannelIndex.key(for: name.span)
            #expect(index.entry(for: key) { _ in true } == nil)
            index.insert(key, Self.entry(i))
        }
        #expect(index.count == 10_000 && index.reservedBytes == 16_384 * 64)
        var wrong = 0
        for (i, name) in names.dropLast().enumerated()
        where index.entry(for: ChannelIndex.key(for: name.span), confirm: { _ in true }) != Self.entry(i) {
            wrong += 1
        }
        #expect(wrong == 0)
        let absent = names[10_000]
        #expect(index.entry(for: ChannelIndex.key(for: absent.span)) { _ in true } == nil)
    }

    @Test("names whose hashes all collide each keep their own entry: the probes compare the names")
    func collidingHashes() {
        var index = ChannelIndex()
        let names = NameIndexTests.logins(300).map { Array($0.prefix(ChannelIndex.inlineBytes)) }
        func key(_ name: [UInt8]) -> ChannelIndex.Key {
            var k = ChannelIndex.key(for: name.span)
            k.hash = 6  // the worst a hash could do
            return k
        }
        for (i, name) in names.enumerated() {
            #expect(index.entry(for: key(name)) { _ in true } == nil)
            index.insert(key(name), Self.entry(i))
        }
        for (i, name) in names.enumerated() { #expect(index.entry(for: key(name)) { _ in true } == Self.entry(i)) }
    }

    @Test("keys tell apart names that differ in length only, in any byte of the first 32, or past them")
    func keysCompareWholeNames() {
        let base = Array("abcdefghijklmnopqrstuvwxyz012345".utf8)  // 32 bytes
        var names: [[UInt8]] = [[], [0], [0, 0], Array(base.prefix(7)), Array(base.prefix(8)), Array(base.prefix(9))]
        for k in [0, 7, 8, 15, 24, 31] {
            var changed = base
            changed[k] ^= 1
            names.append(changed)
        }
        names += [base, base + [0], base + Array("x".utf8), base + Array("y".utf8), base + Array("xyz".utf8)]
        // Twice: with the names' own hashes, and with one hash for all the names of up to 32 bytes,
        // so that the slot's length and bytes alone must tell them apart.
        for forced in [false, true] {
            func key(_ name: [UInt8]) -> ChannelIndex.Key {
                var k = ChannelIndex.key(for: name.span)
                if forced && name.count <= ChannelIndex.inlineBytes { k.hash = 77 }
                return k
            }
            var index = ChannelIndex()
            for (i, name) in names.enumerated() { index.insert(key(name), Self.entry(i)) }
            for (i, name) in names.enumerated() {
                let found = index.entry(for: key(name)) { $0 == Self.entry(i) }
                #expect(found == Self.entry(i), "\(name), forced \(forced)")
            }
        }
        var index = ChannelIndex()
        for (i, name) in names.enumerated() { index.insert(ChannelIndex.key(for: name.span), Self.entry(i)) }
        // A key is the same wherever the name's bytes sit (here inside a longer line).
        let line = Array("@a=b :u PRIVMSG #abcdefghi :hi".utf8)
        let inLine = ChannelIndex.key(for: line.span.extracting(17..<26))
        #expect(index.entry(for: inLine) { _ in true } == Self.entry(5))
    }

    @Test("a name past 32 bytes is only found when confirm says so; a short one never asks")
    func longNamesAreConfirmed() {
        var index = ChannelIndex()
        let long = Array(String(repeating: "a", count: 40).utf8)
        let short = Array("short".utf8)
        // Two long names with the same key (same first 32 bytes, length and, forced, hash).
        var key = ChannelIndex.key(for: long.span)
        key.hash = 99
        index.insert(key, Self.entry(1))
        index.insert(key, Self.entry(2))
        index.insert(ChannelIndex.key(for: short.span), Self.entry(3))
        #expect(index.entry(for: key) { $0.channel == 2 } == Self.entry(2))
        #expect(index.entry(for: key) { $0.channel == 1 } == Self.entry(1))
        #expect(index.entry(for: key) { _ in false } == nil)
        var asked = 0
        let found = index.entry(for: ChannelIndex.key(for: short.span)) { _ in
            asked += 1
            return false
        }
        #expect(found == Self.entry(3) && asked == 0)
    }

    @Test(
        "a name's words lowercased are the words of its bytes lowercased one by one: every byte value, at every place")
    func wordsLowercased() {
        func lowered(_ b: UInt8) -> UInt8 { b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b }
        for length in [1, 7, 8, 13, 25, 32] {
            for value in 0...255 {
                for place in 0..<length {
                    var name = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
                    name[place] = UInt8(value)
                    // A neighbour of each case beside it: a carry from one byte would show there.
                    if place + 1 < length { name[place + 1] = value % 2 == 0 ? UInt8(ascii: "Z") : 0xC0 }
                    let lower = name.map(lowered)
                    #expect(Self.same(name, lower), "length \(length), byte \(value) at \(place)")
                }
            }
        }
        let mixed = Array("PixelHarbor_TV".utf8)
        let lower = Array("pixelharbor_tv".utf8)
        #expect(Self.same(mixed, lower))
        #expect(!Self.same(mixed, Array("pixelharbor_tw".utf8)))
    }

    /// Whether `name` lowercased by words has the words of `lower`.
    static func same(_ name: [UInt8], _ lower: [UInt8]) -> Bool {
        let a = ChannelIndex.words(of: name.span, lowercasingASCII: true)
        let b = ChannelIndex.words(of: lower.span)
        return ChannelIndex.sameWords(a, b)
    }
}
