#if canImport(Glibc)
    import Glibc
#endif

extension InputPaths {
    /// How many first bytes of a file ``binaryOffset(of:)`` looks at.
    public static let sniffedBytes = 4_096

    /// Where the first NUL byte is in the first ``sniffedBytes`` of the regular file at `path`, when
    /// the file is binary (a program, an image): not gzip, and at least a quarter of those bytes are
    /// control bytes no text holds (below tab, or between CR and space but ESC). A chat log with a few
    /// malformed lines (a NUL, a stray control byte) is text: its lines are read and reported one by
    /// one. `nil` for text, gzip, anything that is not a regular file, or a file that cannot be read
    /// (the reader says why then).
    ///
    /// - Complexity: one read of at most ``sniffedBytes``. - Allocations: the buffer.
    public static func binaryOffset(of path: String) -> Int? {
        var info = stat()
        // SAFETY: `info` is a local `stat` that `stat(2)` fills in; `path` is bridged for the call.
        guard unsafe stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        // SAFETY: `path` is bridged to a NUL-terminated string for the call.
        let fd = unsafe open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: sniffedBytes)
        var count = 0
        while count < bytes.count {
            // SAFETY: the read fills at most the `bytes.count - count` bytes left in `bytes`.
            let n = unsafe bytes.withUnsafeMutableBytes { unsafe read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            count += n
        }
        if count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B { return nil }
        let sniffed = bytes[0..<count]
        let control = sniffed.count { $0 < 0x09 || ($0 > 0x0D && $0 < 0x20 && $0 != 0x1B) }
        guard control * 4 >= count, count > 0 else { return nil }
        return sniffed.firstIndex(of: 0)
    }
}
