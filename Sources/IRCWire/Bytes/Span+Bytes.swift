extension Span where Element == UInt8 {
    /// Whether `self[range]` is `expected`, byte for byte.
    ///
    /// - Complexity: O(`range.count`). - Allocations: none.
    public func equals(_ expected: [UInt8], at range: Range<Int>) -> Bool {
        extracting(range).equals(expected.span)
    }

    /// Whether `self[range]` is `lowercase` when its ASCII capitals are lowercased (`lowercase` is
    /// given in lowercase: a channel or user login).
    ///
    /// - Complexity: O(`range.count`). - Allocations: none.
    public func equals(lowercased lowercase: [UInt8], at range: Range<Int>) -> Bool {
        guard lowercase.count == range.count else { return false }
        var k = 0
        for i in range {
            if self[i].asciiLowercased != lowercase[k] { return false }
            k += 1
        }
        return true
    }
}

extension UInt8 {
    /// The byte with an ASCII capital turned into its lowercase letter; every other byte as it is.
    @inline(__always)
    public var asciiLowercased: UInt8 { self &- UInt8(ascii: "A") < 26 ? self | 0x20 : self }
}
