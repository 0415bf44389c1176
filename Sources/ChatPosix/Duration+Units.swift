#if canImport(Glibc)
    import Glibc
#endif

extension Duration {
    /// Whole milliseconds, rounded toward zero.
    package var inMilliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }

    /// Seconds as a `Double` (for reports).
    package var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Blocks the calling thread for `duration` (not at all when it is not positive); a signal that
/// interrupts the sleep does not cut it short.
///
/// - Allocations: none.
package func sleepThread(for duration: Duration) {
    guard duration > .zero else { return }
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var left = timespec()
    // SAFETY: two local timespec values; on EINTR sleep again for what is left.
    while unsafe nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
}
