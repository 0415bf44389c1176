/// Styled text measured in terminal columns, laid out into ``ScreenRow``s: wrapped at spaces where
/// possible (anywhere inside a word longer than a row, and between wide characters), with
/// continuation rows indented.
///
/// ```
///  text:   [ UTF-8 of every glyph, back to back ]
///  glyphs: [ (bytes start..<end, columns 1|2, style) … ]   zero-width scalars join the glyph before
/// ```
///
/// A value: the UI thread builds one per entry (or bar) and lays it out.
public struct StyledText: Sendable {
    struct Glyph {
        var start: Int32
        var end: Int32
        var width: UInt8
        var style: UInt8
        var isSpace: Bool
    }

    private(set) var glyphs: [Glyph] = []
    private var text: [UInt8] = []
    private var styles: [TextStyle] = [.plain]
    /// The previous scalar was a zero-width joiner: the next one joins its glyph.
    private var joining = false
    /// The previous glyph is a lone regional indicator: the next one completes the flag.
    private var openFlag = false
    /// Columns so far.
    public private(set) var width = 0

    public init() {}

    /// `string` in `style`.
    public init(_ string: String, _ style: TextStyle) {
        append(string, style)
    }

    public var isEmpty: Bool { glyphs.isEmpty }

    /// Appends one scalar (already made safe, see ``UTF8Scalars``) in `style`; with `breakable`
    /// false, a space does not offer a place to wrap.
    public mutating func append(_ scalar: Unicode.Scalar, _ style: TextStyle, breakable: Bool = true) {
        var columns = DisplayWidth.of(scalar)
        let v = scalar.value
        if joining {
            columns = 0
            joining = false
        }
        if v == 0x200D { joining = true }
        if DisplayWidth.isRegionalIndicator(v) {
            if openFlag {
                columns = 0
                openFlag = false
            } else if columns > 0 {
                openFlag = true
            }
        } else if columns > 0 {
            openFlag = false
        }
        let start = Int32(text.count)
        UTF8.encode(scalar) { text.append($0) }
        if columns == 0 {
            // Combining marks, joiners and selectors belong to the glyph before; alone they are dropped.
            if glyphs.isEmpty {
                text.removeSubrange(Int(start)...)
            } else {
                glyphs[glyphs.count - 1].end = Int32(text.count)
            }
            return
        }
        glyphs.append(
            Glyph(
                start: start, end: Int32(text.count), width: UInt8(columns), style: index(of: style),
                isSpace: breakable && v == 0x20))
        width += columns
    }

    /// Appends a string in `style` (kept on one row if not `breakable`, when it fits).
    public mutating func append(_ string: String, _ style: TextStyle, breakable: Bool = true) {
        var decoder = UTF8Scalars()
        for b in string.utf8 { decoder.feed(b) { append($0, style, breakable: breakable) } }
        decoder.finish { append($0, style, breakable: breakable) }
    }

    /// Appends `bytes[range]` (UTF-8, repaired and made safe) in `style`.
    public mutating func append(_ bytes: Span<UInt8>, _ range: Range<Int>, _ style: TextStyle) {
        var decoder = UTF8Scalars()
        for i in range { decoder.feed(bytes[i]) { append($0, style) } }
        decoder.finish { append($0, style) }
    }

    /// Appends another text, glyph by glyph.
    public mutating func append(_ other: StyledText) {
        for g in other.glyphs {
            let start = Int32(text.count)
            text.append(contentsOf: other.text[Int(g.start)..<Int(g.end)])
            let style = index(of: other.styles[Int(g.style)])
            glyphs.append(Glyph(start: start, end: Int32(text.count), width: g.width, style: style, isSpace: g.isSpace))
            width += Int(g.width)
        }
        joining = other.joining
        openFlag = other.openFlag
    }

    /// The leading glyphs that fit in `columns`.
    public func prefix(columns: Int) -> StyledText {
        var out = self
        var column = 0
        var end = 0
        while end < glyphs.count && column + Int(glyphs[end].width) <= columns {
            column += Int(glyphs[end].width)
            end += 1
        }
        out.glyphs.removeSubrange(end...)
        out.width = column
        return out
    }

