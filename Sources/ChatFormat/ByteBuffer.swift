public import ChatStore

/// A reusable byte buffer for output: literals, raw bytes, decimal numbers and times appended as
/// they are. The text format writes into one directly; ``JSONWriter`` writes JSON into one.
///
/// The buffer owns its memory (raw, grown by doubling, kept by ``reset()``), so steady-state output
/// allocates nothing and a byte costs a store, not a uniqueness check. `~Copyable`: the memory has
/// one owner.
///
/// ```
///  base: [ written … count | free … capacity ]
/// ```
@safe
public struct ByteBuffer: ~Copyable {  // not Sendable: one owner, one thread
    var base: UnsafeMutablePointer<UInt8>
    var capacity: Int
    /// Bytes written since the last ``reset()``.
    public internal(set) var count = 0

    public init(capacity: Int = 4096) {
        self.capacity = max(capacity, 64)
        unsafe base = .allocate(capacity: self.capacity)
    }

    deinit { unsafe base.deallocate() }

    /// Empties the buffer, keeping its capacity.
    public mutating func reset() {
        count = 0
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
    mutating func put(_ b: UInt8) {
        if count == capacity { grow(1) }
        // SAFETY: `count < capacity` after the check.
        unsafe base[count] = b
        count &+= 1
    }

    @inline(__always)
    mutating func put(_ p: UnsafePointer<UInt8>, _ n: Int) {
        if capacity - count < n { grow(n) }
        // SAFETY: `count + n <= capacity` after the check; source and buffer do not overlap.
        unsafe (base + count).update(from: p, count: n)
        count &+= n
    }

    mutating func grow(_ extra: Int) {
        let next = max(capacity * 2, count + extra)
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: next)
        // SAFETY: `count <= capacity` bytes of the old buffer are initialised.
        unsafe fresh.update(from: base, count: count)
        unsafe base.deallocate()
        unsafe base = fresh
        capacity = next
    }

    /// Copies the `n` bytes at `src` to `dst` with word loads and stores and an overlapping last
    /// word, every load and store within the `n` bytes: for short literals (keys, `null`, `true`),
    /// where a `memcpy` call costs more than the copy. Inlined with a literal, `n` is a constant and
    /// only its branch is left.
    ///
    /// - Precondition (caller): `src[0 ..< n]` is readable and `dst[0 ..< n]` writable; they do not overlap.
    @unsafe
    @inline(__always)
    static func copyShort(_ src: UnsafeRawPointer, _ n: Int, to dst: UnsafeMutableRawPointer) {
        if n >= 8 {
            var k = 0
            while k &+ 8 <= n {
                unsafe dst.storeBytes(
                    of: src.loadUnaligned(fromByteOffset: k, as: UInt64.self), toByteOffset: k, as: UInt64.self)
                k &+= 8
            }
            if k < n {
                unsafe dst.storeBytes(
                    of: src.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self), toByteOffset: n &- 8,
                    as: UInt64.self)
            }
        } else if n >= 4 {
            unsafe dst.storeBytes(of: src.loadUnaligned(as: UInt32.self), as: UInt32.self)
            unsafe dst.storeBytes(
                of: src.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self), toByteOffset: n &- 4, as: UInt32.self)
        } else {
            var k = 0
            while k < n {
                unsafe dst.storeBytes(of: src.load(fromByteOffset: k, as: UInt8.self), toByteOffset: k, as: UInt8.self)
                k &+= 1
            }
        }
    }

    /// Appends a literal with ``copyShort(_:_:to:)``.
    @inline(__always)
    private mutating func putLiteral(_ literal: StaticString) {
        let n = literal.utf8CodeUnitCount
        if capacity - count < n { grow(n) }
        // SAFETY: `count + n <= capacity` after the check; a StaticString's `utf8Start` holds
        // `utf8CodeUnitCount` bytes, and it is not inside the buffer.
        unsafe Self.copyShort(UnsafeRawPointer(literal.utf8Start), n, to: UnsafeMutableRawPointer(base + count))
        count &+= n
    }

    /// Appends the decimal digits of `value`.
    ///
    /// - Complexity: O(digits). - Allocations: at most one growth of the buffer.
    public mutating func decimal(_ value: Int64) {
        // A sign and at most 19 digits (`Int64.min`): one check of the room, then the digits
        // written in place from the last one back (no scratch array, no check per digit).
        if capacity - count < 20 { grow(20) }
        if UInt64(bitPattern: value) < 100 {
            // One or two digits (emote offsets, durations, counts): no loop.
            // SAFETY: `count + 20 <= capacity` after the check.
            if value < 10 {
                unsafe base[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value)
                count &+= 1
            } else {
                unsafe base[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10)
                unsafe base[count &+ 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
                count &+= 2
            }
            return
        }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude
        while rest >= 10 {
            rest /= 10
            digits &+= 1
        }
        // SAFETY: `count + 20 <= capacity` after the check, and at most 20 bytes are written.
        var o = unsafe base + count
        if value < 0 {
            unsafe o.pointee = UInt8(ascii: "-")
            unsafe o += 1
        }
        var k = digits
        repeat {
            k &-= 1
            unsafe o[k] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while k > 0
        count = unsafe (o + digits) - base
    }

    /// Appends `t` in RFC 3339 with milliseconds, without quotes (for text output).
    public mutating func raw(rfc3339 t: Timestamp) {
        put(upTo: Timestamp.rfc3339ByteCount) { t.writeRFC3339(to: &$0) }
    }

    /// Appends the time of day of `t` in UTC as `HH:MM:SS` (no quotes: for text output).
    public mutating func raw(timeOfDay t: Timestamp) {
        put(upTo: Timestamp.timeOfDayByteCount) { t.writeTimeOfDay(to: &$0) }
    }

    /// Lets `body` write at most `maximum` bytes straight into the free tail.
    mutating func put(upTo maximum: Int, _ body: (inout OutputSpan<UInt8>) -> Void) {
        if capacity - count < maximum { grow(maximum) }
        // SAFETY: `maximum` free bytes at `base + count` (checked above); the OutputSpan lives in this scope.
        let free = unsafe UnsafeMutableBufferPointer(start: base + count, count: maximum)
        var out = unsafe OutputSpan(buffer: free, initializedCount: 0)
        body(&out)
        count &+= unsafe out.finalize(for: free)
    }

    /// Appends raw bytes as they are.
    public mutating func raw(_ span: Span<UInt8>, _ range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= span.count, "range outside the span")
        // SAFETY: `range` lies within `span` (checked above).
        unsafe span.withUnsafeBufferPointer { p in unsafe put(p.baseAddress! + range.lowerBound, range.count) }
    }

    @inline(__always)
    public mutating func raw(_ literal: StaticString) { putLiteral(literal) }

    public mutating func raw(byte: UInt8) { put(byte) }
}

@available(*, unavailable)
extension ByteBuffer: Sendable {}
