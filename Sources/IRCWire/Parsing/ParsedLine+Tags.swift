extension ParsedLine {
    /// A cursor over the line's tags in order of appearance (duplicates included).
    ///
    /// - Complexity: O(1) to make; O(tag bytes) to walk. - Allocations: none.
    public var tags: TagCursor { TagCursor(self) }

    /// The raw value of the tag `key` (last occurrence wins), or `nil` when the tag is absent.
    /// A key-only tag (`key`) and an empty one (`key=`) both give an empty value: the tag
    /// ``TagCursor`` walks to, found without walking the cursor.
    ///
    /// One walk of the section's stops (``TagStops``) in one call, a key compared only when its
    /// length is `key`'s, where a ``TagCursor`` walk makes a call a tag and keeps its place between
    /// them (about 1,800 instructions a line of `bench.irc`, `make instructions`' cursor row less
    /// its parse row).
    ///
    /// - Complexity: O(tag bytes): the whole tag section is walked so that the last duplicate wins.
    /// - Allocations: none.
    public func tag(_ key: StaticString, in line: Span<UInt8>) -> TagValue? {
        let lower = Int(tagsRange.lower)
        let upper = Int(tagsRange.upper)
        guard lower < upper else { return nil }
        let count = line.count
        precondition(upper <= count, "tag section outside the line")
        let keyCount = key.utf8CodeUnitCount
        // SAFETY: `lower < upper <= count`: the bytes are not empty, and the walk reads only below
        // `upper` (``TagStops``).
        return unsafe line.withUnsafeBufferPointer { buffer -> TagValue? in
            let p = buffer.baseAddress!
            var walk = unsafe TagStops(p, count: count, lower: lower, limit: upper)
            var found: TagValue? = nil
            var i = lower
            while i < upper {
                let start = i
                let element = walk.element()
                i = element.valueEnd &+ 1  // past the `;` (or the end)
                guard element.keyEnd &- start == keyCount else { continue }
                let tag = element.tag(at: start)
                if line.equals(key, at: tag.key) { found = tag.value }
            }
            return found
        }
    }
}

/// One tag: the ranges of its key (vendor prefix included) and raw, still escaped value.
public struct Tag: Sendable, Equatable {
    public var key: ByteRange
    public var value: TagValue

    @inlinable
    init(key: ByteRange, value: TagValue) {
        self.key = key
        self.value = value
    }
}

/// The still-escaped value of a tag, as a range into the line. Unescape it with ``unescape(in:_:)``.
public struct TagValue: Sendable, Equatable {
    public var raw: ByteRange

    @inlinable
    public init(raw: ByteRange) { self.raw = raw }

