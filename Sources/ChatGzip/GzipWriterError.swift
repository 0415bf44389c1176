import ChatPosix

/// Why a ``GzipWriter`` could not open, write, flush or close its file.
///
/// Every case carries the path, and the I/O cases the `errno`, so that its ``description`` stands alone
/// as a message. After a write, sync or close error the writer stays failed: later calls throw the
/// same error, and nothing it wrote before the error is touched (the file is only ever appended to).
public enum GzipWriterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `open(2)` or `fstat(2)` failed.
    case cannotOpen(path: String, errno: Int32)
    /// Another writer holds the file's lock (`flock`); two writers would interleave their members.
    case busy(path: String)
    /// The existing file is not a gzip stream, or is damaged before its end; nothing was appended.
    case damagedFile(path: String, compressedOffset: UInt64, reason: String)
    /// Repairing the unfinished end of the existing file failed (`ftruncate(2)`/`write(2)`).
    case repairFailed(path: String, errno: Int32)
    /// `write(2)` failed, e.g. `ENOSPC` or `EIO`. Bytes flushed before are intact.
    case writeFailed(path: String, errno: Int32)
    /// `fsync(2)` failed.
    case syncFailed(path: String, errno: Int32)
    /// `close(2)` failed.
    case closeFailed(path: String, errno: Int32)
    /// zlib could not be set up (out of memory, bad level).
    case compressorUnavailable(path: String, reason: String)

    /// The file the error is about.
    public var path: String {
        switch self {
        case .cannotOpen(let path, _), .busy(let path), .damagedFile(let path, _, _), .repairFailed(let path, _),
            .writeFailed(let path, _), .syncFailed(let path, _), .closeFailed(let path, _),
            .compressorUnavailable(let path, _):
            path
        }
    }

    /// The `errno` of a failed system call, if the error is one.
    public var errno: Int32? {
        switch self {
        case .cannotOpen(_, let code), .repairFailed(_, let code), .writeFailed(_, let code),
            .syncFailed(_, let code), .closeFailed(_, let code):
            code
        case .busy, .damagedFile, .compressorUnavailable:
            nil
        }
    }

    public var description: String {
        switch self {
        case .cannotOpen(let path, let code):
            "\(path): cannot open for writing: \(Errno.text(code))"
        case .busy(let path):
            "\(path): another writer has the file open"
        case .damagedFile(let path, let offset, let reason):
            "\(path): not appending: existing gzip data is damaged near byte \(offset) (\(reason))"
        case .repairFailed(let path, let code):
            "\(path): cannot finish the unfinished end of the file: \(Errno.text(code))"
        case .writeFailed(let path, let code):
            "\(path): write failed: \(Errno.text(code)); data flushed before is intact"
        case .syncFailed(let path, let code):
            "\(path): fsync failed: \(Errno.text(code))"
        case .closeFailed(let path, let code):
            "\(path): close failed: \(Errno.text(code))"
        case .compressorUnavailable(let path, let reason):
            "\(path): cannot start compression: \(reason)"
        }
    }
}