    private mutating func index(of style: TextStyle) -> UInt8 {
        for (i, s) in styles.enumerated() where s == style { return UInt8(i) }
        precondition(styles.count < 255, "too many styles in one line")
        styles.append(style)
        return UInt8(styles.count - 1)
    }

    /// The text laid out in rows of at most `width` columns; rows after the first start with
    /// `indent` spaces (dropped when the width leaves no room for it).
    ///
    /// - Complexity: O(glyphs). - Allocations: one array per row.
    public func wrapped(width: Int, indent: Int = 0) -> [ScreenRow] {
        guard width > 0 else { return [] }
        let indent = indent * 2 < width ? indent : 0
        var rows: [ScreenRow] = []
        var lineStart = 0
        var column = 0
        var lastBreak: Int? = nil  // the last glyph of the row a new row could start at
        var i = 0
        while i < glyphs.count {
            let g = glyphs[i]
            let room = rows.isEmpty ? width : width - indent
            if i > lineStart && canBreak(before: i) { lastBreak = i }
            if column + Int(g.width) > room {
                var end = i
                if !canBreak(before: i), let b = lastBreak, b > lineStart, wordWidth(from: b) <= width - indent {
                    end = b  // move the word to the next row
                }
                if end == lineStart { end = i + 1 }  // a glyph wider than the row: alone on it
                rows.append(row(lineStart..<end, indent: rows.isEmpty ? 0 : indent))
                lineStart = end
                while lineStart < glyphs.count && glyphs[lineStart].isSpace { lineStart += 1 }
                i = lineStart
                column = 0
                lastBreak = nil
                continue
            }
            column += Int(g.width)
            i += 1
        }
        if lineStart < glyphs.count || rows.isEmpty {
            rows.append(row(lineStart..<glyphs.count, indent: rows.isEmpty ? 0 : indent))
        }
        return rows
    }

    /// Whether a row may start at glyph `i`: at a space, after a space, or next to a wide glyph
    /// (CJK text breaks between characters).
    private func canBreak(before i: Int) -> Bool {
        guard i > 0, i < glyphs.count else { return false }
        return glyphs[i].isSpace || glyphs[i - 1].isSpace || glyphs[i].width > 1 || glyphs[i - 1].width > 1
    }

    /// Columns of the unbreakable run starting at glyph `start`.
    private func wordWidth(from start: Int) -> Int {
        var total = Int(glyphs[start].width)
        var k = start + 1
        while k < glyphs.count && !canBreak(before: k) {
            total += Int(glyphs[k].width)
            k += 1
        }
        return total
    }

    /// The text on one row, cut at `width` columns.
    public func truncated(width: Int) -> ScreenRow {
        var column = 0
        var end = 0
        while end < glyphs.count && column + Int(glyphs[end].width) <= width {
            column += Int(glyphs[end].width)
            end += 1
        }
        return row(0..<end, indent: 0)
    }

    /// Renders glyphs `range` (trailing spaces dropped) after `indent` plain spaces.
    private func row(_ range: Range<Int>, indent: Int) -> ScreenRow {
        var upper = range.upperBound
        while upper > range.lowerBound && glyphs[upper - 1].isSpace && styles[Int(glyphs[upper - 1].style)] == .plain {
            upper -= 1
        }
        var out: [UInt8] = []
        out.reserveCapacity(
            indent + (upper > range.lowerBound ? Int(glyphs[upper - 1].end - glyphs[range.lowerBound].start) : 0) + 32)
        for _ in 0..<indent { out.append(0x20) }
        var columns = indent
        var current: UInt8 = 0
        for k in range.lowerBound..<upper {
            let g = glyphs[k]
            if g.style != current {
                styles[Int(g.style)].appendSGR(to: &out)
                current = g.style
            }
            out.append(contentsOf: text[Int(g.start)..<Int(g.end)])
            columns += Int(g.width)
        }
        if current != 0 { out.append(contentsOf: Control.reset) }
        return ScreenRow(bytes: out, width: columns)
    }
}
