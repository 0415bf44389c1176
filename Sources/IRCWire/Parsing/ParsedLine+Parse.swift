/// Why a line could not be parsed, and the byte offset where parsing stopped.
public enum LineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line is empty (or only spaces).
    case empty
    /// The line is longer than 65,535 bytes.
    case tooLong(length: Int)
    /// Tags or a source with no command after them.
    case missingCommand(offset: Int)
    /// The command holds a byte that is not an ASCII letter or digit.
    case invalidCommand(offset: Int)
    /// More than 255 parameters.
    case tooManyParams(offset: Int)

    /// Where in the line parsing stopped.
    public var offset: Int {
        switch self {
        case .empty: 0
        case .tooLong: Int(UInt16.max)
        case .missingCommand(let o), .invalidCommand(let o), .tooManyParams(let o): o
        }
    }

    public var description: String {
        switch self {
        case .empty: "empty line"
        case .tooLong(let length): "line of \(length) bytes is longer than 65535"
        case .missingCommand(let o): "no command (byte \(o))"
        case .invalidCommand(let o): "invalid byte in command (byte \(o))"
        case .tooManyParams(let o): "more than 255 parameters (byte \(o))"
        }
    }
}

extension ParsedLine {
    private static let space = UInt8(ascii: " ")

    /// Parses one IRCv3 line (without CR/LF) into offsets relative to `line`.
    ///
    /// Follows the ircdocs rules: atoms are separated by one or more spaces, a parameter starting
    /// with `:` is the trailing one, trailing spaces after the last middle parameter are ignored.
    ///
    /// - Bounds: every range in the result satisfies `0 <= lower <= upper <= line.count`.
    /// - Complexity: O(n), one pass over `line` (tags and trailing are skipped word-at-a-time).
    /// - Allocations: none.
    public static func parse(_ line: Span<UInt8>) throws(LineError) -> ParsedLine {
        let n = line.count
        guard n <= Int(UInt16.max) else { throw .tooLong(length: n) }
        if n > 0 && line[0] == UInt8(ascii: "@") {
            guard let sp = ByteScan.firstIndex(of: space, in: line, from: 1, to: n) else {
                throw .missingCommand(offset: n)
            }
            return try parse(line, tagsEndingAt: sp)
        }
        return try parseAfterTags(line, tags: nil, from: 0)
    }

    /// Parses one IRCv3 line (without CR/LF) like ``parse(_:)`` and hands every tag to `body`, in
    /// line order, as a walk of ``tags`` would (duplicates included, empty elements skipped), in the
    /// one pass over the tag section that also finds where it ends. ``parse(_:)`` then a
    /// ``TagCursor`` read the section twice: a space scan, then the tag walk.
    ///
    /// The result, and every error, is the same as ``parse(_:)``'s. On an error `body` may already
    /// have seen tags of the line.
    ///
    /// - Bounds: as ``parse(_:)``; every tag's ranges lie within the tag section.
    /// - Complexity: O(n), one pass: the tag section 64 bytes per mask (``TagStops``) and O(1) per
    ///   tag, the rest as ``parse(_:)``. - Allocations: none.
    ///
    /// Inlinable, so that `body` is inlined into the walk instead of called per tag.
    @inlinable
    public static func parse(_ line: Span<UInt8>, eachTag body: (Tag) -> Void) throws(LineError) -> ParsedLine {
        let n = line.count
        guard n > 0 && n <= Int(UInt16.max) && line[0] == UInt8(ascii: "@") else { return try parse(line) }
        // SAFETY: `n > 0`, so the base address exists; the walk reads only below its limit, `n`.
        let end = unsafe line.withUnsafeBufferPointer { buffer -> Int in
            var walk = unsafe TagStops(buffer.baseAddress!, count: n, lower: 1, limit: n)
            var start = 1
            while true {
                let element = walk.element()
                if !element.isEmpty(at: start) { body(element.tag(at: start)) }
                guard walk.continues(after: element.valueEnd) else { return element.valueEnd }
                start = element.valueEnd &+ 1
            }
        }
        guard end < n else { throw .missingCommand(offset: n) }  // no space: tags and nothing else
        return try parse(line, tagsEndingAt: end)
    }

    /// ``parse(_:)`` of a line that starts with `@` and whose tag section ends at the space at
    /// `end`, found by the caller's own pass over the section (``TwitchMessage/parse(_:tags:)`` sorts the
    /// tags in the same pass): the section is not read again.
    ///
    /// - Precondition: `line[0] == "@"`, `line[end]` is the first space after it, and
    ///   `line.count <= 65_535`.
    /// - Complexity: O(n - end). - Allocations: none.
    @usableFromInline
    static func parse(_ line: Span<UInt8>, tagsEndingAt end: Int) throws(LineError) -> ParsedLine {
        assert(line[0] == UInt8(ascii: "@") && line[end] == space)
        return try parseAfterTags(line, tags: ByteRange(1..<end), from: end)
    }

