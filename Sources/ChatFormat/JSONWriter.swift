public import ChatStore
public import IRCWire

/// Appends JSON to a reusable byte buffer: objects, keys, strings escaped from raw or tag-escaped
/// bytes, numbers, booleans, null. Invalid UTF-8 is repaired to U+FFFD here, at the output edge.
///
/// The bytes go into the writer's ``ByteBuffer`` (raw memory, grown by doubling, kept by
/// ``reset()``), so steady-state output allocates nothing; the writer adds only JSON's structure
/// (commas, keys, escaping). `~Copyable`: the buffer has one owner. The writer does not check
/// nesting; encoders are written to be balanced.
@safe
public struct JSONWriter: ~Copyable {  // not Sendable: one owner, one thread
    /// The bytes written so far. The text format writes into a ``ByteBuffer`` directly, without JSON.
    public var buffer: ByteBuffer
    /// Whether the next member or element needs a comma first (internal: the writers of
    /// `JSONWriter+BadgeList.swift` set it).
    var needsComma = false

    public init(capacity: Int = 4096) {
        buffer = ByteBuffer(capacity: capacity)
    }

    /// Bytes written since the last ``reset()``.
    public var count: Int { buffer.count }

    /// Empties the buffer, keeping its capacity.
    public mutating func reset() {
        buffer.reset()
        needsComma = false
    }