    /// `text` escaped as an IRCv3 tag value, the inverse of ``unescape(in:_:)``: `;` → `\:`,
    /// space → `\s`, `\` → `\\`, CR → `\r`, LF → `\n`.
    ///
    /// - Complexity: O(text length). - Allocations: the result (for lines we write ourselves).
    public static func escaping(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case ";": out += "\\:"
            case " ": out += "\\s"
            case "\\": out += "\\\\"
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Whether the raw value holds any `\` (and so differs from its unescaped form).
    public func needsUnescaping(in line: Span<UInt8>) -> Bool {
        ByteScan.firstIndex(of: UInt8(ascii: "\\"), in: line, from: raw.range.lowerBound, to: raw.range.upperBound)
            != nil
    }

    /// Calls `emit` with each byte of the unescaped value: `\:` → `;`, `\s` → space, `\\` → `\`,
    /// `\r` → CR, `\n` → LF, `\x` → `x` for any other `x`, and a lone trailing `\` is dropped.
    ///
    /// - Complexity: O(value length). - Allocations: none.
    @inlinable
    public func unescape<E: Error>(in line: Span<UInt8>, _ emit: (UInt8) throws(E) -> Void) throws(E) {
        var i = Int(raw.lower)
        let end = Int(raw.upper)
        while i < end {
            let b = line[i]
            i += 1
            guard b == UInt8(ascii: "\\") else {
                try emit(b)
                continue
            }
            guard i < end else { return }  // lone trailing backslash: dropped
            let e = line[i]
            i += 1
            switch e {
            case UInt8(ascii: ":"): try emit(UInt8(ascii: ";"))
            case UInt8(ascii: "s"): try emit(UInt8(ascii: " "))
            case UInt8(ascii: "r"): try emit(0x0D)
            case UInt8(ascii: "n"): try emit(0x0A)
            default: try emit(e)
            }
        }
    }

    /// Whether the unescaped value equals `literal`.
    ///
    /// - Complexity: O(value length). - Allocations: none.
    public func unescapedEquals(_ literal: StaticString, in line: Span<UInt8>) -> Bool {
        if !needsUnescaping(in: line) { return line.equals(literal, at: raw) }
        // SAFETY: `utf8Start` points at `utf8CodeUnitCount` bytes; index `k` is checked below.
        let base = unsafe literal.utf8Start
        let n = literal.utf8CodeUnitCount
        var k = 0
        var same = true
        unescape(in: line) { b in
            if k >= n { same = false } else if (unsafe base[k]) != b { same = false }
            k += 1
        }
        return same && k == n
    }

    /// The value as a decimal integer (optionally negative), or `nil` when it is not one.
    ///
    /// - Complexity: O(value length). - Allocations: none.
    public func integer(in line: Span<UInt8>) -> Int64? {
        let bytes = line.extracting(raw.range)
        guard !bytes.isEmpty else { return nil }
        var i = 0
        var negative = false
        if bytes[0] == UInt8(ascii: "-") {
            negative = true
            i = 1
        }
        guard i < bytes.count else { return nil }
        var value: Int64 = 0
        while i < bytes.count {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.addingReportingOverflow(Int64(d))
            if o1 || o2 { return nil }
            value = s
            i += 1
        }
        return negative ? -value : value
    }
}

/// Walks the tag section `k=v;k2;k3=` of a line.
///
/// Takes the section's `=` and `;` in order from a bit mask (``TagStops``, 64 bytes at a time) and
/// keeps the current chunk's stops not taken yet between tags, so the section is read once however
/// many tags are asked for.
///
/// - Complexity: O(1) per tag plus O(1) per 64 bytes of the section. - Allocations: none.
public struct TagCursor: Sendable {
    private var position: UInt16
    /// The section's end (exclusive).
    let end: UInt16
    /// Start of the 64 bytes ``stops`` describes; `UInt16.max` until the first read.
    private var base: UInt16 = .max
    /// The stops of the chunk at ``base`` not taken yet (``TagStops/next()``).
    private var stops: UInt64 = 0

    public init(_ line: ParsedLine) {
        position = line.tagsRange.lower
        end = line.tagsRange.upper
    }

    /// A cursor over the section `lower ..< upper`.
    ///
    /// - Precondition: `lower <= upper < 65_535`.
    init(lower: Int, upper: Int) {
        position = UInt16(lower)
        end = UInt16(upper)
    }

    /// The next tag, or `nil` after the last. Empty elements (`;;`, a trailing `;`) are skipped; an
    /// element without `=` has an empty value, and one that starts with `=` an empty key.
    ///
    /// - Precondition: `line` is the line the cursor's section was parsed from (checked: the section
    ///   lies within `line`).
    /// - Complexity: O(1) amortised per tag, plus O(1) per 64 bytes of the section.
    /// - Allocations: none.
    public mutating func next(in line: Span<UInt8>) -> Tag? {
        let end = Int(self.end)
        var i = Int(position)
        guard i < end else { return nil }
        let count = line.count
        precondition(end <= count, "tag section outside the line")
        // SAFETY: `i < end <= count`: the bytes are not empty, and every read of the walk is below
        // `end` (``TagStops``).
        return unsafe line.withUnsafeBufferPointer { buffer -> Tag? in
            let p = buffer.baseAddress!
            var walk =
                base == .max
                ? unsafe TagStops(p, count: count, lower: i, limit: end)
                : unsafe TagStops(p, count: count, limit: end, base: Int(base), stops: stops)
            defer {
                // The walk stays at or below `end < 65_535`.
                base = UInt16(truncatingIfNeeded: walk.base)
                stops = walk.stops
            }
            while i < end {
                let start = i
                let element = walk.element()
                i = element.valueEnd &+ 1  // past the `;` (or the end)
                if element.isEmpty(at: start) { continue }  // `;;` or a trailing `;`
                position = UInt16(truncatingIfNeeded: Swift.min(i, end))
                return element.tag(at: start)
            }
            position = self.end
            return nil
        }
    }
}
