extension String {
    /// The bytes of `range` in `bytes` as a string, invalid UTF-8 repaired (as `String(decoding:as:)`
    /// does).
    ///
    /// - Complexity: O(`range.count`). - Allocations: the string's storage, none when it fits inline
    ///   (up to 15 bytes).
    public init(decoding bytes: Span<UInt8>, in range: ByteRange) {
        let slice = bytes.extracting(range.range)
        // SAFETY: the buffer is the span's memory, valid for the call; the bytes are copied at once.
        self = unsafe slice.withUnsafeBufferPointer { unsafe String(decoding: $0, as: UTF8.self) }
    }
}
