#if canImport(Glibc)
    import Glibc
#endif

/// The words for an `errno` value, for messages: the one place the package calls `strerror`.
public enum Errno: Sendable {
    /// `strerror(code)`, e.g. "Input/output error".
    ///
    /// - Complexity: O(length of the message). - Allocations: the returned string.
    package static func text(_ code: Int32) -> String {
        // SAFETY: glibc's `strerror` returns a NUL-terminated string that stays valid at least until
        // the next call on this thread; it is copied at once.
        guard let message = unsafe strerror(code) else { return "errno \(code)" }
        return unsafe String(cString: message)
    }
}
