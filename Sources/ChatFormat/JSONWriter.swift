public import ChatStore
public import IRCWire

/// Appends JSON to a reusable byte buffer: objects, keys, strings escaped from raw or tag-escaped
/// bytes, numbers, booleans, null. Invalid UTF-8 is repaired to U+FFFD here, at the output edge.
///
/// The writer owns its buffer (raw memory, grown by doubling, kept by ``reset()``), so steady-state
/// output allocates nothing and a byte costs a store, not a uniqueness check. `~Copyable`: the
/// buffer has one owner. The writer does not check nesting; encoders are written to be balanced.
///
/// ```
///  base: [ written … count | free … capacity ]
/// ```
@safe
public struct JSONWriter: ~Copyable {  // not Sendable: one owner, one thread
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written since the last ``reset()``.
    public private(set) var count = 0
    /// Whether the next member or element needs a comma first.
    private var needsComma = false

    public init(capacity: Int = 4096) {
        self.capacity = max(capacity, 64)
        unsafe base = .allocate(capacity: self.capacity)
    }

    deinit { unsafe base.deallocate() }

    /// Empties the buffer, keeping its capacity.
    public mutating func reset() {
        count = 0
        needsComma = false
    }

    /// Lends the bytes written so far.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func withBytes<R: ~Copyable, E: Error>(_ body: (Span<UInt8>) throws(E) -> R) throws(E) -> R {
        // SAFETY: `base[0 ..< count]` is initialised and owned by `self`, which is borrowed for the call.
        try body(unsafe Span(_unsafeElements: UnsafeBufferPointer(start: base, count: count)))
    }

    /// A copy of the bytes written so far (for callers that keep them).
    public var bytes: [UInt8] {
        // SAFETY: see `withBytes`.
        unsafe Array(UnsafeBufferPointer(start: base, count: count))
    }

    @inline(__always)
    private mutating func put(_ b: UInt8) {
        if count == capacity { grow(1) }
        // SAFETY: `count < capacity` after the check.
        unsafe base[count] = b
        count &+= 1
    }

    @inline(__always)
    private mutating func put(_ p: UnsafePointer<UInt8>, _ n: Int) {
        if capacity - count < n { grow(n) }
        // SAFETY: `count + n <= capacity` after the check; source and buffer do not overlap.
        unsafe (base + count).update(from: p, count: n)
        count &+= n
    }

    private mutating func grow(_ extra: Int) {
        let next = max(capacity * 2, count + extra)
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: next)
        // SAFETY: `count <= capacity` bytes of the old buffer are initialised.
        unsafe fresh.update(from: base, count: count)
        unsafe base.deallocate()
        unsafe base = fresh
        capacity = next
    }

    // MARK: Structure

    public mutating func beginObject() {
        separate()
        put(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        put(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        put(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        put(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":` (a key from a literal; keys are plain ASCII).
    public mutating func key(_ name: StaticString) {
        separate()
        put(UInt8(ascii: "\""))
        // SAFETY: a StaticString's `utf8Start` holds `utf8CodeUnitCount` bytes.
        unsafe put(name.utf8Start, name.utf8CodeUnitCount)
        put(UInt8(ascii: "\""))
        put(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a key given as raw bytes (a tag name), escaped.
    public mutating func key(bytes span: Span<UInt8>, _ range: ByteRange) {
        string(span, range)
        put(UInt8(ascii: ":"))
        needsComma = false
    }

    private mutating func separate() {
        if needsComma { put(UInt8(ascii: ",")) }
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

    /// Appends the decimal digits of `value` (no separator: for text output too).
    public mutating func decimal(_ value: Int64) {
        if value < 0 { put(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = InlineArray<20, UInt8>(repeating: 0)
        var n = 0
        repeat {
            digits[n] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
            n += 1
        } while magnitude > 0
        while n > 0 {
            n -= 1
            put(digits[n])
        }
    }

    public mutating func number(_ value: Int) { number(Int64(value)) }

    /// A finite number with up to `decimals` decimals (non-finite values become `null`).
    public mutating func number(_ value: Double, decimals: Int = 2) {
        guard value.isFinite else { return null() }
        separate()
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        for b in "\((value * scale).rounded() / scale)".utf8 { put(b) }
    }

    /// A string from a literal (ASCII, nothing to escape).
    public mutating func string(_ literal: StaticString) {
        separate()
        put(UInt8(ascii: "\""))
        unsafe put(literal.utf8Start, literal.utf8CodeUnitCount)
        put(UInt8(ascii: "\""))
    }

    /// A string from raw bytes of a line, escaped for JSON, invalid UTF-8 repaired.
    ///
    /// - Complexity: O(`range.count`). - Allocations: none once the buffer has grown.
    public mutating func string(_ span: Span<UInt8>, _ range: ByteRange) {
        separate()
        put(UInt8(ascii: "\""))
        var repair = UTF8Repair()
        for i in range.range { repair.feed(span[i]) { escape($0) } }
        repair.finish { escape($0) }
        put(UInt8(ascii: "\""))
    }

    /// A string from a tag value: IRCv3-unescaped, then escaped for JSON, invalid UTF-8 repaired.
    public mutating func string(_ span: Span<UInt8>, tag value: TagValue) {
        separate()
        put(UInt8(ascii: "\""))
        var repair = UTF8Repair()
        value.unescape(in: span) { b in repair.feed(b) { escape($0) } }
        repair.finish { escape($0) }
        put(UInt8(ascii: "\""))
    }

    /// A string from a `String` (for values we make ourselves, e.g. a msg-id name).
    public mutating func string(_ text: String) {
        separate()
        put(UInt8(ascii: "\""))
        for b in text.utf8 { escape(b) }
        put(UInt8(ascii: "\""))
    }

    /// A string of a timestamp in RFC 3339 with milliseconds (`2025-11-21T04:26:41.971Z`).
    public mutating func timestamp(_ t: Timestamp) {
        separate()
        put(UInt8(ascii: "\""))
        put(upTo: Timestamp.rfc3339ByteCount) { t.writeRFC3339(to: &$0) }
        put(UInt8(ascii: "\""))
    }

    /// Appends the time of day of `t` in UTC as `HH:MM:SS` (no quotes: for text output).
    public mutating func raw(timeOfDay t: Timestamp) {
        put(upTo: Timestamp.timeOfDayByteCount) { t.writeTimeOfDay(to: &$0) }
    }

    /// Lets `body` write at most `maximum` bytes straight into the free tail.
    private mutating func put(upTo maximum: Int, _ body: (inout OutputSpan<UInt8>) -> Void) {
        if capacity - count < maximum { grow(maximum) }
        // SAFETY: `maximum` free bytes at `base + count` (checked above); the OutputSpan lives in this scope.
        let free = unsafe UnsafeMutableBufferPointer(start: base + count, count: maximum)
        var out = unsafe OutputSpan(buffer: free, initializedCount: 0)
        body(&out)
        count &+= unsafe out.finalize(for: free)
    }

    /// Appends raw bytes as they are (for text output built with the same buffer).
    public mutating func raw(_ span: Span<UInt8>, _ range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= span.count, "range outside the span")
        // SAFETY: `range` lies within `span` (checked above).
        unsafe span.withUnsafeBufferPointer { p in unsafe put(p.baseAddress! + range.lowerBound, range.count) }
    }

    public mutating func raw(_ literal: StaticString) {
        unsafe put(literal.utf8Start, literal.utf8CodeUnitCount)
    }

    public mutating func raw(byte: UInt8) { put(byte) }

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
            put(unsafe hex.utf8Start[Int(b >> 4)])
            put(unsafe hex.utf8Start[Int(b & 0xF)])
        default: put(b)
        }
    }
}

/// A streaming UTF-8 validator that passes valid sequences through and replaces each maximal
/// invalid subpart with U+FFFD (the Unicode-recommended practice, as `String(decoding:as:)` does).
///
/// - Complexity: O(1) per byte. - Allocations: none.
public struct UTF8Repair: Sendable {
    private var pending = InlineArray<4, UInt8>(repeating: 0)
    private var count = 0
    private var needed = 0
    /// Bounds for the second byte of the pending sequence (they narrow for E0, ED, F0, F4).
    private var low: UInt8 = 0x80
    private var high: UInt8 = 0xBF

    public init() {}

    static let replacement: (UInt8, UInt8, UInt8) = (0xEF, 0xBF, 0xBD)

    public mutating func feed(_ b: UInt8, _ emit: (UInt8) -> Void) {
        if needed > 0 {
            let lo: UInt8 = count == 1 ? low : 0x80
            let hi: UInt8 = count == 1 ? high : 0xBF
            if b >= lo && b <= hi {
                pending[count] = b
                count += 1
                if count == needed {
                    for i in 0..<count { emit(pending[i]) }
                    needed = 0
                    count = 0
                }
                return
            }
            // The pending sequence is a maximal invalid subpart: one replacement, then `b` anew.
            emitReplacement(emit)
            needed = 0
            count = 0
        }
        switch b {
        case 0x00...0x7F: emit(b)
        case 0xC2...0xDF: start(b, 2, 0x80, 0xBF)
        case 0xE0: start(b, 3, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: start(b, 3, 0x80, 0xBF)
        case 0xED: start(b, 3, 0x80, 0x9F)
        case 0xF0: start(b, 4, 0x90, 0xBF)
        case 0xF1...0xF3: start(b, 4, 0x80, 0xBF)
        case 0xF4: start(b, 4, 0x80, 0x8F)
        default: emitReplacement(emit)  // stray continuation byte or a byte never valid in UTF-8
        }
    }

    /// At the end of the input: a sequence cut short becomes one replacement character.
    public mutating func finish(_ emit: (UInt8) -> Void) {
        if needed > 0 { emitReplacement(emit) }
        needed = 0
        count = 0
    }

    private mutating func start(_ b: UInt8, _ length: Int, _ lo: UInt8, _ hi: UInt8) {
        pending[0] = b
        count = 1
        needed = length
        low = lo
        high = hi
    }

    private func emitReplacement(_ emit: (UInt8) -> Void) {
        emit(Self.replacement.0)
        emit(Self.replacement.1)
        emit(Self.replacement.2)
    }
}

@available(*, unavailable)
extension JSONWriter: Sendable {}
