import Testing

@testable import IRCWire

/// The hashed key match (``TagKeyTable``, through ``TwitchTagKey/init(bytes:_:)`` and the scan of
/// ``TwitchTags``) against the plain rule it must keep: a key is documented exactly when its bytes
/// equal one documented name. Checked on every name and on near-misses of each: one byte off up or
/// down, its case flipped, a zero or a high byte in its place, every prefix, the name with a byte
/// added or its first byte dropped, spellings of another length with the same first and last
/// words as the name; each in the middle of a line and at its very end (where a short
/// key has fewer than eight bytes after it).
@Suite struct TagKeyMatchTests {
    /// The rule without the table: the documented key whose wire name is `bytes`, if any.
    static func reference(_ bytes: [UInt8]) -> TwitchTagKey? {
        TwitchTagKey.allCases.first { Array("\($0.name)".utf8) == bytes }
    }

    /// Every spelling of another length (up to 16 bytes) whose words (``TagKeyTable/words(_:_:)``)
    /// are those of `name`: zero bytes before a short name (its word holds zeros below its bytes),
    /// and for a name of 8 to 16 bytes its first and last eight bytes overlapped by another amount
    /// wherever they agree. Only the length then tells them from the name.
    static func sameWords(_ name: [UInt8]) -> [[UInt8]] {
        if name.count < 8 { return (1...(8 - name.count)).map { [UInt8](repeating: 0, count: $0) + name } }
        guard name.count <= 16 else { return [] }
        let first = Array(name.prefix(8))
        let last = Array(name.suffix(8))
        return (8...16).compactMap { length -> [UInt8]? in
            guard length != name.count else { return nil }
            var spelling = [UInt8](repeating: 0, count: length)
            for k in 0..<8 { spelling[length - 8 + k] = last[k] }
            for k in 0..<8 where k < length - 8 { spelling[k] = first[k] }
            return Array(spelling.prefix(8)) == first && Array(spelling.suffix(8)) == last ? spelling : nil
        }
    }

    /// Every name and its near-misses (duplicates included; empty candidates left out).
    static let candidates: [[UInt8]] = {
        var all: [[UInt8]] = []
        for key in TwitchTagKey.allCases {
            let name = Array("\(key.name)".utf8)
            all.append(name)
            all.append(name.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 })
            for position in name.indices {
                for replacement in [
                    name[position] &+ 1, name[position] &- 1, name[position] ^ 0x20, 0, 0xFF, UInt8(ascii: "-"),
                ] where replacement != name[position] {
                    var changed = name
                    changed[position] = replacement
                    all.append(changed)
                }
                if position > 0 { all.append(Array(name[..<position])) }
            }
            for extra in [UInt8(ascii: "s"), UInt8(ascii: "-"), 0, 0xFF] { all.append(name + [extra]) }
            all.append(name + name)
            all.append(Array(name.dropFirst()))
            // Spellings with the same words as the name but another length: a zero byte before it (a
            // short key's word holds zeros below its bytes), and its first and last eight bytes
            // side by side (a longer key's two words).
            all += sameWords(name)
            all.append(Array("msg-param-".utf8) + name)
        }
        return all.filter { !$0.isEmpty }
    }()

    @Test("the table's lookup matches the plain rule on every name and near-miss, in place and at a line's end")
    func lookupMatchesTheRule() {
        var documented = 0
        for candidate in Self.candidates {
            let expected = Self.reference(candidate)
            if expected != nil { documented += 1 }
            let inPlace = Array("x;".utf8) + candidate + Array("=1;rest-of-line".utf8)
            let atEnd = Array("x;".utf8) + candidate
            let range = ByteRange(UInt16(2), UInt16(2 + candidate.count))
            #expect(TwitchTagKey(bytes: inPlace.span, range) == expected, "\(candidate) in place")
            #expect(TwitchTagKey(bytes: atEnd.span, range) == expected, "\(candidate) at the end")
        }
        #expect(documented >= TwitchTagKey.allCases.count)
    }

    @Test("the scan puts each name and near-miss in the plain rule's slot, or counts it as not documented")
    func scanMatchesTheRule() {
        for candidate in Self.candidates where !candidate.contains(where: { $0 == 0x20 || $0 == 0x3B || $0 == 0x3D }) {
            let expected = Self.reference(candidate)
            let isMsgParam = expected == nil && candidate.count > 10 && candidate.starts(with: Array("msg-param-".utf8))
            // `@key=v rest`, `@key rest` (no `=`), and `@key` ending the bytes (a short key's last word
            // would leave them).
            for suffix in ["=v rest", " rest", ""] {
                let bytes = Array("@".utf8) + candidate + Array(suffix.utf8)
                let tags = TwitchTags(scanning: bytes.span, from: 1, limit: bytes.count)
                let text = "\(candidate) + \(suffix)"
                #expect(tags.count == 1, "\(text)")
                #expect(tags.msgParamCount == (isMsgParam ? 1 : 0), "\(text)")
                #expect(tags.unknownCount == (expected == nil && !isMsgParam ? 1 : 0), "\(text)")
                for key in TwitchTagKey.allCases {
                    #expect((tags[key] != nil) == (key == expected), "\(key) for \(text)")
                }
                if let expected, suffix.hasPrefix("=") {
                    let value = ByteRange(UInt16(candidate.count + 2), UInt16(candidate.count + 3))
                    #expect(tags[expected]?.raw == value, "\(text)")
                }
            }
        }
    }
}

extension TagKeyMatchTests {
    @Test("the seed search ends at its recorded start (update TagKeyTable.firstSeed when the keys change)")
    func seedSearchStartsAtTheAnswer() {
        #expect(tagKeyTable.seed == TagKeyTable.firstSeed)
    }
}
