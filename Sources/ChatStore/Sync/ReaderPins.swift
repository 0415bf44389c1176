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
/// A noncopyable value held inline by its ring, not an object of its own: with thousands of
/// channels, an object per ring cost a heap block each.
@safe
struct ReaderPins: ~Copyable, @unchecked Sendable {  // each slot is an Atomic; `count` is immutable
    static let none = UInt64.max
    let count: Int
    private let slots: UnsafeMutablePointer<Atomic<UInt64>>

    init(count: Int) {
        self.count = count
        unsafe slots = .allocate(capacity: count)
        for i in 0..<count { unsafe (slots + i).initialize(to: Atomic(Self.none)) }
    }

    deinit {
        unsafe slots.deinitialize(count: count)
        unsafe slots.deallocate()
    }

    /// Reader side: pins `seq` in `slot`.
    @inline(__always)
    func pin(_ slot: Int, _ seq: UInt64) {
        precondition(slot >= 0 && slot < count, "reader slot out of range")
        unsafe slots[slot].store(seq, ordering: .sequentiallyConsistent)
    }

    /// Reader side: releases `slot`.
    @inline(__always)
    func unpin(_ slot: Int) {
        precondition(slot >= 0 && slot < count, "reader slot out of range")
        unsafe slots[slot].store(Self.none, ordering: .releasing)
    }

    /// Owner side: waits until no slot pins a sequence number `<= seq`.
    ///
    /// - Complexity: O(`count`) when no reader holds such a pin (the normal case).
    /// - Allocations: none.
    @inline(__always)
    func waitUntilReleased(atOrBelow seq: UInt64) {
        for i in 0..<count {
            // SAFETY: `i < count`, the number of initialised slots.
            while unsafe slots[i].load(ordering: .sequentiallyConsistent) <= seq {
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
            // SAFETY: `i < count`, the number of initialised slots.
            low = min(low, unsafe slots[i].load(ordering: .sequentiallyConsistent))
        }
        return low
    }

    /// Owner side: waits until every slot has been seen free at least once (for retiring storage
    /// that pinned readers may still be reading).
    func waitUntilAllObservedFree() {
        for i in 0..<count {
            while unsafe slots[i].load(ordering: .sequentiallyConsistent) != Self.none {
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
