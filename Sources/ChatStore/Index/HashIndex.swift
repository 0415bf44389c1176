/// A fixed-capacity open-addressing map from 64-bit key hashes to 64-bit values, for the owner's
/// indexes (message id → entry, user id → newest entry, source id → first copy, channel names).
///
/// Linear probing with backward-shift deletion: no tombstones, so lookups stay short however many
/// keys come and go. Key `0` is reserved for "empty" (callers map a real 0 hash elsewhere).
/// Capacity is fixed at init (a power of two, at least twice the keys it will hold); the storage is
/// raw memory owned by the instance, so the per-line path pays no reference counting or
/// exclusivity checks.
///
/// ```
///  slot:   0         1         2        …   capacity-1
///         [k0 v0 ]  [ 0    ]  [k2 v2 ]  …   [k  v  ]      key 0 = empty; key and value share a
///                                                         cache line, so a probe costs one miss
/// ```
/// Owner-only (the ingest loop).
/// - Allocations: one buffer at init; none afterwards.
@safe
final class HashIndex {
    private struct Slot {
        var key: UInt64
        var value: UInt64
    }
    private let slots: UnsafeMutablePointer<Slot>
    private let mask: Int
    private(set) var count = 0  // owner-only: no overlapping access

    init(minimumCapacity: Int) {
        var size = 16
        while size < minimumCapacity * 2 { size <<= 1 }
        unsafe slots = .allocate(capacity: size)
        unsafe slots.initialize(repeating: Slot(key: 0, value: 0), count: size)
        mask = size - 1
    }

    deinit {
        unsafe slots.deallocate()
    }

    var capacity: Int { mask + 1 }

    @inline(__always)
    private func home(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 40) & mask }

    // SAFETY (all methods): every slot index is masked to `0 ... mask`, inside the buffer.

    /// - Complexity: O(1) expected. - Allocations: none.
    func value(for key: UInt64) -> UInt64? {
        precondition(key != 0, "key 0 is reserved")
        var i = home(key)
        while true {
            let slot = unsafe slots[i]
            if slot.key == key { return slot.value }
            if slot.key == 0 { return nil }
            i = (i &+ 1) & mask
        }
    }

    /// Inserts or replaces. Refuses (returns `false`) when the table is full to half its capacity,
    /// which callers size it never to reach.
    ///
    /// - Complexity: O(1) expected. - Allocations: none.
    @discardableResult
    func set(_ value: UInt64, for key: UInt64) -> Bool {
        precondition(key != 0, "key 0 is reserved")
        var i = home(key)
        while true {
            let k = unsafe slots[i].key
            if k == key {
                unsafe slots[i].value = value
                return true
            }
            if k == 0 {
                guard count < capacity / 2 else { return false }
                unsafe slots[i] = Slot(key: key, value: value)
                count += 1
                return true
            }
            i = (i &+ 1) & mask
        }
    }

    /// Removes `key` if present.
    ///
    /// - Complexity: O(1) expected. - Allocations: none.
    func remove(_ key: UInt64) {
        precondition(key != 0, "key 0 is reserved")
        var i = home(key)
        while unsafe slots[i].key != key {
            if unsafe slots[i].key == 0 { return }
            i = (i &+ 1) & mask
        }
        // Backward shift: move later members of the probe run into the hole when that keeps them
        // reachable from their home slot.
        var hole = i
        var j = (i &+ 1) & mask
        while unsafe slots[j].key != 0 {
            let h = home(unsafe slots[j].key)
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
@inline(__always)
func hashBytes(_ bytes: Span<UInt8>, _ range: Range<Int>) -> UInt64 {
    precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "hash range outside the bytes")
    var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(truncatingIfNeeded: range.count)
    // SAFETY: every load reads `i ..< i + 8` with `i + 8 <= range.upperBound <= bytes.count`; the
    // tail is read byte by byte below `range.upperBound`.
    unsafe bytes.withUnsafeBytes { raw in
        var i = range.lowerBound
        while i &+ 8 <= range.upperBound {
            let w = unsafe raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            h = (h ^ w) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i &+= 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < range.upperBound {
            tail |= UInt64(unsafe raw[i]) << shift
            shift &+= 8
            i &+= 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 29
    }
    return h == 0 ? 1 : h
}
