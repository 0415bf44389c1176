/// Reads ClickHouse's `RowBinary` answers in place: a `String` is its length as an unsigned LEB128
/// number and its bytes (any bytes: `raw` comes back exactly as loaded), a `Date` two bytes (days since
/// 1970-01-01, little-endian). Pure; a malformed answer is `nil`, never a trap.
///
/// ```
///   bytes: [ len | raw line … | len | raw line … | … ]
///            ^ position (advanced past each value read)
/// ```
struct RowBinary {
    private let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    /// The range of the next `String`'s bytes, `nil` when the answer ends inside it.
    ///
    /// - Complexity: O(1). - Allocations: none.
    mutating func string() -> Range<Int>? {
        var length = 0
        var shift = 0
        var i = position
        while true {
            guard i < bytes.count, shift < 63 else { return nil }
            let b = bytes[i]
            i += 1
            length |= Int(b & 0x7F) << shift
            shift += 7
            if b & 0x80 == 0 { break }
        }
        guard length >= 0, length <= bytes.count - i else { return nil }
        position = i + length
        return i..<(i + length)
    }

    /// The next `String` as text.
    mutating func text() -> String? {
        guard let range = string() else { return nil }
        return String(decoding: bytes[range], as: UTF8.self)
    }

    /// The next `Date`: days since 1970-01-01.
    mutating func date() -> Int? {
        guard bytes.count - position >= 2 else { return nil }
        defer { position += 2 }
        return Int(bytes[position]) | Int(bytes[position + 1]) << 8
    }

    /// The answer's bytes, for spans of the ranges ``string()`` gives.
    var all: [UInt8] { bytes }

    /// The bytes not read yet.
    var pendingCount: Int { bytes.count - position }

    /// The bytes not read yet followed by `block`, read from their start: an answer taken block by
    /// block, a value cut by a block's end read whole once the next block came.
    ///
    /// - Complexity: O(unread bytes + block). - Allocations: the joined bytes, when some were unread.
    func rest(then block: [UInt8]) -> RowBinary {
        guard position < bytes.count else { return RowBinary(block) }
        return RowBinary(Array(bytes[position...]) + block)
    }
}
