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
    /// `end`, found by the caller's own pass over the section (``TwitchMessage/parse(_:)`` sorts the
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
        while i < n {
            let b = line[i]
            if b == space { break }
            // ASCII letters and digits only: binary garbage stops here instead of becoming a "verb".
            guard (b | 0x20) &- UInt8(ascii: "a") < 26 || b &- UInt8(ascii: "0") < 10 else {
                throw .invalidCommand(offset: i)
            }
            i += 1
        }
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

    @inline(__always)
    private static func skipSpaces(_ line: Span<UInt8>, from start: Int) -> Int {
        var i = start
        while i < line.count && line[i] == space { i += 1 }
        return i
    }
}