    /// The rest of the line from `start` (just after the tags, or 0 without them).
    @inline(__always)
    private static func parseAfterTags(_ line: Span<UInt8>, tags: ByteRange?, from start: Int) throws(LineError)
        -> ParsedLine
    {
        let n = line.count
        var i = skipSpaces(line, from: start)  // after the tags, or leading spaces of a sloppy line
        var source: ByteRange? = nil
        if i < n && line[i] == UInt8(ascii: ":") {
            guard let sp = ByteScan.firstIndex(of: space, in: line, from: i + 1, to: n) else {
                throw .missingCommand(offset: n)
            }
            source = ByteRange((i + 1)..<sp)
            i = skipSpaces(line, from: sp)
        }
        if i >= n {
            if tags == nil && source == nil { throw .empty }
            throw .missingCommand(offset: i)
        }
        let verbStart = i
        // ASCII letters and digits only, up to a space or the end: binary garbage stops here instead
        // of becoming a "verb".
        i = endOfAlphanumerics(line, from: i)
        if i < n && line[i] != space { throw .invalidCommand(offset: i) }
        let verb = ByteRange(verbStart..<i)
        i = skipSpaces(line, from: i)
        let paramsStart = i
        var trailingStart = UInt16.max
        var count = 0
        while i < n {
            if count == 255 { throw .tooManyParams(offset: i) }
            count += 1
            if line[i] == UInt8(ascii: ":") {
                trailingStart = UInt16(i + 1)
                break
            }
            i = ByteScan.firstIndex(of: space, in: line, from: i, to: n) ?? n
            i = skipSpaces(line, from: i)
        }
        return ParsedLine(
            length: UInt16(n), tags: tags, source: source, verb: verb, paramsStart: UInt16(paramsStart),
            trailingStart: trailingStart, paramCount: UInt8(count))
    }

    /// The first byte at or after `start` that is not an ASCII letter or digit, or `line.count`.
    ///
    /// Eight bytes a step: each byte is flagged where it lies strictly between two bounds, exactly
    /// and without carries between bytes (the "has a byte between m and n" bit trick: bit 7 of
    /// `127 + n - low7` is `low7 < n`, of `low7 + 127 - m` is `low7 > m`, and `~x` leaves out bytes
    /// of 128 and more), once for the digits and once for the letters with bit 5 set (either case);
    /// the lowest byte flagged as neither is the first. A verb (`PRIVMSG` and its space) is one step
    /// where a byte loop took eight.
    ///
    /// - Complexity: O(result - start), eight bytes per step. - Allocations: none.
    @inline(__always)
    static func endOfAlphanumerics(_ line: Span<UInt8>, from start: Int) -> Int {
        let n = line.count
        // SAFETY: every load reads `i ..< i + 8` with `i + 8 <= n`, the span's count.
        // The word loop's answer is final (the byte loop below only takes the last bytes, fewer than
        // eight): an early stop would show as a wrong verb.
        var (i, found) = unsafe line.withUnsafeBytes { raw -> (Int, Bool) in
            var i = start
            guard let base = raw.baseAddress else { return (i, false) }
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            while i &+ 8 <= n {
                let x = unsafe base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                let y = x | (ones &* 0x20)
                let low7x = x & (ones &* 0x7F)
                let low7y = y & (ones &* 0x7F)
                // 0x2F < byte < 0x3A, and 0x60 < (byte | 0x20) < 0x7B.
                let digits = ((ones &* (127 + 0x3A)) &- low7x) & ~x & (low7x &+ (ones &* (127 - 0x2F)))
                let letters = ((ones &* (127 + 0x7B)) &- low7y) & ~y & (low7y &+ (ones &* (127 - 0x60)))
                let other = ~(digits | letters) & highs
                if other != 0 { return (i &+ (other.trailingZeroBitCount >> 3), true) }
                i &+= 8
            }
            return (i, false)
        }
        if found { return i }
        while i < n {
            let b = line[i]
            guard (b | 0x20) &- UInt8(ascii: "a") < 26 || b &- UInt8(ascii: "0") < 10 else { return i }
            i &+= 1
        }
        return i
    }

    @inline(__always)
    private static func skipSpaces(_ line: Span<UInt8>, from start: Int) -> Int {
        var i = start
        while i < line.count && line[i] == space { i += 1 }
        return i
    }
}
