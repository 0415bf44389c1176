/// One IRCv3 line split into its parts, as byte offsets into the line it was parsed from.
///
/// ```
///  @tag=v;tag2 :nick!user@host VERB middle1 middle2 :trailing text
///   ^tags^^^^^^  ^source^^^^^^^ ^verb ^params^^^^^^^^^^^^^^^^^^^^^^^
/// ```
/// Plain 16-bit offsets: `Sendable`, storable, 22 bytes. Every range is only meaningful together
/// with the exact bytes it was parsed from (a line is at most 65,535 bytes; the framer caps at 16 KiB).
/// Tags, parameters and their values are read back lazily through the same bytes: see
/// ``tags(in:)``, ``param(_:in:)``, ``TagValue``.
public struct ParsedLine: Sendable, Equatable, Hashable {
    /// Byte count of the line (without terminator).
    public let length: UInt16
    /// Tags without the leading `@` (empty when the line has none; see ``hasTags``).
    public let tagsRange: ByteRange
    /// Source without the leading `:` (empty when absent; see ``hasSource``).
    public let sourceRange: ByteRange
    /// The verb (command or three-digit numeric).
    public let verbRange: ByteRange
    /// First byte of the first parameter (== `length` when there are none).
    public let paramsStart: UInt16
    /// First byte of the trailing parameter's text (after its `:`), or `UInt16.max` when the last
    /// parameter is a middle one.
    public let trailingStart: UInt16
    /// Number of parameters, trailing included.
    public let paramCount: UInt8
    private let flags: UInt8

    private static let tagsFlag: UInt8 = 1
    private static let sourceFlag: UInt8 = 2

    public var hasTags: Bool { flags & Self.tagsFlag != 0 }
    public var hasSource: Bool { flags & Self.sourceFlag != 0 }
    /// Whether the last parameter was written in trailing form (`:text`).
    public var hasTrailing: Bool { trailingStart != .max }

    /// No line: a placeholder for a value parsed into in place (``TwitchMessage/reparse(_:tags:)``).
    static let empty = ParsedLine(
        length: 0, tags: nil, source: nil, verb: ByteRange(0, 0), paramsStart: 0, trailingStart: .max, paramCount: 0)

    package init(
        length: UInt16, tags: ByteRange?, source: ByteRange?, verb: ByteRange, paramsStart: UInt16,
        trailingStart: UInt16, paramCount: UInt8
    ) {
        self.length = length
        self.tagsRange = tags ?? ByteRange(0, 0)
        self.sourceRange = source ?? ByteRange(0, 0)
        self.verbRange = verb
        self.paramsStart = paramsStart
        self.trailingStart = trailingStart
        self.paramCount = paramCount
        self.flags = (tags == nil ? 0 : Self.tagsFlag) | (source == nil ? 0 : Self.sourceFlag)
    }
}

/// A half-open range of byte offsets in 16 bits, for storing offsets compactly.
public struct ByteRange: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var lower: UInt16
    public var upper: UInt16

    @inlinable
    public init(_ lower: UInt16, _ upper: UInt16) {
        assert(lower <= upper)
        self.lower = lower
        self.upper = upper
    }

    /// - Precondition: `0 <= range.lowerBound <= range.upperBound <= 65_535`.
    @inlinable
    public init(_ range: Range<Int>) {
        self.init(UInt16(range.lowerBound), UInt16(range.upperBound))
    }

    @inlinable public var range: Range<Int> { Int(lower)..<Int(upper) }
    @inlinable public var count: Int { Int(upper &- lower) }
    @inlinable public var isEmpty: Bool { lower == upper }
    public var description: String { "\(lower)..<\(upper)" }
}

extension Span where Element == UInt8 {
    /// Whether the bytes in `range` equal the ASCII/UTF-8 of `literal`.
    ///
    /// - Complexity: O(`range.count`). - Allocations: none.
    @inlinable
    public func equals(_ literal: StaticString, at range: ByteRange) -> Bool {
        extracting(range.range).equals(literal)
    }

    /// Whether the bytes the ASCII/UTF-8 of `literal` (no String is built).
    ///
    /// Compared a word at a time: two overlapping loads of 2, 4 or 8 bytes from each side cover up
    /// to 16 bytes (a command's verb, a tag's value), more 8 at a time, with no loop a byte.
    ///
    /// - Complexity: O(`literal.utf8CodeUnitCount`). - Allocations: none.
    @inlinable
    public func equals(_ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard count == n else { return false }
        // SAFETY: `utf8Start` points at `n` readable bytes, and so does the span (`count == n`);
        // every load below reads within `0 ..< n` of both (`n >= 8` for the 8-byte loads, `n >= 4`
        // for the 4-byte ones, `n >= 2` for the 2-byte ones, `n == 1` for the byte).
        return unsafe withUnsafeBytes { raw -> Bool in
            guard n > 0, let a = raw.baseAddress else { return true }
            let b = unsafe UnsafeRawPointer(literal.utf8Start)
            func same<W: FixedWidthInteger>(_: W.Type, _ at: Int) -> Bool {
                unsafe a.loadUnaligned(fromByteOffset: at, as: W.self)
                    == b.loadUnaligned(fromByteOffset: at, as: W.self)
            }
            if n >= 8 {
                var i = 0
                while i &+ 8 < n {
                    guard same(UInt64.self, i) else { return false }
                    i &+= 8
                }
                return same(UInt64.self, n &- 8)
            }
            if n >= 4 { return same(UInt32.self, 0) && same(UInt32.self, n &- 4) }
            if n >= 2 { return same(UInt16.self, 0) && same(UInt16.self, n &- 2) }
            return same(UInt8.self, 0)
        }
    }

    /// Whether the bytes equal those of `other`, byte for byte (e.g. two ranges of lines:
    /// `a.extracting(r).equals(b.extracting(s))`).
    ///
    /// - Complexity: O(`count`). - Allocations: none.
    @inlinable
    public func equals(_ other: Span<UInt8>) -> Bool {
        guard count == other.count else { return false }
        var i = 0
        while i < count {
            if self[i] != other[i] { return false }
            i &+= 1
        }
        return true
    }
}
