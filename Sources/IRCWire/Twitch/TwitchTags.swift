/// The tags of one line sorted into slots by ``TwitchTagKey``, in a single pass and on the stack.
///
/// Lookups are O(1) after the pass. Duplicates: the last occurrence wins. `msg-param-*` tags are
/// counted as a recognised family; every other tag Twitch does not document is counted in
/// ``unknownCount`` and can be listed with ``forEachUnknown(in:_:)``.
public struct TwitchTags: Sendable {
    /// Value ranges packed as `lower << 16 | upper`; `.max` means absent.
    ///
    /// A SIMD vector, not an `InlineArray`: an element of a vector is read straight from where the
    /// vector lies, whatever the index, while reading an `InlineArray` at an index known only at run
    /// time (a key passed as an argument, as in ``flag(_:in:)``) from a borrowed value first copied
    /// all 256 bytes into a temporary to address them — about five 256-byte copies per chat line in
    /// the JSON encoder (issue 26).
    @usableFromInline
    var slots = SIMD64<UInt32>(repeating: .max)
    private var counts: (all: UInt16, msgParams: UInt16, unknown: UInt16) = (0, 0, 0)
    private var irregular = false
    /// Whether only `time` and `tmi-sent-ts` were sorted (``scanTimes(_:from:limit:)``): a debug
    /// build traps on a lookup of any other tag, which would read as absent (``TagScope/times``).
    @usableFromInline private(set) var timesOnly = false
    /// The tag section (`@` excluded), for the walks of ``msgParam(_:in:)`` and the `forEach`s.
    private var section = ByteRange(0, 0)

    /// Tags seen, duplicates included.
    public var count: Int { Int(counts.all) }
    /// `msg-param-*` tags seen.
    public var msgParamCount: Int { Int(counts.msgParams) }
    /// Tags that are neither documented nor `msg-param-*`.
    public var unknownCount: Int { Int(counts.unknown) }
    /// Whether the section has no empty element (`;;`, a trailing `;`) and no documented key twice.
    /// Then the slots place every documented tag of the line, and a writer may edit the section at
    /// those places instead of walking it tag by tag.
    public var isRegular: Bool { !irregular }

    /// Sorts the tags of `line` into slots.
    ///
    /// - Precondition: `line` was parsed from `bytes`.
    /// - Complexity: O(tag bytes), one pass. - Allocations: none.
    public init(_ line: ParsedLine, in bytes: Span<UInt8>) {
        precondition(Int(line.tagsRange.upper) <= bytes.count, "tags range outside the line")
        self.init(scanning: bytes, from: Int(line.tagsRange.lower), limit: Int(line.tagsRange.upper))
    }

    /// Sorts the tags of the section that starts at `lower` and ends at its first space or at
    /// `limit`, whichever comes first; ``sectionEnd`` is then where it ended. With `limit` the
    /// bytes' end this is the parser's pass over the section too: ``TwitchMessage/parse(_:tags:)`` reads
    /// the tags once, for their end and their slots together.
    ///
    /// One pass from delimiter to delimiter (``TagStops``: the section's `=`, `;` and spaces as a bit
    /// mask, 64 bytes per step); each key is hashed and looked up, each value only delimited
    /// (unescaping stays lazy).
    ///
    /// - Precondition: `lower <= limit <= bytes.count` and `limit <= 65_535`.
    /// - Complexity: O(section bytes), one pass. - Allocations: none.
    init(scanning bytes: Span<UInt8>, from lower: Int, limit: Int) {
        self.init()
        scan(bytes, from: lower, limit: limit)
    }

    /// No tags: every slot empty, an empty section at the line's start.
    init() {}

