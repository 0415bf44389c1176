extension Span where Element == UInt8 {
    /// Whether `self[range]` is `expected`, byte for byte.
    ///
    /// - Complexity: O(`range.count`). - Allocations: none.
    func equals(_ expected: [UInt8], at range: Range<Int>) -> Bool {
        guard expected.count == range.count else { return false }
        var k = 0
        for i in range {
            if self[i] != expected[k] { return false }
            k += 1
        }
        return true
    }

    /// Whether `self[range]` is `lowercase` when its ASCII capitals are lowercased (`lowercase` is
    /// given in lowercase: a channel or user login).
    ///
    /// - Complexity: O(`range.count`). - Allocations: none.
    func equals(lowercased lowercase: [UInt8], at range: Range<Int>) -> Bool {
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
    var asciiLowercased: UInt8 { self &- UInt8(ascii: "A") < 26 ? self | 0x20 : self }
}

extension String {
    /// `bytes[range]` as a string, invalid UTF-8 repaired (as `String(decoding:as:)` does).
    ///
    /// - Allocations: the string's storage, none when it fits inline (up to 15 bytes).
    init(repairing bytes: Span<UInt8>, _ range: Range<Int>) {
        let slice = bytes.extracting(range)
        // SAFETY: the buffer is the span's memory, valid for the call; the bytes are copied at once.
        self = unsafe slice.withUnsafeBufferPointer { unsafe String(decoding: $0, as: UTF8.self) }
    }
}
