public import IRCWire

extension JSONWriter {
    /// Writes a `badges`-shaped tag value (`name/version,name/version`, as ``BadgeCursor`` reads it)
    /// as the member `"key":[{"name":…,"version":…}…]` in one pass over its bytes, when every byte is
    /// plain: printable ASCII other than `"` and `\\`, so that neither JSON escaping, IRCv3
    /// unescaping nor UTF-8 repair changes it (what Twitch sends). Then a `,` closes a badge, the
    /// first `/` of a badge starts its version, and empty pieces are skipped, as the cursor does; the
    /// bytes are those that writing each badge's name with ``string(_:_:)-(Span<UInt8>,ByteRange)``
    /// and its version with ``string(_:tag:)`` would write. Otherwise it writes nothing and returns
    /// `false`, and the caller walks the badges one at a time.
    ///
    /// One check of the bytes a word at a time, then for each badge a search for its `,` and its `/`
    /// and copies a word at a time between the literals, where each badge took a cursor step, two
    /// string writers and their keys.
    ///
    /// - Complexity: O(`value.count`). - Allocations: at most one growth of the buffer.
    public mutating func badgeList(_ span: Span<UInt8>, _ value: ByteRange, key: StaticString) -> Bool {
        let lower = Int(value.lower)
        let upper = Int(value.upper)
        precondition(lower <= upper && upper <= span.count, "range outside the span")
        // SAFETY: `[lower, upper)` lies within the span (checked above); word loads need `i + 8 <= upper`.
        let plain = unsafe span.withUnsafeBufferPointer { source -> Bool in
            let p = source.baseAddress!
            var i = lower
            while i &+ 8 <= upper {
                if Self.needsAttention(unsafe UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)) { return false }
                i &+= 8
            }
            while i < upper {
                let b = unsafe p[i]
                guard b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\") else { return false }
                i &+= 1
            }
            return true
        }
        guard plain else { return false }
        self.key(key)
        // A badge of one byte and its comma, two bytes of the value, write `,{"name":"x","version":""}`,
        // 26 bytes: at most 13 a byte of the value, the brackets, and slack.
        let most = 13 &* (upper &- lower) &+ 36
        if buffer.capacity - buffer.count < most { buffer.grow(most) }
        // SAFETY: at most `most` bytes are written at `base + count`, with `count + most <= capacity`
        // after the growth above; reads stay within `[0, source.count)`: a copy reads only its bytes
        // (inside the value), the searches load a word at `k` only when `k + 8 <= source.count`.
        unsafe span.withUnsafeBufferPointer { source in
            let p = source.baseAddress!
            let end = source.count
            var o = unsafe buffer.base + buffer.count
            @inline(__always) func put(_ literal: StaticString) {
                let n = literal.utf8CodeUnitCount
                unsafe ByteBuffer.copyShort(UnsafeRawPointer(literal.utf8Start), n, to: UnsafeMutableRawPointer(o))
                unsafe o += n
            }
            // The `n` bytes at `from`: ByteBuffer's word copy, every load and store within the `n` bytes.
            @inline(__always) func copy(_ from: Int, _ n: Int) {
                unsafe ByteBuffer.copyShort(UnsafeRawPointer(p + from), n, to: UnsafeMutableRawPointer(o))
                unsafe o += n
            }
            // The first `byte` in `[from, to)`, or `to`.
            @inline(__always) func first(_ byte: UInt8, _ from: Int, _ to: Int) -> Int {
                var k = from
                while k < to {
                    guard k &+ 8 <= end else {
                        while k < to {
                            if unsafe p[k] == byte { return k }
                            k &+= 1
                        }
                        return to
                    }
                    let x =
                        unsafe UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self)
                        ^ (0x0101_0101_0101_0101 &* UInt64(byte))
                    // The lowest flagged byte is the first match (a borrow only flags bytes above a match).
                    var found = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
                    if to &- k < 8 { found &= (1 &<< UInt64(8 &* (to &- k))) &- 1 }
                    if found != 0 { return k &+ found.trailingZeroBitCount &>> 3 }
                    k &+= 8
                }
                return to
            }
            unsafe o.pointee = UInt8(ascii: "[")
            unsafe o += 1
            var isFirst = true
            var i = lower
            while i < upper {
                let stop = first(UInt8(ascii: ","), i, upper)
                if stop > i {
                    let slash = first(UInt8(ascii: "/"), i, stop)
                    if isFirst { put(#"{"name":""#) } else { put(#",{"name":""#) }
                    isFirst = false
                    copy(i, slash &- i)
                    put(#"","version":""#)
                    if slash < stop { copy(slash &+ 1, stop &- slash &- 1) }
                    put(#""}"#)
                }
                i = stop &+ 1
            }
            unsafe o.pointee = UInt8(ascii: "]")
            unsafe o += 1
            buffer.count = unsafe o - buffer.base
        }
        needsComma = true
        return true
    }
}
