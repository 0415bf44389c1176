/// The `=`, `;` and spaces of a line's tag section as one bit mask, 64 bytes at a time, found in the
/// same pass that finds where the section ends: the tag passes (``TwitchTags``, ``TagCursor``,
/// ``ParsedLine/parse(_:eachTag:)``) take the delimiters in order, each with a trailing-zero count
/// and by clearing the lowest bit, read the byte there to tell which it is, and learn the section's
/// end (its first space) when they get there. The section is read once,
/// whether or not the parser already knew its end.
///
/// ```
///  bytes:  b a d g e s = ; c o l o r = # F F ; i d   : n i c k …   (limit: the bytes' end)
///  stops:  0 0 0 0 0 0 1 1 0 0 0 0 0 1 0 0 0 1 0 0 1 0 …          ("=", ";" or " "; bit k = byte base + k)
/// ```
///
/// A chunk's mask comes from three vector compares of its 64 bytes, OR-ed and gathered into 64
/// bits by a movemask (``ByteMask``). One mask, not one per delimiter: halving the gathers is worth
/// an extra step over the rare `=` inside a value (``nextEnd()``). Delimiters after the first space
/// are in the mask but never reached: every walk stops at the first space. `limit` is always a stop
/// (its bit is set when the chunk holds it, and bits past it are clear), so a walk ends even where
/// the bytes hold no space at all.
///
/// Owner: one tag pass, on the stack. Reads only `p[lower ..< limit]` (`limit <= count`).
@safe
@usableFromInline
struct TagStops {
    @usableFromInline let p: UnsafePointer<UInt8>
    @usableFromInline let count: Int
    /// Where the section ends at the latest: the parser's section end when it is known, else `count`.
    @usableFromInline let limit: Int
    /// Start of the current chunk.
    @usableFromInline private(set) var base: Int
    /// The stops of the current chunk not taken yet (bit `k` is byte `base + k`): `=`, `;`, space,
    /// and `limit`. Every stop is taken in order, so the next one is always the lowest bit.
    @usableFromInline private(set) var stops: UInt64 = 0

    /// A walk from `lower`.
    ///
    /// - Precondition: `p[0 ..< count]` is readable and `lower <= limit <= count`.
    @unsafe
    @inlinable
    @inline(__always)
    init(_ p: UnsafePointer<UInt8>, count: Int, lower: Int, limit: Int) {
        assert(lower <= limit && limit <= count)
        unsafe self.p = p
        self.count = count
        self.limit = limit
        base = lower
        unsafe load()
    }

    /// A walk resumed in the chunk at `base` with the stops of it not taken yet (``TagCursor`` keeps
    /// them between tags).
    ///
    /// - Precondition: as for a fresh walk, and `base`, `stops` were read from a walk over the same
    ///   bytes and `limit` that has not taken `limit` yet.
    @unsafe
    @inlinable
    @inline(__always)
    init(_ p: UnsafePointer<UInt8>, count: Int, limit: Int, base: Int, stops: UInt64) {
        assert(base <= limit && limit <= count)
        unsafe self.p = p
        self.count = count
        self.limit = limit
        self.base = base
        self.stops = stops
    }

    /// Takes the next `=`, `;` or space of the walk (the first at or after `lower`, then the one after
    /// the last taken), or `limit`.
    ///
    /// - Precondition: `limit` has not been taken yet (a walk ends there).
    /// - Complexity: O(1) amortised: a trailing-zero count and clearing the lowest bit; a new chunk
    ///   every 64 bytes.
    @inlinable
    @inline(__always)
    mutating func next() -> Int {
        // Ends: `limit` is a stop not taken yet, so a chunk at or before it holds a bit; and a chunk
        // that holds no bit ends before `limit`, so `base + 64 <= limit` for the next one.
        while stops == 0 {
            base &+= 64
            unsafe load()
        }
        let at = base &+ stops.trailingZeroBitCount
        stops &= stops &- 1
        return at
    }

    /// Takes stops up to the next `;` or space, or `limit`: the end of a value (an `=` inside it is
    /// stepped over).
    ///
    /// - Precondition: as ``next()``.
    @inlinable
    @inline(__always)
    mutating func nextEnd() -> Int {
        var at = next()
        // SAFETY: `at < limit <= count` is checked before the read.
        while at < limit, unsafe p[at] == UInt8(ascii: "=") { at = next() }
        return at
    }

    /// Computes the mask of the chunk at `base` (`base <= limit`).
    @unsafe
    @inlinable
    @inline(__always)
    mutating func load() { stops = unsafe Self.mask(p, count: count, base: base, limit: limit) }

