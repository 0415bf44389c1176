/// An open-addressing map from 64-bit key hashes to 64-bit values, for the store's indexes (channel
/// names → logs, shared-chat source ids → first copy) and the interner's strings.
///
/// Linear probing with backward-shift deletion: no tombstones, so lookups stay short however many
/// keys come and go. Key `0` is reserved for "empty" (callers map a real 0 hash elsewhere).
/// The table starts at the capacity asked for (a power of two, at least 4/3 of the keys it will
/// hold); ``set(_:for:)`` refuses beyond three quarters of it, ``insert(_:for:)`` doubles it instead
/// (an owner-only rehash), so an index follows what it holds. Three quarters, not half: with 16-byte
/// slots (four to a cache line) a longer probe run still costs about one miss, and a table holds
/// half again as many keys in the same memory. The slots are raw memory the value owns; their address,
/// mask and count are plain stored properties, so the per-line path pays no reference counting.
///
/// ```
///  slot:   0         1         2        …   capacity-1
///         [k0 v0 ]  [ 0    ]  [k2 v2 ]  …   [k  v  ]      key 0 = empty; key and value share a
///                                                         cache line, so a probe costs one miss
/// ```
/// Owner-only (the ingest loop). A noncopyable value, not an object: its owner holds the slots'
/// address inline, so a lookup reaches the slots in one load from the owner (no object between
/// them); inserting and removing are `mutating`, so an owner holds it in a `var`.
/// - Allocations: one buffer at init; one per doubling in ``insert(_:for:)``; none otherwise.
@safe
public struct HashIndex: ~Copyable {
    @usableFromInline
    struct Slot: Sendable {
        @usableFromInline var key: UInt64
        @usableFromInline var value: UInt64

        @usableFromInline
        init(key: UInt64, value: UInt64) {
            self.key = key
            self.value = value
        }
    }
    // `@usableFromInline` (and the lookups `@inlinable`): the store, the interner and capture look
    // keys up on every line, from other modules.
    @usableFromInline var slots: UnsafeMutablePointer<Slot>
    @usableFromInline var mask: Int
    package private(set) var count = 0

    package init(minimumCapacity: Int) {
        var size = 8
        while size * 3 < minimumCapacity * 4 { size <<= 1 }
        unsafe slots = Self.makeSlots(size)
        mask = size - 1
    }

    deinit {
        unsafe slots.deallocate()
    }

    private static func makeSlots(_ size: Int) -> UnsafeMutablePointer<Slot> {
        let slots = UnsafeMutablePointer<Slot>.allocate(capacity: size)
        unsafe slots.initialize(repeating: Slot(key: 0, value: 0), count: size)
        return unsafe slots
    }

    package var capacity: Int { mask + 1 }
    /// The most keys a table of `size` slots takes before ``set(_:for:)`` refuses.
    @inline(__always)
    private static func limit(_ size: Int) -> Int { size - size / 4 }
    /// Bytes of the slot table (for memory accounting).
    package var reservedBytes: Int { capacity * MemoryLayout<Slot>.stride }

    // SAFETY (all methods): `slots` lives from init (or the `grow` that replaced it) to deinit; every
    // slot index is masked to `0 ... mask`, inside the current `slots` buffer of `mask + 1` slots.

    @inlinable
    @inline(__always)
    func home(_ key: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask
    }

    /// - Complexity: O(1) expected. - Allocations: none.
    @inlinable
    package func value(for key: UInt64) -> UInt64? {
        precondition(key != 0, "key 0 is reserved")
        let slots = unsafe self.slots
        let mask = self.mask
        var i = home(key, mask)
        while true {
            let slot = unsafe slots[i]
            if slot.key == key { return slot.value }
            if slot.key == 0 { return nil }
            i = (i &+ 1) & mask
        }
    }

    /// Inserts or replaces. Refuses (returns `false`) when the table is full to three quarters.
    ///
    /// - Complexity: O(1) expected. - Allocations: none.
    @discardableResult
    package mutating func set(_ value: UInt64, for key: UInt64) -> Bool {
        precondition(key != 0, "key 0 is reserved")
        let slots = unsafe self.slots
        let mask = self.mask
        var i = home(key, mask)
        while true {
            let k = unsafe slots[i].key
            if k == key {
                unsafe slots[i].value = value
                return true
            }
            if k == 0 {
                guard count < Self.limit(mask + 1) else { return false }
                unsafe slots[i] = Slot(key: key, value: value)
                count += 1
                return true
            }
            i = (i &+ 1) & mask
        }
    }

    /// Inserts or replaces, doubling the table first when it is full to three quarters.
    ///
    /// - Complexity: amortised O(1) expected. - Allocations: one per doubling (the table follows the
    ///   most keys it has held; none in steady state).
    @inline(__always)
    package mutating func insert(_ value: UInt64, for key: UInt64) {
        if !set(value, for: key) {
            grow()
            set(value, for: key)
        }
    }

