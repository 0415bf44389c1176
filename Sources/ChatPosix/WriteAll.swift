#if canImport(Glibc)
    import Glibc
#endif

/// Writes all of `bytes` to `descriptor` with ``writeFully(_:_:count:)``; while a non-blocking
/// descriptor (a terminal or pipe a parent made non-blocking) is full, waits in `poll` for room.
///
/// - Returns: `nil` when everything was written, else the `errno` that stopped it.
/// - Complexity: O(`bytes.count`). - Allocations: none.
package func writeAllWaiting(_ descriptor: Int32, _ bytes: Span<UInt8>) -> Int32? {
    var offset = 0
    while offset < bytes.count {
        // SAFETY: `offset < bytes.count`, so `base + offset` and the `count - offset` bytes after it lie
        // inside the span, which stays valid for the call.
        let (written, code) = unsafe bytes.withUnsafeBytes { raw in
            unsafe writeFully(descriptor, raw.baseAddress! + offset, count: raw.count - offset)
        }
        offset += written
        guard let code else { continue }
        guard code == EAGAIN else { return code }
        var fds = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        // SAFETY: one local `pollfd`.
        _ = unsafe poll(&fds, 1, 1000)
    }
    return nil
}
