extension UTF8Repair {
    /// Whether `a` and `b` read the same once repaired: each maximal invalid subpart replaced by
    /// U+FFFD, as ``UTF8Repair`` (and so every JSON string chatcap writes) does. `\xff` and `\xfe`
    /// are equal; so are `\xff`, a cut-short sequence (`\xe2\x82`) and a valid U+FFFD.
    ///
    /// It decides which tag keys make the same JSON key: two keys that are equal after repair
    /// must be written once.
    ///
    /// - Complexity: O(`a.count + b.count`), stopping at the first difference; plain ASCII is
    ///   compared byte by byte. - Allocations: none.
    public static func equalAfterRepair(_ a: Span<UInt8>, _ b: Span<UInt8>) -> Bool {
        var i = 0
        var j = 0
        while i < a.count && j < b.count {
            let x = a[i]
            let y = b[j]
            if x < 0x80 && y < 0x80 {
                guard x == y else { return false }
                i &+= 1
                j &+= 1
                continue
            }
            let u = unit(a, at: i)
            let v = unit(b, at: j)
            if u.isReplacement || v.isReplacement {
                // A replacement equals a replacement, or a valid U+FFFD (EF BF BD).
                guard
                    (u.isReplacement || isReplacementCharacter(a, at: i, length: u.length))
                        && (v.isReplacement || isReplacementCharacter(b, at: j, length: v.length))
                else { return false }
            } else {
                guard u.length == v.length else { return false }
                var k = 0
                while k < u.length {
                    guard a[i &+ k] == b[j &+ k] else { return false }
                    k &+= 1
                }
            }
            i &+= u.length
            j &+= v.length
        }
        return i == a.count && j == b.count
    }

    /// The UTF-8 unit that starts at `span[i]`: a well-formed sequence, or a maximal invalid subpart
    /// (one replacement: a byte never valid in UTF-8, a stray continuation byte, or the start of a
    /// sequence up to the byte that breaks it or the end of `span`).
    ///
    /// - Precondition: `i < span.count`.
    static func unit(_ span: Span<UInt8>, at i: Int) -> (length: Int, isReplacement: Bool) {
        let lead = span[i]
        let needed: Int
        let low: UInt8
        let high: UInt8
        switch lead {
        case 0x00...0x7F: return (1, false)
        case 0xC2...0xDF: (needed, low, high) = (2, 0x80, 0xBF)
        case 0xE0: (needed, low, high) = (3, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (needed, low, high) = (3, 0x80, 0xBF)
        case 0xED: (needed, low, high) = (3, 0x80, 0x9F)
        case 0xF0: (needed, low, high) = (4, 0x90, 0xBF)
        case 0xF1...0xF3: (needed, low, high) = (4, 0x80, 0xBF)
        case 0xF4: (needed, low, high) = (4, 0x80, 0x8F)
        default: return (1, true)
        }
        var k = 1
        while k < needed && i &+ k < span.count {
            let b = span[i &+ k]
            guard b >= (k == 1 ? low : 0x80) && b <= (k == 1 ? high : 0xBF) else { return (k, true) }
            k &+= 1
        }
        return (k, k < needed)
    }

    private static func isReplacementCharacter(_ span: Span<UInt8>, at i: Int, length: Int) -> Bool {
        length == 3 && span[i] == replacement.0 && span[i &+ 1] == replacement.1 && span[i &+ 2] == replacement.2
    }
}