    /// Rehashes into a table twice the size.
    private mutating func grow() {
        let oldSlots = unsafe self.slots
        let oldSize = self.mask + 1
        let size = oldSize * 2
        let slots = unsafe Self.makeSlots(size)
        let mask = size - 1
        for j in 0..<oldSize {
            // SAFETY: `j < oldSize`, inside the old buffer; `i` is masked to the new one.
            let slot = unsafe oldSlots[j]
            guard slot.key != 0 else { continue }
            var i = home(slot.key, mask)
            while unsafe slots[i].key != 0 { i = (i &+ 1) & mask }
            unsafe slots[i] = slot
        }
        unsafe self.slots = unsafe slots
        self.mask = mask
        unsafe oldSlots.deallocate()
    }

    /// Removes `key` if present.
    ///
    /// - Complexity: O(1) expected. - Allocations: none.
    package mutating func remove(_ key: UInt64) {
        precondition(key != 0, "key 0 is reserved")
        let slots = unsafe self.slots
        let mask = self.mask
        var i = home(key, mask)
        while unsafe slots[i].key != key {
            if unsafe slots[i].key == 0 { return }
            i = (i &+ 1) & mask
        }
        // Backward shift: move later members of the probe run into the hole when that keeps them
        // reachable from their home slot.
        var hole = i
        var j = (i &+ 1) & mask
        while unsafe slots[j].key != 0 {
            let h = home(unsafe slots[j].key, mask)
            // `j` may move to `hole` if its home is not in the cyclic interval (hole, j].
            let between = hole <= j ? (h > hole && h <= j) : (h > hole || h <= j)
            if !between {
                unsafe slots[hole] = slots[j]
                hole = j
            }
            j = (j &+ 1) & mask
        }
        unsafe slots[hole].key = 0
        count -= 1
    }
}

@available(*, unavailable)
extension HashIndex: Sendable {}

/// A 64-bit hash of `bytes[range]`, read eight bytes at a time; never 0 (0 marks an empty
/// ``HashIndex`` slot).
///
/// - Complexity: O(`range.count` / 8). - Allocations: none.
@inlinable
@inline(__always)
package func hashBytes(_ bytes: Span<UInt8>, _ range: Range<Int>) -> UInt64 {
    hashBytes(bytes, range, lowercasingASCII: false)
}

/// ``hashBytes(_:_:)``, of the bytes with ASCII capitals lowercased when `lowercasingASCII` (eight
/// at a time, by ``lowercasedASCII(_:)``): names equal but for case hash alike.
///
/// - Complexity: O(`range.count` / 8). - Allocations: none.
@inlinable
@inline(__always)
package func hashBytes(_ bytes: Span<UInt8>, _ range: Range<Int>, lowercasingASCII: Bool) -> UInt64 {
    precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "hash range outside the bytes")
    var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: range.count)
    // SAFETY: every load reads `i ..< i + 8` with `i + 8 <= range.upperBound <= bytes.count`; the
    // tail is read byte by byte below `range.upperBound`.
    unsafe bytes.withUnsafeBytes { raw in
        var i = range.lowerBound
        while i &+ 8 <= range.upperBound {
            var w = unsafe raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if lowercasingASCII { w = lowercasedASCII(w) }
            h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i &+= 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < range.upperBound {
            var byte = unsafe raw[i]
            if lowercasingASCII && byte &- UInt8(ascii: "A") < 26 { byte |= 0x20 }
            tail |= UInt64(byte) << shift
            shift &+= 8
            i &+= 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 29
    }
    return h == 0 ? 1 : h
}

/// The eight bytes of `word` with each ASCII capital (`A`…`Z`) turned into its lowercase letter and
/// every other byte as it is, without a loop: a byte's high bit marks `>= "A"` after adding `0x3F`
/// and `> "Z"` after adding `0x25` to its low seven bits (no carry leaves a byte: at most
/// `0x7F + 0x3F`); a capital is `>= "A"`, not `> "Z"`, and ASCII (high bit clear), and gets `0x20`.
///
/// - Complexity: O(1). - Allocations: none.
@inlinable
@inline(__always)
package func lowercasedASCII(_ word: UInt64) -> UInt64 {
    let highs: UInt64 = 0x8080_8080_8080_8080
    let low7 = word & ~highs
    let atLeastA = low7 &+ 0x3F3F_3F3F_3F3F_3F3F
    let pastZ = low7 &+ 0x2525_2525_2525_2525
    let capitals = atLeastA & ~pastZ & ~word & highs
    return word | capitals >> 2
}
