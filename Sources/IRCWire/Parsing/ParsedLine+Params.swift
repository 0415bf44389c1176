extension ParsedLine {
    /// The byte range of parameter `index` (0-based), trailing included, or `nil` past the end.
    ///
    /// - Complexity: O(bytes of the middle parameters before it); the trailing one is O(1).
    /// - Allocations: none.
    public func param(_ index: Int, in line: Span<UInt8>) -> ByteRange? {
        var cursor = ParamCursor(self)
        var k = 0
        while let range = cursor.next(in: line) {
            if k == index { return range }
            k += 1
        }
        return nil
    }

    /// The last parameter (for PRIVMSG and friends: the message text), or `nil` when there is none.
    ///
    /// - Complexity: O(1) when it is a trailing parameter, else O(bytes of the parameters).
    public func lastParam(in line: Span<UInt8>) -> ByteRange? {
        if hasTrailing { return ByteRange(trailingStart, length) }
        return paramCount == 0 ? nil : param(Int(paramCount) - 1, in: line)
    }

    /// The nick of the source (``sourceParts(in:)``'s `nick`): up to its first `!` or `@`. The
    /// nick alone is read (every chat line's sender login), 32 bytes a step while the line holds
    /// them: the block's `!`s and `@`s as bits (``ByteMask``), the lowest before the source's end
    /// ends the nick; a byte loop for the last bytes of a line.
    ///
    /// - Complexity: O(nick length). - Allocations: none.
    public func sourceNick(in line: Span<UInt8>) -> ByteRange? {
        guard hasSource else { return nil }
        let lo = Int(sourceRange.lower)
        let hi = Int(sourceRange.upper)
        var i = lo
        while i < hi && i &+ 32 <= line.count {
            // SAFETY: `i + 32 <= line.count`: the block is inside the line.
            let bits = unsafe line.withUnsafeBytes { raw in
                unsafe ByteMask.equal32(raw.baseAddress! + i, UInt8(ascii: "!"))
                    | ByteMask.equal32(raw.baseAddress! + i, UInt8(ascii: "@"))
            }
            let room = hi &- i
            let within = room >= 32 ? bits : bits & ((1 &<< UInt32(room)) &- 1)
            if within != 0 { return ByteRange(lo..<(i &+ within.trailingZeroBitCount)) }
            i &+= 32
        }
        while i < hi {
            let b = line[i]
            if b == UInt8(ascii: "!") || b == UInt8(ascii: "@") { break }
            i &+= 1
        }
        return ByteRange(lo..<min(i, hi))
    }

    /// The source split into nick, user and host (`nick!user@host`); parts that are absent are `nil`.
    ///
    /// - Complexity: O(source length). - Allocations: none.
    public func sourceParts(in line: Span<UInt8>) -> SourceParts? {
        // The nick by ``sourceNick(in:)``'s rule; then `!user` up to the first `@`, and `@host`.
        guard let nick = sourceNick(in: line) else { return nil }
        let hi = Int(sourceRange.upper)
        let nickEnd = Int(nick.upper)
        let at = ByteScan.firstIndex(of: UInt8(ascii: "@"), in: line, from: nickEnd, to: hi)
        let hasUser = nickEnd < hi && line[nickEnd] == UInt8(ascii: "!")
        return SourceParts(
            nick: nick,
            user: hasUser ? ByteRange((nickEnd + 1)..<(at ?? hi)) : nil,
            host: at.map { ByteRange(($0 + 1)..<hi) })
    }
}

/// `nick!user@host`, as ranges into the line.
public struct SourceParts: Sendable, Equatable {
    public var nick: ByteRange
    public var user: ByteRange?
    public var host: ByteRange?
}

/// Walks a line's parameters in order, yielding each one's byte range.
///
/// - Complexity: O(1) per parameter plus the bytes of middle parameters.
/// - Allocations: none.
public struct ParamCursor: Sendable {
    private var position: Int
    private var remaining: Int
    private let trailingStart: Int
    private let length: Int

    public init(_ line: ParsedLine) {
        position = Int(line.paramsStart)
        remaining = Int(line.paramCount)
        trailingStart = line.hasTrailing ? Int(line.trailingStart) : -1
        length = Int(line.length)
    }

    public mutating func next(in line: Span<UInt8>) -> ByteRange? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        if remaining == 0 && trailingStart >= 0 {
            return ByteRange(trailingStart..<length)
        }
        let start = position
        let end = ByteScan.firstIndex(of: UInt8(ascii: " "), in: line, from: start, to: length) ?? length
        var next = end
        while next < length && line[next] == UInt8(ascii: " ") { next += 1 }
        position = next
        return ByteRange(start..<end)
    }
}
