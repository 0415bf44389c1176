import IRCWire

/// Message ids as serve makes them: fresh random ones for relayed messages, and, for the passes of a
/// looping log after the first, ids derived from the recorded ones — the same recorded id and pass
/// always give the same new id, so a CLEARMSG's `target-msg-id` or a reply's `reply-parent-msg-id`
/// still names the message it named.
///
/// Both are shaped like a version-4 UUID (`8-4-4-4-12` lower-case hex digits), as Twitch's ids are.
enum MessageIds {
    /// A random id, for a message a client sent.
    ///
    /// - Allocations: the string.
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(36)
        appendUUID(high: generator.next(), low: generator.next(), into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the id that stands for the recorded id `original` in pass `pass` (2 or more).
    ///
    /// - Complexity: O(`original.count`). - Allocations: none once `out` has room for 36 more bytes.
    static func appendDerived(from original: Span<UInt8>, pass: Int, into out: inout [UInt8]) {
        // Two FNV-1a hashes with different offset bases, the pass mixed in, each finished with
        // SplitMix64's mixer so that every bit of the id depends on every byte.
        var a = FNV1a64()
        var b = FNV1a64(basis: 0x6c62_272e_07bb_0142)
        a.add(original, original.indices)
        b.add(original, original.indices)
        let p = UInt64(truncatingIfNeeded: pass)
        appendUUID(high: mix(a.value ^ p), low: mix(b.value ^ (p &* 0x9E37_79B9_7F4A_7C15)), into: &out)
    }

    /// Appends `high` and `low` as `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx` (version 4, variant 1).
    ///
    /// - Allocations: none once `out` has room for 36 more bytes.
    static func appendUUID(high: UInt64, low: UInt64, into out: inout [UInt8]) {
        let high = (high & ~0xF000) | 0x4000
        let low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        func hex(_ value: UInt64, digits: Int, _ out: inout [UInt8]) {
            var shift = (digits - 1) * 4
            while shift >= 0 {
                let nibble = UInt8((value >> UInt64(shift)) & 0xF)
                out.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
                shift -= 4
            }
        }
        hex(high >> 32, digits: 8, &out)
        out.append(UInt8(ascii: "-"))
        hex(high >> 16, digits: 4, &out)
        out.append(UInt8(ascii: "-"))
        hex(high, digits: 4, &out)
        out.append(UInt8(ascii: "-"))
        hex(low >> 48, digits: 4, &out)
        out.append(UInt8(ascii: "-"))
        hex(low, digits: 12, &out)
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
