import Synchronization

/// Hazard slots through which reader threads tell a ring's owner which entries they are borrowing.
///
/// A reader pins the lowest sequence number it will touch, checks that it is still live, reads,
/// and unpins. Before the owner overwrites an evicted entry it announces the new lowest live
/// sequence and waits until no pin is at or below the evicted one. Both sides use sequentially
/// consistent operations (a Dekker handshake), so either the reader sees the eviction and backs off,
/// or the owner sees the pin and waits — a borrowed entry is never overwritten, without a lock.
///
/// ```
///  reader:  pin = s ── load lowestLive ── (s live?) read … ── pin = none
///  owner:   lowestLive = e + 1 ── wait while any pin <= e ── overwrite e's slot
/// ```
/// Borrowing closures must be short: a pinned reader holds back eviction of that entry.
///
/// A noncopyable value held inline by its ring, slots included: with thousands of channels, an
/// object per ring cost a heap block each, and so did the slots in a block of their own (80 bytes of
/// heap a channel for 64 of pins), and so did a stored count of slots that is always
/// ``ReaderRegistry/maximumReaders``: with both, the ring object is one 256-byte block where it was
/// a 224-byte one and an 80-byte one (10,000 channels: peak RSS 1.2 MB lower in channels_bench).
@safe
struct ReaderPins: ~Copyable, @unchecked Sendable {  // each slot is an Atomic
    static let none = UInt64.max
    /// The slots every ring holds: one per reader slot of a ``ReaderRegistry``.
    static let capacity = 8
    /// Slots (``capacity``).
    var count: Int { Self.capacity }
    private let slots: InlineArray<8, Atomic<UInt64>>

    init() {
        slots = InlineArray { _ in Atomic(Self.none) }
    }

    /// Reader side: pins `seq` in `slot`.
    @inline(__always)
    func pin(_ slot: Int, _ seq: UInt64) {
        precondition(slot >= 0 && slot < count, "reader slot out of range")
        slots[slot].store(seq, ordering: .sequentiallyConsistent)
    }

    /// Reader side: releases `slot`.
    @inline(__always)
    func unpin(_ slot: Int) {
        precondition(slot >= 0 && slot < count, "reader slot out of range")
        slots[slot].store(Self.none, ordering: .releasing)
    }

    /// Owner side: waits until no slot pins a sequence number `<= seq`.
    ///
    /// - Complexity: O(`count`) when no reader holds such a pin (the normal case).
    /// - Allocations: none.
    @inline(__always)
    func waitUntilReleased(atOrBelow seq: UInt64) {
        for i in 0..<count {
            while slots[i].load(ordering: .sequentiallyConsistent) <= seq {
                spinPause()
            }
        }
    }

    /// Owner side: the lowest sequence number pinned now (``none`` when no slot is pinned).
    ///
    /// - Complexity: O(`count`). - Allocations: none.
    var lowest: UInt64 {
        var low = Self.none
        for i in 0..<count {
            low = min(low, slots[i].load(ordering: .sequentiallyConsistent))
        }
        return low
    }

    /// Owner side: waits until every slot has been seen free at least once (for retiring storage
    /// that pinned readers may still be reading).
    func waitUntilAllObservedFree() {
        for i in 0..<count {
            while slots[i].load(ordering: .sequentiallyConsistent) != Self.none {
                spinPause()
            }
        }
    }
}

/// A short pause inside a spin loop.
@inline(__always)
func spinPause() {
    // A pinned reader finishes within microseconds; yielding keeps a two-core machine responsive.
    for _ in 0..<64 { _ = Atomic<Int>(0).load(ordering: .relaxed) }
}