    /// ``init(scanning:from:limit:)`` into a table with no tags yet, in place: a parse that keeps
    /// the table inside its ``TwitchMessage`` sorts the tags there instead of copying a finished
    /// table of 268 bytes into it.
    ///
    /// - Precondition: the table is empty (``init()``); `lower <= limit <= bytes.count` and
    ///   `limit <= 65_535`.
    /// - Complexity: O(section bytes), one pass. - Allocations: none.
    mutating func scan(_ bytes: Span<UInt8>, from lower: Int, limit: Int) {
        precondition(lower <= limit && limit <= bytes.count && limit <= Int(UInt16.max), "tag section outside the line")
        let count = bytes.count
        var end = limit
        // Counted in locals and stored once: the closure would otherwise update `self` per tag.
        var all: UInt16 = 0
        var msgParams: UInt16 = 0
        var unknown: UInt16 = 0
        // Hot loop on raw pointers. Bounds: every scan stays in `lower ..< limit`, within `bytes`;
        // a short key (< 8 bytes) is hashed from one word read only when `keyStart + 8 <= count`.
        // The slots are written through a pointer to the vector (64 elements; a key's index is below
        // `TwitchTagKey.allCases.count` <= 64): a vector element written at a run-time index would
        // otherwise load and store the whole vector.
        // SAFETY: `table` addresses the 64 `UInt32`s of `self.slots` for the closure's duration only.
        unsafe withUnsafeMutableBytes(of: &slots) { slotBytes in
            let slots = unsafe slotBytes.bindMemory(to: UInt32.self)
            unsafe bytes.withUnsafeBufferPointer { buffer in
                guard let p = buffer.baseAddress else { return }  // no bytes: no section
                let table = tagKeyTable
                let space = UInt8(ascii: " ")
                let semicolon = UInt8(ascii: ";")
                var stops = unsafe TagStops(p, count: count, lower: lower, limit: limit)
                var i = lower
                while true {
                    let keyStart = i
                    let keyEnd = stops.next()
                    var valueStart = keyEnd
                    var valueEnd = keyEnd
                    // What ended the element: `;` (more follow), a space or the limit (the section's end).
                    // SAFETY: `keyEnd < limit <= count` is checked before the read.
                    var stop = keyEnd < limit ? unsafe p[keyEnd] : space
                    if stop == UInt8(ascii: "=") {
                        valueStart = keyEnd &+ 1
                        valueEnd = stops.nextEnd()
                        // SAFETY: `valueEnd < limit <= count` is checked before the read.
                        stop = valueEnd < limit ? unsafe p[valueEnd] : space
                    }
                    let keyCount = keyEnd &- keyStart
                    if keyCount == 0 {
                        // An empty element (`;;`, a leading or trailing `;`) or a value without a key
                        // (`=v`); only an empty section (`@ `) is regular.
                        if stop == semicolon || keyStart != lower || valueStart != keyEnd { irregular = true }
                    } else {
                        all &+= 1
                        let index: Int?
                        if keyCount >= 8 || keyStart &+ 8 <= count {
                            // SAFETY: see the bounds note above.
                            index = unsafe table.lookup(p + keyStart, count: keyCount)
                        } else {
                            index = TwitchTagKey(bytes: bytes, ByteRange(keyStart..<keyEnd)).map { Int($0.rawValue) }
                        }
                        if let index {
                            // SAFETY: `index < 64` (see above).
                            if unsafe slots[index] != .max { irregular = true }  // a repeat: the last one wins
                            unsafe slots[index] =
                                UInt32(truncatingIfNeeded: valueStart) << 16 | UInt32(truncatingIfNeeded: valueEnd)
                        } else if Self.isMsgParam(ByteRange(keyStart..<keyEnd), in: bytes) {
                            msgParams &+= 1
                        } else {
                            unknown &+= 1
                        }
                    }
                    guard stop == semicolon else {
                        end = valueEnd
                        break
                    }
                    i = valueEnd &+ 1  // past the `;`
                }
            }
        }
        section = ByteRange(lower..<end)
        counts = (all, msgParams, unknown)
    }

    /// ``scan(_:from:limit:)`` or ``scanTimes(_:from:limit:)``, as `scope` says.
    @inline(__always)
    mutating func scan(_ bytes: Span<UInt8>, from lower: Int, limit: Int, _ scope: TagScope) {
        if scope == .every {
            scan(bytes, from: lower, limit: limit)
        } else {
            scanTimes(bytes, from: lower, limit: limit)
        }
    }

