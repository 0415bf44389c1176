#if canImport(Glibc)
    import Glibc
#endif

/// Writes `count` bytes from `base` to a blocking descriptor, retrying short writes and `EINTR`.
///
/// - Returns: the bytes written, and the `errno` that stopped it early, if any.
/// - Complexity: O(`count`). - Allocations: none.
@unsafe
package func writeFully(_ descriptor: Int32, _ base: UnsafeRawPointer, count: Int) -> (written: Int, errno: Int32?) {
    var done = 0
    while done < count {
        // SAFETY: `done < count`; the caller guarantees `count` readable bytes at `base`.
        let n = unsafe Glibc.write(descriptor, base + done, count - done)
        if n < 0 {
            if errno == EINTR { continue }
            return (done, errno)
        }
        done += n
    }
    return (done, nil)
}