    /// Starts a new top-level value after the bytes written so far, with no separator before it
    /// (NDJSON: the next line's object after a line's): ``reset()`` without emptying the buffer.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public mutating func beginDocument() {
        needsComma = false
    }

    /// Lends the bytes written so far.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func withBytes<R: ~Copyable, E: Error>(_ body: (Span<UInt8>) throws(E) -> R) throws(E) -> R {
        try buffer.withBytes(body)
    }

    /// A copy of the bytes written so far (for callers that keep them).
    public var bytes: [UInt8] { buffer.bytes }

    /// Appends a literal as it is (JSON punctuation or a fragment known to need no escaping).
    @inline(__always)
    public mutating func raw(_ literal: StaticString) { buffer.raw(literal) }

    /// Appends one byte as it is.
    @inline(__always)
    public mutating func raw(byte: UInt8) { buffer.raw(byte: byte) }

    /// Appends the decimal digits of `value`, with no separator.
    public mutating func decimal(_ value: Int64) { buffer.decimal(value) }

    // MARK: Structure

    public mutating func beginObject() {
        separate()
        buffer.put(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Opens an object whose first members are known when the program is written: `opening` is a
    /// literal that starts with `{` (or, inside an object, with a member's key and its `{`:
    /// `"user":{"id":`) and ends with a key and its colon (`{"type":"privmsg","channel":`), and the
    /// next value follows it. One check of the room and one short copy, where
    /// ``beginObject()``, ``key(_:)-(StaticString)`` and ``string(_:)-(StaticString)`` for each member
    /// would write them a piece at a time.
    ///
    /// - Complexity: O(`opening` length). - Allocations: at most one growth of the buffer.
    @inline(__always)
    public mutating func beginObject(opening: StaticString) {
        separate()
        buffer.raw(opening)
        needsComma = false
    }

    /// Writes a whole member whose key and value are known when the program is written
    /// (`"bits":null`, `"action":false`), with its separator: one short copy where
    /// ``key(_:)-(StaticString)`` and ``null()`` or ``bool(_:)`` would make two writes and a call.
    ///
    /// - Complexity: O(`literal` length). - Allocations: at most one growth of the buffer.
    @inline(__always)
    public mutating func member(_ literal: StaticString) {
        separate()
        buffer.raw(literal)
    }

    public mutating func endObject() {
        buffer.put(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        buffer.put(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        buffer.put(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":` (a key from a literal; keys are plain ASCII).
    ///
    /// One capacity check and word copies: keys are short, so a `memcpy` call costs more than the copy.
    /// Always inlined: the key's length is then a constant, so the length branches fold away and
    /// the copy is a fixed pair of stores (about 25 keys per chat line).
    @inline(__always)
    public mutating func key(_ name: StaticString) {
        let n = name.utf8CodeUnitCount
        if buffer.capacity - buffer.count < n + 4 { buffer.grow(n + 4) }
        // SAFETY: `count + n + 4 <= capacity` after the check; a StaticString's `utf8Start` holds
        // `utf8CodeUnitCount` bytes.
        var o = unsafe buffer.base + buffer.count
        if needsComma {
            unsafe o.pointee = UInt8(ascii: ",")
            unsafe o += 1
        }
        unsafe o.pointee = UInt8(ascii: "\"")
        unsafe o += 1
        unsafe ByteBuffer.copyShort(UnsafeRawPointer(name.utf8Start), n, to: UnsafeMutableRawPointer(o))
        unsafe o += n
        unsafe o[0] = UInt8(ascii: "\"")
        unsafe o[1] = UInt8(ascii: ":")
        unsafe o += 2
        buffer.count = unsafe o - buffer.base
        needsComma = false
    }

    /// Writes a key from a `String` (documents made at start, e.g. ``JSONTree``), escaped.
    ///
    /// Disfavoured: a string literal is a `String` first, so without it every `key("…")` of the
    /// encoders would come here and escape its key a byte at a time instead of taking
    /// ``key(_:)-(StaticString)``'s word copies (a third of `replay --format json`'s instructions).
    @_disfavoredOverload
    public mutating func key(_ name: String) {
        string(name)
        buffer.put(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a key given as raw bytes (a tag name), escaped.
    public mutating func key(bytes span: Span<UInt8>, _ range: ByteRange) {
        string(span, range)
        buffer.put(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a key from raw bytes in snake_case (``SnakeCase``), escaped, invalid UTF-8 repaired.
    ///
    /// - Complexity: O(`range.count`). - Allocations: none once the buffer has grown.
    public mutating func key(snakeCase span: Span<UInt8>, _ range: ByteRange) {
        string(snakeCase: span, range)
        buffer.put(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A string from raw bytes in snake_case (``SnakeCase``), escaped, invalid UTF-8 repaired.
    ///
    /// - Complexity: O(`range.count`). - Allocations: none once the buffer has grown.
    public mutating func string(snakeCase span: Span<UInt8>, _ range: ByteRange) {
        separate()
        buffer.put(UInt8(ascii: "\""))
        var cursor = SnakeCase(range)
        var repair = UTF8Repair()
        while let b = cursor.next(in: span) { repair.feed(b) { escape($0) } }
        repair.finish { escape($0) }
        buffer.put(UInt8(ascii: "\""))
    }

    private mutating func separate() {
        if needsComma { buffer.put(UInt8(ascii: ",")) }
        needsComma = true
    }

    // MARK: Values

    public mutating func null() {
        separate()
        raw("null")
    }

    public mutating func bool(_ value: Bool) {
        separate()
        raw(value ? "true" : "false")
    }

    public mutating func number(_ value: Int64) {
        separate()
        decimal(value)
    }

    public mutating func number(_ value: Int) { number(Int64(value)) }

    /// A finite number with up to `decimals` decimals (non-finite values become `null`).
    public mutating func number(_ value: Double, decimals: Int = 2) {
        guard value.isFinite else { return null() }
        separate()
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        for b in "\((value * scale).rounded() / scale)".utf8 { buffer.put(b) }
    }

    /// A string from a literal (ASCII, nothing to escape).
    @inline(__always)
    public mutating func string(_ literal: StaticString) {
        separate()
        buffer.put(UInt8(ascii: "\""))
        buffer.raw(literal)
        buffer.put(UInt8(ascii: "\""))
    }

    /// A string from raw bytes of a line, escaped for JSON, invalid UTF-8 repaired.
    ///
    /// - Complexity: O(`range.count`). - Allocations: none once the buffer has grown.
    public mutating func string(_ span: Span<UInt8>, _ range: ByteRange) {
        let rest = openPlainPrefix(span, range)
        guard rest < Int(range.upper) else { return closePlain() }
        closeEscaping(span, rest..<Int(range.upper))
    }

    /// The slow path of ``string(_:_:)-(Span<UInt8>,ByteRange)``: escapes and repairs the rest of
    /// the string a byte at a time, then closes it. Out of line, so the fast path keeps a small frame.
    @inline(never)
    private mutating func closeEscaping(_ span: Span<UInt8>, _ rest: Range<Int>) {
        var repair = UTF8Repair()
        for i in rest { repair.feed(span[i]) { escape($0) } }
        repair.finish { escape($0) }
        buffer.put(UInt8(ascii: "\""))
    }

    /// Closes a string ``openPlainPrefix(_:_:)`` copied whole, in the room it left for the quote.
    @inline(__always)
    private mutating func closePlain() {
        // SAFETY: the fast path grew the buffer to `n + 18` free bytes and counted at most `n + 2`.
        unsafe buffer.base[buffer.count] = UInt8(ascii: "\"")
        buffer.count &+= 1
    }

    /// A string from raw bytes, escaped for JSON but with every other byte kept as it is — invalid
    /// UTF-8 too. Not strict JSON when the bytes are not UTF-8: for readers that take strings as bytes
    /// (ClickHouse's `JSONEachRow`), so that a line is stored byte for byte.
    ///
    /// - Complexity: O(`range.count`). - Allocations: none once the buffer has grown.
    public mutating func string(verbatim span: Span<UInt8>, _ range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= span.count, "range outside the span")
        separate()
        buffer.put(UInt8(ascii: "\""))
        if buffer.capacity - buffer.count < range.count { buffer.grow(range.count) }
        for i in range { escape(span[i]) }
        buffer.put(UInt8(ascii: "\""))
    }

    /// A string from a tag value: IRCv3-unescaped, then escaped for JSON, invalid UTF-8 repaired.
    public mutating func string(_ span: Span<UInt8>, tag value: TagValue) {
        let rest = openPlainPrefix(span, value.raw)
        guard rest < Int(value.raw.upper) else { return closePlain() }
        closeUnescaping(span, TagValue(raw: ByteRange(UInt16(rest), value.raw.upper)))
    }

    /// The slow path of ``string(_:tag:)``: unescapes, escapes and repairs the rest of the value a
    /// byte at a time, then closes the string. Out of line, so the fast path keeps a small frame.
    @inline(never)
    private mutating func closeUnescaping(_ span: Span<UInt8>, _ rest: TagValue) {
        var repair = UTF8Repair()
        rest.unescape(in: span) { b in repair.feed(b) { escape($0) } }
        repair.finish { escape($0) }
        buffer.put(UInt8(ascii: "\""))
    }

    /// The fast path of the string writers: copies the longest prefix of `span[range]` that needs no
    /// work — printable ASCII other than `"` and `\\`, and well-formed UTF-8 sequences — eight bytes
    /// at a time where it can, and returns where it stopped (`range.upper` when it copied it all).
    /// It stops at the first byte to escape (a `\\` too: JSON escapes it, and in a tag value it starts
    /// an IRCv3 escape) and at malformed UTF-8. It always stops on a sequence boundary, so the slow path may take over there
    /// with a fresh ``UTF8Repair`` and produce exactly what it would have produced for the whole string.
    ///
    /// It opens the string too — the separator and the opening quote (``separate()``) — under the
    /// same one check of the buffer's room, which leaves room for the closing quote as well.
    ///
    /// Inlined into the two string writers: a string costs one call, not two (about 15 strings a
    /// chat line).
    ///
    /// - Complexity: O(`range.count`). - Allocations: at most one growth of the buffer.
    @inline(__always)
    private mutating func openPlainPrefix(_ span: Span<UInt8>, _ range: ByteRange) -> Int {
        let lower = Int(range.lower)
        let upper = Int(range.upper)
        precondition(lower <= upper, "range outside the span")
        let n = upper - lower
        // A separator and a quote, then 16 bytes of slack: a short string is copied as one whole
        // block or word (and the closing quote fits after a string copied whole).
        if buffer.capacity - buffer.count < n &+ 18 { buffer.grow(n &+ 18) }
        // SAFETY: `count + 2 <= capacity` after the growth above.
        if needsComma {
            unsafe buffer.base[buffer.count] = UInt8(ascii: ",")
            buffer.count &+= 1
        }
        needsComma = true
        unsafe buffer.base[buffer.count] = UInt8(ascii: "\"")
        buffer.count &+= 1
        // SAFETY: `[lower, upper)` lies within `span` (checked first in the closure, against the
        // buffer's count, which is the span's), and every read below is within the span: word loads
        // need `i + 8 <= upper` (16-byte loads `i + 16 <= upper`), the overlapping last word starts
        // at `upper - 8 >= lower` (the last 16 bytes at `upper - 16 >= lower`, as `n >= 16`), the
        // short-string block needs `lower + 16 <= span.count` (the word `lower + 8`), and a
        // sequence of `len` bytes is read only when `i + len <= upper`. At most `max(n, 16)` bytes
        // are written at `base + count` (the bytes past `n` are scratch, never counted), and
        // `count + max(n, 16) + 1 <= capacity` after the growth above (`count` has grown by at most
        // the 2 bytes it reserved for the separator and the quote); the regions do not overlap.
        return unsafe span.withUnsafeBufferPointer { source -> Int in
            precondition(upper <= source.count, "range outside the span")
            let p = source.baseAddress!
            let out = unsafe buffer.base + buffer.count
            var i = lower
            defer { buffer.count &+= i &- lower }
            if n < 16 && lower &+ 16 <= source.count {
                // A string shorter than a block (a colour, a number, a login, a name): one vector
                // check of its bytes, the lanes past it left out, and one 16-byte store.
                let v = unsafe UnsafeRawPointer(p + lower).loadUnaligned(as: SIMD16<Int8>.self)
                if !Self.needsAttention(v, first: n) {
                    unsafe UnsafeMutableRawPointer(out).storeBytes(of: v, as: SIMD16<Int8>.self)
                    i = upper
                    return i
                }
            } else if n < 8 && lower &+ 8 <= source.count {
                // A short string (a colour, a number, a short login): one word, its bytes past the
                // string replaced by a plain letter for the check.
                let w = unsafe UnsafeRawPointer(p + lower).loadUnaligned(as: UInt64.self)
                let kept: UInt64 = n == 0 ? 0 : ~0 &>> UInt64(64 &- 8 &* n)
                if !Self.needsAttention((w & kept) | (0x6161_6161_6161_6161 & ~kept)) {
                    unsafe UnsafeMutableRawPointer(out).storeBytes(of: w, as: UInt64.self)
                    i = upper
                }
            }
            // Sixteen bytes a step while they need no work (one vector check), then the string's last
            // sixteen, overlapping bytes already copied; the word loop below takes what is left.
            if n >= 16 {
                while i &+ 16 <= upper {
                    let v = unsafe UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<Int8>.self)
                    if Self.needsAttention(v) { break }
                    unsafe UnsafeMutableRawPointer(out + (i &- lower)).storeBytes(of: v, as: SIMD16<Int8>.self)
                    i &+= 16
                }
                if i < upper && upper &- i < 16 {
                    let v = unsafe UnsafeRawPointer(p + (upper &- 16)).loadUnaligned(as: SIMD16<Int8>.self)
                    if !Self.needsAttention(v) {
                        unsafe UnsafeMutableRawPointer(out + (upper &- 16 &- lower)).storeBytes(
                            of: v, as: SIMD16<Int8>.self)
                        i = upper
                    }
                }
            }
            while i < upper {
                while i &+ 8 <= upper {
                    let w = unsafe UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                    if Self.needsAttention(w) { break }
                    unsafe UnsafeMutableRawPointer(out + (i &- lower)).storeBytes(of: w, as: UInt64.self)
                    i &+= 8
                }
                guard i < upper else { break }
                if upper &- i < 8 && n >= 8 {
                    // Fewer than 8 bytes left: the string's last word, overlapping bytes already
                    // copied (it rewrites them unchanged), instead of a byte at a time.
                    let w = unsafe UnsafeRawPointer(p + (upper &- 8)).loadUnaligned(as: UInt64.self)
                    if !Self.needsAttention(w) {
                        unsafe UnsafeMutableRawPointer(out + (upper &- 8 &- lower)).storeBytes(of: w, as: UInt64.self)
                        i = upper
                        break
                    }
                }
                let b = unsafe p[i]
                if b >= 0x20 && b < 0x7F {
                    guard b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") else { return i }
                    unsafe out[i &- lower] = b
                    i &+= 1
                    continue
                }
                guard b >= 0x80 else { return i }  // a control character or DEL: escaped by the slow path
                let len = unsafe Self.wellFormedSequenceLength(p, i, upper)
                guard len > 0 else { return i }
                var k = 0
                while k < len {
                    unsafe out[i &- lower &+ k] = p[i &+ k]
                    k &+= 1
                }
                i &+= len
            }
            return i
        }
    }

    /// Whether any byte of `w` is not plain printable ASCII, or is `"` or `\\`.
    @inline(__always)
    static func needsAttention(_ w: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func hasZero(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
        let control = (w &- 0x2020_2020_2020_2020) & ~w & highs  // a byte < 0x20 (bytes >= 0x80 flagged anyway)
        let special =
            hasZero(w ^ 0x2222_2222_2222_2222) | hasZero(w ^ 0x5C5C_5C5C_5C5C_5C5C)
            | hasZero(w ^ 0x7F7F_7F7F_7F7F_7F7F)
        return (w & highs) | control | special != 0
    }

    /// Whether any of the 16 bytes of `v` is not plain printable ASCII, or is `"` or `\\`: one signed
    /// compare finds the bytes below 0x20 and those from 0x80 (negative as `Int8`), three more find
    /// `"`, `\\` and DEL. The lanes are OR-ed as plain vectors and tested as two words (`SIMDMask`'s own
    /// `.|` and `any(_:)` are not lowered to single instructions, see `TagStops.mask16`).
    @inline(__always)
    private static func needsAttention(_ v: SIMD16<Int8>) -> Bool {
        let words = unsafe unsafeBitCast(attentionLanes(v), to: SIMD2<UInt64>.self)
        return words[0] | words[1] != 0
    }

    /// ``needsAttention(_:)-(SIMD16<Int8>)`` of the first `count` (below 16) bytes of `v` only: the
    /// lanes' two words masked with scalar masks (a vector mask made from `count` is not lowered to
    /// vector instructions: it cost a loop over the lanes).
    @inline(__always)
    private static func needsAttention(_ v: SIMD16<Int8>, first count: Int) -> Bool {
        let words = unsafe unsafeBitCast(attentionLanes(v), to: SIMD2<UInt64>.self)
        let low: UInt64 = count >= 8 ? ~0 : count == 0 ? 0 : ~0 &>> UInt64(64 &- 8 &* count)
        let high: UInt64 = count <= 8 ? 0 : ~0 &>> UInt64(128 &- 8 &* count)
        return (words[0] & low) | (words[1] & high) != 0
    }

    /// All ones in the lanes of `v` that need work, zero elsewhere.
    @inline(__always)
    private static func attentionLanes(_ v: SIMD16<Int8>) -> SIMD16<Int8> {
        @inline(__always) func lanes(_ m: SIMDMask<SIMD16<Int8>>) -> SIMD16<Int8> {
            unsafe unsafeBitCast(m, to: SIMD16<Int8>.self)
        }
        return lanes(v .< SIMD16(repeating: 0x20)) | lanes(v .== SIMD16(repeating: 0x22))
            | lanes(v .== SIMD16(repeating: 0x5C)) | lanes(v .== SIMD16(repeating: 0x7F))
    }

    /// The length of the well-formed UTF-8 sequence starting at `p[i]` (a byte >= 0x80) and ending
    /// before `end`, or 0 when it is not one (the slow path repairs it).
    @unsafe
    @inline(__always)
    private static func wellFormedSequenceLength(_ p: UnsafePointer<UInt8>, _ i: Int, _ end: Int) -> Int {
        let b0 = unsafe p[i]
        @inline(__always) func cont(_ b: UInt8) -> Bool { b & 0xC0 == 0x80 }
        switch b0 {
        case 0xC2...0xDF:
            guard i &+ 2 <= end else { return 0 }
            return unsafe cont(p[i &+ 1]) ? 2 : 0
        case 0xE0...0xEF:
            guard i &+ 3 <= end else { return 0 }
            let b1 = unsafe p[i &+ 1]
            let lo: UInt8 = b0 == 0xE0 ? 0xA0 : 0x80
            let hi: UInt8 = b0 == 0xED ? 0x9F : 0xBF
            guard b1 >= lo && b1 <= hi, unsafe cont(p[i &+ 2]) else { return 0 }
            return 3
        case 0xF0...0xF4:
            guard i &+ 4 <= end else { return 0 }
            let b1 = unsafe p[i &+ 1]
            let lo: UInt8 = b0 == 0xF0 ? 0x90 : 0x80
            let hi: UInt8 = b0 == 0xF4 ? 0x8F : 0xBF
            guard b1 >= lo && b1 <= hi, unsafe cont(p[i &+ 2]), unsafe cont(p[i &+ 3]) else { return 0 }
            return 4
        default:
            return 0
        }
    }

    /// Writes again, as the next value, bytes this writer wrote since its last ``reset()``: for a line
    /// that carries one string twice (a PRIVMSG's `"about"` and its user's `"login"`), a copy of the
    /// JSON string written the first time instead of a second pass of escaping.
    ///
    /// - Parameter written: the bytes of one whole value, as `count` before and after writing it
    ///   gave them; written where no separator came first (as the value of a key).
    /// - Complexity: O(`written.count`). - Allocations: at most one growth of the buffer.
    public mutating func value(repeating written: Range<Int>) {
        precondition(written.lowerBound >= 0 && written.upperBound <= buffer.count, "range outside the written bytes")
        separate()
        let n = written.count
        if buffer.capacity - buffer.count < n { buffer.grow(n) }
        // SAFETY: `written` lies within the initialised bytes (checked above), after the growth, which
        // keeps them; the copy goes to `count`, past them, with `count + n <= capacity`.
        unsafe (buffer.base + buffer.count).update(from: buffer.base + written.lowerBound, count: n)
        buffer.count &+= n
    }

    /// A string from a `String` (for values we make ourselves, e.g. a msg-id name), escaped.
    ///
    /// Disfavoured, as ``key(_:)-(String)`` is: a literal takes ``string(_:)-(StaticString)``.
    @_disfavoredOverload
    public mutating func string(_ text: String) {
        separate()
        buffer.put(UInt8(ascii: "\""))
        for b in text.utf8 { escape(b) }
        buffer.put(UInt8(ascii: "\""))
    }

    /// A string of a timestamp in RFC 3339 with milliseconds (`2025-11-21T04:26:41.971Z`).
    ///
    /// The first 20 bytes of the last time written in full are kept (``LastSecond``): lines come in
    /// time order, many in the same second, and then those bytes are copied as three words and the
    /// rest, `mmmZ`, is one word made from the milliseconds.
    public mutating func timestamp(_ t: Timestamp) {
        separate()
        buffer.put(UInt8(ascii: "\""))
        if t < .earliest || t > .latest {
            buffer.put(upTo: Timestamp.rfc3339ByteCount) { t.writeRFC3339(to: &$0) }  // clamped: no cache
        } else {
            let (second, millisecond) = t.secondAndMillisecond
            if second != lastSecond.second {
                lastSecond.second = second
                var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
                // SAFETY: the tuple's three words are 24 contiguous bytes, written by the OutputSpan
                // in this scope only.
                unsafe withUnsafeMutableBytes(of: &text) { raw in
                    let words = unsafe raw.bindMemory(to: UInt8.self)
                    var out = unsafe OutputSpan(buffer: words, initializedCount: 0)
                    t.writeRFC3339(to: &out)
                    _ = unsafe out.finalize(for: words)
                }
                lastSecond.text = (text.0, text.1, UInt32(truncatingIfNeeded: text.2))
            }
            if buffer.capacity - buffer.count < Timestamp.rfc3339ByteCount { buffer.grow(Timestamp.rfc3339ByteCount) }
            // `YYYY-MM-DDTHH:MM:SS.` then `mmmZ`, little-endian: the first digit in the low byte.
            let digits =
                UInt32(UInt8(ascii: "0") &+ UInt8(millisecond / 100))
                | UInt32(UInt8(ascii: "0") &+ UInt8(millisecond / 10 % 10)) << 8
                | UInt32(UInt8(ascii: "0") &+ UInt8(millisecond % 10)) << 16 | UInt32(UInt8(ascii: "Z")) << 24
            // SAFETY: `count + 24 <= capacity` after the check.
            let o = unsafe UnsafeMutableRawPointer(buffer.base + buffer.count)
            unsafe o.storeBytes(of: lastSecond.text.0, as: UInt64.self)
            unsafe o.storeBytes(of: lastSecond.text.1, toByteOffset: 8, as: UInt64.self)
            unsafe o.storeBytes(of: lastSecond.text.2, toByteOffset: 16, as: UInt32.self)
            unsafe o.storeBytes(of: digits.littleEndian, toByteOffset: 20, as: UInt32.self)
            buffer.count &+= Timestamp.rfc3339ByteCount
        }
        buffer.put(UInt8(ascii: "\""))
    }

    /// The first 20 bytes (`YYYY-MM-DDTHH:MM:SS.`) of the last time ``timestamp(_:)`` formatted in
    /// full, and its whole second.
    private struct LastSecond {
        var second = Int64.min
        var text: (UInt64, UInt64, UInt32) = (0, 0, 0)
    }
    private var lastSecond = LastSecond()

    @inline(__always)
    private mutating func escape(_ b: UInt8) {
        switch b {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        case 0..<0x20, 0x7F:
            let hex: StaticString = "0123456789abcdef"
            raw("\\u00")
            buffer.put(unsafe hex.utf8Start[Int(b >> 4)])
            buffer.put(unsafe hex.utf8Start[Int(b & 0xF)])
        default: buffer.put(b)
        }
    }
}

@available(*, unavailable)
extension JSONWriter: Sendable {}
