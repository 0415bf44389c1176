#if canImport(Glibc)
    import Glibc
#endif

/// A POSIX mutex and the condition variables waited on under it: the lock-and-wait hand-off between
/// two threads (Swift's `Mutex` has no condition variable). Callers keep the guarded state in their
/// own properties and touch it only between ``lock()`` and ``unlock()``.
///
/// - Allocations: the mutex and the conditions, once.
@safe
package final class PosixMonitor: @unchecked Sendable {  // pthread objects, used only through their API
    /// One of the monitor's condition variables, by its index (below the count given to `init`).
    package struct Condition: Sendable {
        let index: Int
        package init(_ index: Int) { self.index = index }
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let conditions: UnsafeMutablePointer<pthread_cond_t>
    private let count: Int

    package init(conditions count: Int) {
        precondition(count > 0, "a monitor waits on at least one condition")
        self.count = count
        unsafe mutex = .allocate(capacity: 1)
        unsafe conditions = .allocate(capacity: count)
        // SAFETY: freshly allocated, initialised once here, destroyed once in deinit.
        unsafe pthread_mutex_init(mutex, nil)
        for i in 0..<count { unsafe pthread_cond_init(conditions + i, nil) }
    }

    deinit {
        // SAFETY: initialised in init; no thread uses them any more (the owner joined its threads).
        for i in 0..<count { unsafe pthread_cond_destroy(conditions + i) }
        unsafe pthread_mutex_destroy(mutex)
        unsafe conditions.deallocate()
        unsafe mutex.deallocate()
    }

    package func lock() { _ = unsafe pthread_mutex_lock(mutex) }
    package func unlock() { _ = unsafe pthread_mutex_unlock(mutex) }

    /// Waits for `condition` (lock held): releases the lock while waiting, holds it again on return.
    /// Wake-ups may be spurious: wait in a loop on the guarded state.
    package func wait(_ condition: Condition) {
        // SAFETY: `mutex` is held by the caller; the index is below `count`.
        _ = unsafe pthread_cond_wait(conditions + checked(condition), mutex)
    }

    /// ``wait(_:)`` for at most `milliseconds`; `false` when the time ran out.
    package func wait(_ condition: Condition, milliseconds: Int) -> Bool {
        var now = timespec()
        // SAFETY: `now` is a local the call fills in.
        unsafe clock_gettime(CLOCK_REALTIME, &now)
        let ns = Int(now.tv_nsec) + milliseconds * 1_000_000
        var deadline = timespec(tv_sec: now.tv_sec + ns / 1_000_000_000, tv_nsec: ns % 1_000_000_000)
        // SAFETY: as in `wait(_:)`. The condition's clock is the default, CLOCK_REALTIME, as the deadline.
        return unsafe pthread_cond_timedwait(conditions + checked(condition), mutex, &deadline) != ETIMEDOUT
    }

    /// Wakes one waiter of `condition`.
    package func signal(_ condition: Condition) {
        // SAFETY: the index is below `count`.
        _ = unsafe pthread_cond_signal(conditions + checked(condition))
    }

    /// Wakes every waiter of `condition`.
    package func broadcast(_ condition: Condition) {
        // SAFETY: the index is below `count`.
        _ = unsafe pthread_cond_broadcast(conditions + checked(condition))
    }

    private func checked(_ condition: Condition) -> Int {
        precondition(condition.index >= 0 && condition.index < count, "no such condition")
        return condition.index
    }
}
