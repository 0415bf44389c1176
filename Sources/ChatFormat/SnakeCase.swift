public import IRCWire

/// The snake_case form of a name from a line (a `msg-param-*` key, a record's event): `-` becomes
/// `_`, and an uppercase ASCII letter is lowercased, with a `_` before it when it starts a word — after
/// a lowercase letter or digit, or as the last capital of an acronym followed by a lowercase letter.
/// `cumulative-months` → `cumulative_months`, `viewerCount` → `viewer_count`, `profileImageURL` →
/// `profile_image_url`, `join-failed` → `join_failed`. Other bytes stay as they are.
///
/// A cursor over the converted bytes, so that writing and comparing need no buffer.
///
/// - Complexity: O(1) per byte. - Allocations: none.
public struct SnakeCase: Sendable {
    private let start: Int
    private let end: Int
    private var index: Int
    private var pending: UInt8 = 0

    public init(_ range: ByteRange) {
        start = Int(range.lower)
        end = Int(range.upper)
        index = start
    }

    /// The next converted byte, or `nil` at the end.
    public mutating func next(in bytes: Span<UInt8>) -> UInt8? {
        if pending != 0 {
            defer { pending = 0 }
            return pending
        }
        guard index < end else { return nil }
        let i = index
        index += 1
        let b = bytes[i]
        if b == UInt8(ascii: "-") { return UInt8(ascii: "_") }
        guard Self.isUpper(b) else { return b }
        let lower = b | 0x20
        if i > start {
            let previous = bytes[i - 1]
            let following = i + 1 < end ? bytes[i + 1] : 0
            if Self.isLower(previous) || Self.isDigit(previous) || (Self.isUpper(previous) && Self.isLower(following)) {
                pending = lower
                return UInt8(ascii: "_")
            }
        }
        return lower
    }

    /// Whether `bytes[range]` in snake_case is `literal`.
    public static func equals(_ bytes: Span<UInt8>, _ range: ByteRange, _ literal: StaticString) -> Bool {
        var cursor = SnakeCase(range)
        let count = literal.utf8CodeUnitCount
        var i = 0
        while let b = cursor.next(in: bytes) {
            guard i < count, unsafe literal.utf8Start[i] == b else { return false }
            i += 1
        }
        return i == count
    }

    /// Whether two ranges of `bytes` have the same snake_case form.
    public static func equals(_ bytes: Span<UInt8>, _ a: ByteRange, _ b: ByteRange) -> Bool {
        var x = SnakeCase(a)
        var y = SnakeCase(b)
        while true {
            let p = x.next(in: bytes)
            let q = y.next(in: bytes)
            guard p == q else { return false }
            if p == nil { return true }
        }
    }

    /// Whether two ranges of `bytes` write the same JSON key: the same snake_case form once invalid
    /// UTF-8 is repaired (`\xff` and `\xfe` both become U+FFFD). Keys over 128 bytes compare unrepaired.
    ///
    /// - Complexity: O(key bytes). - Allocations: none (the forms are built on the stack).
    public static func equalAfterRepair(_ bytes: Span<UInt8>, _ a: ByteRange, _ b: ByteRange) -> Bool {
        var x = InlineArray<128, UInt8>(repeating: 0)
        var y = InlineArray<128, UInt8>(repeating: 0)
        var nx = 0
        var ny = 0
        var p = SnakeCase(a)
        while let c = p.next(in: bytes) {
            guard nx < 128 else { return equals(bytes, a, b) }
            x[nx] = c
            nx += 1
        }
        var q = SnakeCase(b)
        while let c = q.next(in: bytes) {
            guard ny < 128 else { return equals(bytes, a, b) }
            y[ny] = c
            ny += 1
        }
        return UTF8Repair.equalAfterRepair(x.span.extracting(0..<nx), y.span.extracting(0..<ny))
    }

    @inline(__always) private static func isUpper(_ b: UInt8) -> Bool { b &- UInt8(ascii: "A") < 26 }
    @inline(__always) private static func isLower(_ b: UInt8) -> Bool { b &- UInt8(ascii: "a") < 26 }
    @inline(__always) private static func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }
}
