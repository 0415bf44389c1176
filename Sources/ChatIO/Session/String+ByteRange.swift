import IRCWire

extension String {
    /// The bytes of `range` in `bytes` as a string, invalid UTF-8 repaired: for the control path
    /// (commands, replies, room ids), never per chat line.
    ///
    /// - Complexity: O(`range.count`). - Allocations: the string (and a scratch copy).
    init(decoding bytes: Span<UInt8>, in range: ByteRange) {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(range.count)
        for index in range.range { utf8.append(bytes[index]) }
        self.init(decoding: utf8, as: UTF8.self)
    }
}
