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
        // The readers' own opening and gzip test (``FileSource/detectFormat(shortInputFormat:)``).
        guard let source = try? FileSource(path: path), (try? source.detectFormat()) == .plain else { return nil }
        var bytes = [UInt8](repeating: 0, count: sniffedBytes)
        var count = 0
        while count < bytes.count {
            // SAFETY: the rebased slice is the part of `bytes` not read yet, non-empty.
            let n = unsafe bytes.withUnsafeMutableBytes { raw in
                unsafe (try? source.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[count...]))) ?? 0
            }
            guard n > 0 else { break }
            count += n
        }
        let sniffed = bytes[0..<count]
        let control = sniffed.count { $0 < 0x09 || ($0 > 0x0D && $0 < 0x20 && $0 != 0x1B) }
        guard count > 0, control * 4 >= count else { return nil }
        return sniffed.firstIndex(of: 0)
    }
}
