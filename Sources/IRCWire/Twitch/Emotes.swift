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
    /// The current group's emote id.
    private var id = ByteRange(0, 0)
    private var inGroup = false
    /// Pieces that could not be read (no `:`, no `-`, non-numeric or huge indices).
    public private(set) var malformedCount = 0

    public init(_ value: TagValue?) {
        position = Int(value?.raw.lower ?? 0)
        end = Int(value?.raw.upper ?? 0)
    }

    /// The next well-formed occurrence, or `nil` at the value's end.
    ///
    /// One pass over the value: a group's id up to its `:`, then each piece's digits read where they
    /// are (`start`, `-`, `last`, then `,`, `/` or the end). A piece that does not read so is skipped
    /// to its `,` or `/` and counted; an empty piece (`,,`, a `,` before `/`) is skipped uncounted, and
    /// so is a group with nothing after its `:`.
    ///
    /// - Complexity: O(bytes passed). - Allocations: none.
    public mutating func next(in bytes: Span<UInt8>) -> Emote? {
        let colon = UInt8(ascii: ":")
        let slash = UInt8(ascii: "/")
        let comma = UInt8(ascii: ",")
        let dash = UInt8(ascii: "-")
        while true {
            if !inGroup {
                guard position < end else { return nil }
                let i = Self.colonOrSlash(bytes, from: position, end: end)
                guard i < end, bytes[i] == colon else {
                    // No `:` before the group's `/` or the value's end; an empty group is no piece.
                    if i > position { malformedCount &+= 1 }
                    position = i &+ 1
                    continue
                }
                id = ByteRange(position..<i)
                position = i &+ 1
                inGroup = true
            }
            let start = position
            guard start < end, bytes[start] != slash else {
                // The group ends with no piece left.
                inGroup = false
                position = start &+ 1
                continue
            }
            var i = start
            let first = Self.number(bytes, &i, end)
            if let first, i < end, bytes[i] == dash {
                i &+= 1
                if let last = Self.number(bytes, &i, end), i == end || bytes[i] == comma || bytes[i] == slash {
                    if i == end || bytes[i] == slash { inGroup = false }
                    position = i &+ 1
                    return Emote(id: id, start: first, last: last)
                }
            }
            // Not `digits-digits`: skipped to the piece's end; counted unless the piece is empty.
            while i < end, bytes[i] != comma, bytes[i] != slash { i &+= 1 }
            if i > start { malformedCount &+= 1 }
            if i == end || bytes[i] == slash { inGroup = false }
            position = i &+ 1
        }
    }

    /// The index of the first `:` or `/` in `bytes[from..<end]`, or `end`: eight bytes a step (a
    /// group's id is mostly one or two words; a byte at a time it was a third of the cursor's
    /// instructions). Words may reach past `end` (the line goes on after the tag value), never past
    /// the span; a match at or past `end` is no match.
    ///
    /// - Precondition: `0 <= from <= end <= bytes.count`.
    /// - Complexity: O(`end - from`). - Allocations: none.
    @inline(__always)
    static func colonOrSlash(_ bytes: Span<UInt8>, from: Int, end: Int) -> Int {
        precondition(from >= 0 && from <= end && end <= bytes.count, "range outside the span")
        let colons = ByteScan.lows &* UInt64(UInt8(ascii: ":"))
        let slashes = ByteScan.lows &* UInt64(UInt8(ascii: "/"))
        var i = from
        // SAFETY: every load reads bytes `i ..< i + 8` with `i + 8 <= bytes.count`, checked by the
        // loop's condition; unaligned loads have no alignment requirement.
        let found = unsafe bytes.withUnsafeBytes { raw -> Int? in
            while i < end && i &+ 8 <= raw.count {
                let w = unsafe raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let c = w ^ colons
                let s = w ^ slashes
                // "Has a zero byte" for each: a false positive only above a true match of the same
                // byte, so the lowest flag of either is the first `:` or `/`.
                let hit = ((c &- ByteScan.lows) & ~c | (s &- ByteScan.lows) & ~s) & ByteScan.highs
                if hit != 0 { return min(i &+ (hit.trailingZeroBitCount >> 3), end) }
                i &+= 8
            }
            return nil
        }
        if let found { return found }
        // The last bytes of a span shorter than a word past `i`.
        while i < end, bytes[i] != UInt8(ascii: ":"), bytes[i] != UInt8(ascii: "/") { i &+= 1 }
        return min(i, end)
    }

    /// The decimal number of 1 to 9 digits at `i`, leaving `i` past every digit there; `nil` (with
    /// `i` past the digits) for none or more than nine.
    @inline(__always)
    private static func number(_ bytes: Span<UInt8>, _ i: inout Int, _ end: Int) -> Int? {
        let from = i
        var n = 0
        while i < end {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { break }
            n = n &* 10 &+ Int(d)
            i &+= 1
        }
        let digits = i &- from
        return digits > 0 && digits <= 9 ? n : nil
    }
}
