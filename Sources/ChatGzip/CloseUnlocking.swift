#if canImport(Glibc)
    import Glibc
#endif

/// Releases the `flock` on `descriptor`, then closes it; the result of `close(2)` (`errno` is set on -1).
///
/// A `flock` belongs to the open file description, not to the descriptor: a child forked by another
/// thread shares that description until it execs, and `close` alone would leave the lock held for
/// that window, so a writer reopening the file at once would find it "busy". Unlocking first releases
/// it for every descriptor sharing it. Harmless on a descriptor that holds no lock. O(1), no allocation.
@discardableResult
package func closeUnlocking(_ descriptor: Int32) -> Int32 {
    _ = flock(descriptor, LOCK_UN)
    return Glibc.close(descriptor)
}
