#if canImport(Glibc)
    import Glibc
#endif

/// The file-system checks of a capture directory: creating it (with parents), telling a directory
/// from anything else, probing that files can be created in it, and the size of an existing file.
extension CaptureWriter {
    static func makeDirectory(_ path: String, parents: Bool) throws(CaptureError) {
        if parents, let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let parent = String(path[..<slash])
            if !isDirectory(parent) { try makeDirectory(parent, parents: true) }
        }
        // SAFETY: `path` is bridged to a NUL-terminated C string for the call.
        if unsafe mkdir(path, 0o755) != 0 {
            let code = errno
            guard code == EEXIST, isDirectory(path) else {
                throw .directory(path: path, errno: code == EEXIST ? ENOTDIR : code)
            }
        }
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        // SAFETY: `info` is a local `stat` that `stat(2)` fills in; `path` is bridged for the call.
        return unsafe stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Checks that files can be created in `path` by creating and removing a hidden probe file
    /// (`access(2)` would say yes to root even on a read-only mount).
    static func checkWritable(_ path: String) throws(CaptureError) {
        let probe = path + "/.chatcap-probe-\(getpid())"
        // SAFETY: `probe` is bridged to a NUL-terminated C string for the call.
        let fd = unsafe open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .directory(path: path, errno: errno) }
        Glibc.close(fd)
        // SAFETY: as above.
        _ = unsafe unlink(probe)
    }

    static func fileSize(_ path: String) -> UInt64 {
        var info = stat()
        // SAFETY: `info` is a local `stat` that `stat(2)` fills in; `path` is bridged for the call.
        guard unsafe stat(path, &info) == 0 else { return 0 }
        return UInt64(max(0, info.st_size))
    }
}
