import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Replaces one folder (or file) by another in one step, so a reader of the path finds the old or the
/// new one, never none (a rename of the old away and the new in leaves a moment with neither).
public enum PathExchange: Sendable {
    /// Puts `new` at `path`. When `path` existed, its old entry is left at `new` (for the caller to
    /// remove); else nothing is left at `new`.
    ///
    /// Swaps the two names in one step (`renameat2` with `RENAME_EXCHANGE`); where the file system
    /// cannot, it moves the old entry aside first (a reader may then find neither for a moment).
    ///
    /// - Returns: whether `new` is now at `path`.
    /// - Complexity: O(1): a few system calls.
    public static func replace(_ path: String, with new: String) -> Bool {
        // SAFETY (all): the paths are bridged to NUL-terminated C strings for the call.
        if unsafe clinux_rename_exchange(new, path) == 0 { return true }
        if errno == ENOENT { return unsafe rename(new, path) == 0 }
        let aside = new + ".aside"
        guard unsafe rename(path, aside) == 0 else { return false }
        guard unsafe rename(new, path) == 0 else {
            _ = unsafe rename(aside, path)
            return false
        }
        _ = unsafe rename(aside, new)
        return true
    }
}
