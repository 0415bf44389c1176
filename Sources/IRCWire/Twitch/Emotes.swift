/// One emote occurrence from the `emotes` tag: its id and position in **code points** of the text.
public struct Emote: Sendable, Equatable {
    /// The emote id (e.g. `25` or `emotesv2_…`).
    public var id: ByteRange
    /// First code point, as Twitch sent it.
    public var start: Int
    /// Last code point, inclusive, as Twitch sent it.
    public var last: Int

    /// The occurrence as a half-open code point range clamped to a text of `codePointCount`
    /// code points, or `nil` when it lies wholly outside the text or is inverted.
    public func clamped(toCodePointCount codePointCount: Int) -> Range<Int>? {
        guard start >= 0, start < codePointCount, last >= start else { return nil }
        return start..<min(last + 1, codePointCount)
    }
}

/// Walks an `emotes` value: `id:start-end,start-end/id2:start-end`.
///
/// Malformed pieces (missing `:` or `-`, non-numeric indices) are skipped and counted in
/// ``malformedCount``.
///
/// - Complexity: O(1) per occurrence plus its bytes. - Allocations: none.
public struct EmoteCursor: Sendable {
    private var position: Int
    private let end: Int
    /// The current group's emote id and end (the index of its `/` or of the value's end).
    private var id = ByteRange(0, 0)
    private var groupEnd = 0
    private var inGroup = false
    /// Pieces that could not be read (no `:`, no `-`, non-numeric or huge indices).
    public private(set) var malformedCount = 0

    public init(_ value: TagValue?) {
        position = Int(value?.raw.lower ?? 0)
        end = Int(value?.raw.upper ?? 0)
    }

    public mutating func next(in bytes: Span<UInt8>) -> Emote? {
        while true {
            if !inGroup {
                guard position < end else { return nil }
                groupEnd = ByteScan.firstIndex(of: UInt8(ascii: "/"), in: bytes, from: position, to: end) ?? end
                guard let colon = ByteScan.firstIndex(of: UInt8(ascii: ":"), in: bytes, from: position, to: groupEnd)
                else {
                    if groupEnd > position { malformedCount += 1 }
                    position = groupEnd + 1
                    continue
                }
                id = ByteRange(position..<colon)
                position = colon + 1
                inGroup = true
            }
            guard position < groupEnd else {
                inGroup = false
                position = groupEnd + 1
                continue
            }
            let start = position
            let stop = ByteScan.firstIndex(of: UInt8(ascii: ","), in: bytes, from: start, to: groupEnd) ?? groupEnd
            position = stop + 1
            if stop == groupEnd { inGroup = false }
            guard stop > start else { continue }
            guard let dash = ByteScan.firstIndex(of: UInt8(ascii: "-"), in: bytes, from: start, to: stop),
                let first = Self.number(bytes, start, dash), let last = Self.number(bytes, dash + 1, stop)
            else {
                malformedCount += 1
                continue
            }
            return Emote(id: id, start: first, last: last)
        }
    }

    private static func number(_ bytes: Span<UInt8>, _ from: Int, _ to: Int) -> Int? {
        guard to > from, to - from <= 9 else { return nil }
        var n = 0
        for i in from..<to {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            n = n * 10 + Int(d)
        }
        return n
    }
}
