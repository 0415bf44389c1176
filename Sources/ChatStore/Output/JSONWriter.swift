public import IRCWire

/// Appends JSON to a reusable byte buffer: objects, keys, strings escaped from raw or tag-escaped
/// bytes, numbers, booleans, null. Invalid UTF-8 is repaired to U+FFFD here, at the output edge.
///
/// The buffer keeps its capacity between lines (``reset()``), so steady-state output allocates
/// nothing. The writer does not check nesting; encoders are written to be balanced.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Whether the next member or element needs a comma first.
    private var needsComma = false

    public init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    /// Empties the buffer, keeping its capacity.
    public mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needsComma = false
    }

    // MARK: Structure

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes `"name":` (a key from a literal; keys are plain ASCII).
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        // SAFETY: a StaticString's `utf8Start` holds `utf8CodeUnitCount` bytes.
        unsafe bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a key given as raw bytes (a tag name), escaped.
    public mutating func key(bytes span: Span<UInt8>, _ range: ByteRange) {
        string(span, range)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
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
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
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
            bytes.append(digits[n])
        }
    }

    public mutating func number(_ value: Int) { number(Int64(value)) }

    /// A finite number with up to `decimals` decimals (non-finite values become `null`).
    public mutating func number(_ value: Double, decimals: Int = 2) {
        guard value.isFinite else { return null() }
        separate()
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        bytes.append(contentsOf: "\((value * scale).rounded() / scale)".utf8)
    }

    /// A string from a literal (ASCII, nothing to escape).
    public mutating func string(_ literal: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        unsafe bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string from raw bytes of a line, escaped for JSON, invalid UTF-8 repaired.
    ///
    /// - Complexity: O(`range.count`). - Allocations: none once the buffer has grown.
    public mutating func string(_ span: Span<UInt8>, _ range: ByteRange) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var repair = UTF8Repair()
        for i in range.range { repair.feed(span[i]) { escape($0) } }
        repair.finish { escape($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string from a tag value: IRCv3-unescaped, then escaped for JSON, invalid UTF-8 repaired.
    public mutating func string(_ span: Span<UInt8>, tag value: TagValue) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var repair = UTF8Repair()
        value.unescape(in: span) { b in repair.feed(b) { escape($0) } }
        repair.finish { escape($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string from a `String` (for values we make ourselves, e.g. a msg-id name).
    public mutating func string(_ text: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for b in text.utf8 { escape(b) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string of a timestamp in RFC 3339 with milliseconds (`2025-11-21T04:26:41.971Z`).
    public mutating func timestamp(_ t: Timestamp) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(addingCapacity: Timestamp.rfc3339ByteCount) { out in t.writeRFC3339(to: &out) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends raw bytes as they are (for text output built with the same buffer).
    public mutating func raw(_ span: Span<UInt8>, _ range: Range<Int>) {
        for i in range { bytes.append(span[i]) }
    }

    public mutating func raw(_ literal: StaticString) {
        unsafe bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    public mutating func raw(byte: UInt8) { bytes.append(byte) }

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
            unsafe bytes.append(hex.utf8Start[Int(b >> 4)])
            unsafe bytes.append(hex.utf8Start[Int(b & 0xF)])
        default: bytes.append(b)
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