    /// The stops of the 64 bytes from `base`: bit `k` set where byte `base + k` is `=`, `;` or a
    /// space, bits at or past `limit` clear, and `limit`'s own bit set.
    ///
    /// Inlined into the walk (a call per chunk cost a fifth of what the chunk's mask does); the
    /// last bytes of the line, fewer than 64, are ``tailMask(_:base:limit:)``'s.
    ///
    /// - Precondition: `p[0 ..< count]` is readable and `base <= limit <= count`.
    @unsafe
    @inlinable
    @inline(__always)
    static func mask(_ p: UnsafePointer<UInt8>, count: Int, base: Int, limit: Int) -> UInt64 {
        guard base &+ 64 <= count else { return unsafe tailMask(p, base: base, limit: limit) }
        // SAFETY: `base + 64 <= count`: the 64-byte block is inside the bytes.
        let bits = unsafe ByteMask.equal64(
            UnsafeRawPointer(p + base), UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "="))
        let room = limit &- base
        return room >= 64 ? bits : (bits & ((1 &<< UInt64(room)) &- 1)) | (1 &<< UInt64(room))
    }

    /// ``mask(_:count:base:limit:)`` of the last bytes (fewer than 64 from `base` to the bytes' end):
    /// one at a time, up to the limit.
    ///
    /// - Precondition: `p[base ..< limit]` is readable and `limit - base < 64`.
    @unsafe
    @usableFromInline
    static func tailMask(_ p: UnsafePointer<UInt8>, base: Int, limit: Int) -> UInt64 {
        var bits: UInt64 = 0
        var k = 0
        while base &+ k < limit {
            // SAFETY: `base + k < limit`, readable.
            let byte = unsafe p[base &+ k]
            if byte == UInt8(ascii: ";") || byte == UInt8(ascii: "=") || byte == UInt8(ascii: " ") {
                bits |= 1 &<< UInt64(k)
            }
            k &+= 1
        }
        return bits | (1 &<< UInt64(limit &- base))
    }
}

@available(*, unavailable)
extension TagStops: Sendable {}

/// One element of a tag section as a walk takes it (``TagStops/element()``): `key=value`, `key`,
/// `=value`, or nothing (`;;`). Offsets into the line; the element starts where the walk stood.
@usableFromInline
struct TagElement: Sendable {
    /// The `=`, `;` or space after the key, or the walk's limit.
    @usableFromInline var keyEnd: Int
    /// `keyEnd + 1` after an `=`, else `keyEnd`.
    @usableFromInline var valueStart: Int
    /// The `;` or space after the value, or the walk's limit (`keyEnd` when there is no `=`).
    @usableFromInline var valueEnd: Int

    @inlinable
    init(keyEnd: Int, valueStart: Int, valueEnd: Int) {
        self.keyEnd = keyEnd
        self.valueStart = valueStart
        self.valueEnd = valueEnd
    }

    /// Whether the element that starts at `start` holds nothing: neither a key nor an `=`.
    @inlinable
    @inline(__always)
    func isEmpty(at start: Int) -> Bool { keyEnd == start && valueStart == keyEnd }

    /// The element that starts at `start` as a ``Tag``.
    ///
    /// - Precondition: `start <= keyEnd <= 65_535`, as in every line (at most 65,535 bytes).
    @inlinable
    @inline(__always)
    func tag(at start: Int) -> Tag {
        Tag(
            key: ByteRange(UInt16(truncatingIfNeeded: start), UInt16(truncatingIfNeeded: keyEnd)),
            value: TagValue(
                raw: ByteRange(UInt16(truncatingIfNeeded: valueStart), UInt16(truncatingIfNeeded: valueEnd))))
    }
}

extension TagStops {
    /// Takes the stops of the element that starts at the byte after the last stop taken (or at
    /// `lower`): its key up to the first `=`, `;` or space, and its value, when there is an `=`, up
    /// to the next `;` or space (an `=` inside it is stepped over); either may end at `limit`.
    ///
    /// - Precondition: as ``next()``.
    /// - Complexity: O(1) amortised. - Allocations: none.
    @inlinable
    @inline(__always)
    mutating func element() -> TagElement {
        let keyEnd = next()
        // SAFETY: `keyEnd < limit <= count` is checked before the read.
        if keyEnd < limit, unsafe p[keyEnd] == UInt8(ascii: "=") {
            return TagElement(keyEnd: keyEnd, valueStart: keyEnd &+ 1, valueEnd: nextEnd())
        }
        return TagElement(keyEnd: keyEnd, valueStart: keyEnd, valueEnd: keyEnd)
    }

    /// Whether the element that ended at `valueEnd` was followed by a `;` (more elements follow);
    /// `false` at a space or at `limit` (the section's end).
    @inlinable
    @inline(__always)
    func continues(after valueEnd: Int) -> Bool {
        guard valueEnd < limit else { return false }
        // SAFETY: `valueEnd < limit <= count`.
        return unsafe p[valueEnd] == UInt8(ascii: ";")
    }
}
