/// The tags of one line sorted into slots by ``TwitchTagKey``, in a single pass and on the stack.
///
/// Lookups are O(1) after the pass. Duplicates: the last occurrence wins. `msg-param-*` tags are
/// counted as a recognised family; every other tag Twitch does not document is counted in
/// ``unknownCount`` and can be listed with ``forEachUnknown(in:_:)``.
public struct TwitchTags: Sendable {
    /// Value ranges packed as `lower << 16 | upper`; `.max` means absent.
    private var slots = InlineArray<64, UInt32>(repeating: .max)
    private var counts: (all: UInt16, msgParams: UInt16, unknown: UInt16) = (0, 0, 0)
    private let tagCursor: TagCursor

    /// Tags seen, duplicates included.
    public var count: Int { Int(counts.all) }
    /// `msg-param-*` tags seen.
    public var msgParamCount: Int { Int(counts.msgParams) }
    /// Tags that are neither documented nor `msg-param-*`.
    public var unknownCount: Int { Int(counts.unknown) }

    /// Sorts the tags of `line` into slots.
    ///
    /// - Complexity: O(tag bytes). - Allocations: none.
    public init(_ line: ParsedLine, in bytes: Span<UInt8>) {
        tagCursor = line.tags
        var cursor = tagCursor
        while let tag = cursor.next(in: bytes) {
            counts.all &+= 1
            if let key = TwitchTagKey(bytes: bytes, tag.key) {
                slots[Int(key.rawValue)] = UInt32(tag.value.raw.lower) << 16 | UInt32(tag.value.raw.upper)
            } else if Self.isMsgParam(tag.key, in: bytes) {
                counts.msgParams &+= 1
            } else {
                counts.unknown &+= 1
            }
        }
    }

    /// The raw value of `key`, or `nil` when the line does not carry it.
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inlinable
    public subscript(key: TwitchTagKey) -> TagValue? {
        let packed = slot(key)
        guard packed != .max else { return nil }
        return TagValue(raw: ByteRange(UInt16(truncatingIfNeeded: packed >> 16), UInt16(truncatingIfNeeded: packed)))
    }

    @usableFromInline
    func slot(_ key: TwitchTagKey) -> UInt32 { slots[Int(key.rawValue)] }

    /// Whether the flag tag `key` is present and equal to `1`.
    public func flag(_ key: TwitchTagKey, in bytes: Span<UInt8>) -> Bool {
        guard let value = self[key] else { return false }
        return value.raw.count == 1 && bytes[Int(value.raw.lower)] == UInt8(ascii: "1")
    }

    /// The value of `msg-param-<suffix>` (last occurrence wins), or `nil`.
    ///
    /// - Complexity: O(tag bytes). - Allocations: none.
    public func msgParam(_ suffix: StaticString, in bytes: Span<UInt8>) -> TagValue? {
        guard msgParamCount > 0 else { return nil }
        var cursor = tagCursor
        var found: TagValue? = nil
        while let tag = cursor.next(in: bytes) {
            guard Self.isMsgParam(tag.key, in: bytes) else { continue }
            if bytes.equals(suffix, at: ByteRange(tag.key.lower + 10, tag.key.upper)) { found = tag.value }
        }
        return found
    }

    /// Calls `body` with every `msg-param-*` tag, in line order.
    public func forEachMsgParam<E: Error>(in bytes: Span<UInt8>, _ body: (Tag) throws(E) -> Void) throws(E) {
        guard msgParamCount > 0 else { return }
        var cursor = tagCursor
        while let tag = cursor.next(in: bytes) {
            if Self.isMsgParam(tag.key, in: bytes) { try body(tag) }
        }
    }

    /// Calls `body` with every tag that is neither documented nor `msg-param-*`, in line order.
    public func forEachUnknown<E: Error>(in bytes: Span<UInt8>, _ body: (Tag) throws(E) -> Void) throws(E) {
        guard unknownCount > 0 else { return }
        var cursor = tagCursor
        while let tag = cursor.next(in: bytes) {
            if TwitchTagKey(bytes: bytes, tag.key) == nil && !Self.isMsgParam(tag.key, in: bytes) {
                try body(tag)
            }
        }
    }

    private static func isMsgParam(_ key: ByteRange, in bytes: Span<UInt8>) -> Bool {
        key.count > 10 && bytes.equals("msg-param-", at: ByteRange(key.lower, key.lower + 10))
    }
}
