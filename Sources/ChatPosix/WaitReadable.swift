#if canImport(Glibc)
    import Glibc
#endif

/// Waits in `poll` until `descriptor` has something to read (bytes, its end, or an error), at most
/// `timeoutMs` milliseconds (interrupted waits count as over).
///
/// - Returns: whether it became readable in time.
/// - Complexity: one system call. - Allocations: none.
package func waitReadable(_ descriptor: Int32, timeoutMs: Int64) -> Bool {
    var fds = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    // SAFETY: one local `pollfd`.
    return unsafe poll(&fds, 1, Int32(clamping: max(0, timeoutMs))) > 0
}