    /// ``scan(_:from:limit:)`` for a reader that needs only the line's times: the section's end and
    /// the slots of `time` and `tmi-sent-ts` (the last occurrence of each, as the whole scan places
    /// them), nothing else: every other slot stays empty and every count 0 (``TagScope/times``).
    ///
    /// Not a walk from element to element: per 64 bytes, three masks (`;`, spaces, `t`) give the
    /// section's end and the elements that begin with a `t` (after a `;`, or the first), and only
    /// those are read; no key is hashed. About a third of the whole scan's instructions on real chat
    /// (553 against 1,534 a line).
    ///
    /// - Precondition: the table is empty (``init()``); `lower <= limit <= bytes.count` and
    ///   `limit <= 65_535`.
    /// - Complexity: O(section bytes), one pass. - Allocations: none.
    mutating func scanTimes(_ bytes: Span<UInt8>, from lower: Int, limit: Int) {
        precondition(lower <= limit && limit <= bytes.count && limit <= Int(UInt16.max), "tag section outside the line")
        let count = bytes.count
        var end = limit
        // SAFETY: as in `scan`: the two slots are written through a pointer to the vector's elements.
        unsafe withUnsafeMutableBytes(of: &slots) { slotBytes in
            let slots = unsafe slotBytes.bindMemory(to: UInt32.self)
            unsafe bytes.withUnsafeBufferPointer { buffer in
                guard let p = buffer.baseAddress else { return }
                // `time`, `tmi-` and `-sent-ts` as loaded from memory (first byte lowest).
                let timeWord = UInt32(littleEndian: 0x656d_6974)
                let tmiWord = UInt32(littleEndian: 0x2d69_6d74)
                let sentWord = UInt64(littleEndian: 0x7374_2d74_6e65_732d)
                /// Sorts the element `start ..< stop` (`key` or `key=value`) when its key is `time` or
                /// `tmi-sent-ts`. Reads only inside it: four bytes, then eight, each when it holds them.
                @inline(__always)
                func element(_ start: Int, _ stop: Int) {
                    let length = stop &- start
                    guard length >= 4 else { return }
                    // SAFETY: `start + 4 <= stop <= limit <= count`.
                    let word = unsafe UnsafeRawPointer(p + start).loadUnaligned(as: UInt32.self)
                    var keyEnd: Int
                    var slot: Int
                    if word == timeWord {
                        keyEnd = start &+ 4
                        slot = Int(TwitchTagKey.time.rawValue)
                    } else if word == tmiWord && length >= 11 {
                        // SAFETY: `start + 11 <= stop`: the eight bytes from `start + 3` are inside.
                        let rest = unsafe UnsafeRawPointer(p + (start &+ 3)).loadUnaligned(as: UInt64.self)
                        guard rest == sentWord else { return }
                        keyEnd = start &+ 11
                        slot = Int(TwitchTagKey.tmiSentTs.rawValue)
                    } else {
                        return
                    }
                    // The key ends the element, or an `=` follows it.
                    var valueStart = stop
                    if keyEnd < stop {
                        // SAFETY: `keyEnd < stop <= count`.
                        guard unsafe p[keyEnd] == UInt8(ascii: "=") else { return }
                        valueStart = keyEnd &+ 1
                    }
                    // SAFETY: `slot < 64`.
                    unsafe slots[slot] = UInt32(truncatingIfNeeded: valueStart) << 16 | UInt32(truncatingIfNeeded: stop)
                }
                var base = lower
                // An element that begins with `t` in an earlier chunk and does not end there.
                var pending = -1
                // Whether the chunk's first byte begins an element: the section's first does.
                var carry: UInt64 = 1
                while true {
                    // SAFETY: the masks read `p[base ..< min(base + 64, limit)]` (see `timesMasks`).
                    let (semicolons, ends, tees) = unsafe Self.timesMasks(p, count: count, base: base, limit: limit)
                    let stops = semicolons | ends
                    if pending >= 0 && stops != 0 {
                        element(pending, base &+ stops.trailingZeroBitCount)
                        pending = -1
                    }
                    // The elements that begin in this chunk with a `t`, before the section's end.
                    var candidates = (semicolons &<< 1 | carry) & tees
                    carry = semicolons &>> 63
                    let last = ends.trailingZeroBitCount  // 64: the section goes on past this chunk
                    if last < 64 { candidates &= (1 &<< UInt64(last)) &- 1 }
                    while candidates != 0 {
                        let at = candidates.trailingZeroBitCount
                        candidates &= candidates &- 1
                        let after = (stops &>> UInt64(at)) &>> 1
                        if after != 0 {
                            element(base &+ at, base &+ at &+ 1 &+ after.trailingZeroBitCount)
                        } else {
                            pending = base &+ at
                        }
                    }
                    if last < 64 {
                        end = base &+ last
                        return
                    }
                    base &+= 64
                }
            }
        }
        section = ByteRange(lower..<end)
        timesOnly = true
    }

