import IRCWire
import Testing

/// The collision-free key table: every documented key is found by its wire name, and nothing else is
/// (a one-byte change anywhere, a shorter or longer name, the empty key).
@Suite struct TwitchTagKeyTests {
    /// `TwitchTagKey(bytes:)` over `name` placed in a line with room after it (the in-place lookup).
    static func key(_ name: [UInt8]) -> TwitchTagKey? {
        let bytes = Array("x;".utf8) + name + Array(";rest-of-line".utf8)
        return TwitchTagKey(bytes: bytes.span, ByteRange(UInt16(2), UInt16(2 + name.count)))
    }

    @Test("every documented key is found by its name")
    func everyKeyIsFound() {
        for key in TwitchTagKey.allCases {
            #expect(Self.key(Array("\(key.name)".utf8)) == key, "\(key.name)")
        }
    }

    @Test("a name that differs from a key in any one byte is not that key")
    func oneByteChangesAreRejected() {
        for key in TwitchTagKey.allCases {
            let name = Array("\(key.name)".utf8)
            for position in name.indices {
                var changed = name
                changed[position] = changed[position] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
                let found = Self.key(changed)
                #expect(
                    found == nil || found.map { Array("\($0.name)".utf8) } == changed,
                    "\(key.name) changed at \(position)")
            }
        }
    }

    @Test("prefixes, extensions and the empty key are not keys")
    func lengthsMustMatch() {
        for key in TwitchTagKey.allCases {
            let name = Array("\(key.name)".utf8)
            for cut in 0..<name.count {
                let prefix = Array(name[..<cut])
                let found = Self.key(prefix)
                #expect(found == nil || found.map { Array("\($0.name)".utf8) } == prefix, "\(key.name) cut to \(cut)")
            }
            #expect(Self.key(name + Array("s".utf8)) == nil, "\(key.name)s")
        }
        #expect(Self.key([]) == nil)
    }
}