    /// The 64 bytes from `base` as three masks (bit `k`: byte `base + k`): their `;`, their spaces
    /// with `limit`'s own bit (where the section may end), their `t`s; bits at or past `limit` clear.
    ///
    /// - Precondition: `p[0 ..< count]` is readable and `base <= limit <= count`.
    @unsafe
    @inline(__always)
    private static func timesMasks(
        _ p: UnsafePointer<UInt8>, count: Int, base: Int, limit: Int
    ) -> (semicolons: UInt64, ends: UInt64, tees: UInt64) {
        let room = limit &- base
        var semicolons: UInt64 = 0
        var spaces: UInt64 = 0
        var tees: UInt64 = 0
        if base &+ 64 <= count {
            // SAFETY: `base + 64 <= count`: the 64-byte block is inside the bytes.
            let block = unsafe UnsafeRawPointer(p + base)
            unsafe semicolons = ByteMask.equal64(block, UInt8(ascii: ";"))
            unsafe spaces = ByteMask.equal64(block, UInt8(ascii: " "))
            unsafe tees = ByteMask.equal64(block, UInt8(ascii: "t"))
            if room >= 64 { return (semicolons, spaces, tees) }
            let below = (1 &<< UInt64(room)) &- 1
            semicolons &= below
            spaces &= below
            tees &= below
        } else {
            var k = 0
            while k < room {
                // SAFETY: `base + k < limit <= count`.
                let byte = unsafe p[base &+ k]
                let bit: UInt64 = 1 &<< UInt64(k)
                if byte == UInt8(ascii: ";") { semicolons |= bit }
                if byte == UInt8(ascii: " ") { spaces |= bit }
                if byte == UInt8(ascii: "t") { tees |= bit }
                k &+= 1
            }
        }
        return (semicolons, spaces | 1 &<< UInt64(room), tees)
    }

    /// Where the tag section ended: its first space, or the limit it was scanned up to.
    var sectionEnd: Int { Int(section.upper) }

    /// The raw value of `key`, or `nil` when the line does not carry it.
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inlinable
    @inline(__always)
    public subscript(key: TwitchTagKey) -> TagValue? {
        assert(
            !timesOnly || key == .time || key == .tmiSentTs, "a tag looked up in a times-only parse (TagScope.times)")
        let packed = slot(key)
        guard packed != .max else { return nil }
        return TagValue(raw: ByteRange(UInt16(truncatingIfNeeded: packed >> 16), UInt16(truncatingIfNeeded: packed)))
    }

    /// Always inlined; a vector element is read in place (see ``slots``).
    @inlinable
    @inline(__always)
    func slot(_ key: TwitchTagKey) -> UInt32 { slots[Int(key.rawValue)] }

    /// Whether the flag tag `key` is present and equal to `1`.
    ///
    /// Always inlined: called on the tags of a borrowed ``TwitchMessage`` (`message.tags.flag(…)`),
    /// an outlined call needs the table at an address of its own, a 268-byte copy per call.
    @inlinable
    @inline(__always)
    public func flag(_ key: TwitchTagKey, in bytes: Span<UInt8>) -> Bool {
        guard let value = self[key] else { return false }
        return value.raw.count == 1 && bytes[Int(value.raw.lower)] == UInt8(ascii: "1")
    }

    /// The value of `msg-param-<suffix>` (last occurrence wins), or `nil`.
    ///
    /// - Complexity: O(tag bytes). - Allocations: none.
    public func msgParam(_ suffix: StaticString, in bytes: Span<UInt8>) -> TagValue? {
        assert(!timesOnly, "tags walked in a times-only parse (TagScope.times)")
        guard msgParamCount > 0 else { return nil }
        var cursor = TagCursor(lower: Int(section.lower), upper: Int(section.upper))
        var found: TagValue? = nil
        while let tag = cursor.next(in: bytes) {
            guard Self.isMsgParam(tag.key, in: bytes) else { continue }
            if bytes.equals(suffix, at: ByteRange(tag.key.lower + 10, tag.key.upper)) { found = tag.value }
        }
        return found
    }

    /// Calls `body` with every `msg-param-*` tag, in line order.
    public func forEachMsgParam<E: Error>(in bytes: Span<UInt8>, _ body: (Tag) throws(E) -> Void) throws(E) {
        assert(!timesOnly, "tags walked in a times-only parse (TagScope.times)")
        guard msgParamCount > 0 else { return }
        var cursor = TagCursor(lower: Int(section.lower), upper: Int(section.upper))
        while let tag = cursor.next(in: bytes) {
            if Self.isMsgParam(tag.key, in: bytes) { try body(tag) }
        }
    }

    /// Calls `body` with every tag that is neither documented nor `msg-param-*`, in line order.
    public func forEachUnknown<E: Error>(in bytes: Span<UInt8>, _ body: (Tag) throws(E) -> Void) throws(E) {
        assert(!timesOnly, "tags walked in a times-only parse (TagScope.times)")
        guard unknownCount > 0 else { return }
        var cursor = TagCursor(lower: Int(section.lower), upper: Int(section.upper))
        while let tag = cursor.next(in: bytes) {
            if TwitchTagKey(bytes: bytes, tag.key) == nil && !Self.isMsgParam(tag.key, in: bytes) {
                try body(tag)
            }
        }
    }

    private static func isMsgParam(_ key: ByteRange, in bytes: Span<UInt8>) -> Bool {
        key.count > 10 && bytes.equals("msg-param-", at: ByteRange(key.lower, key.lower + 10))
    }
}
