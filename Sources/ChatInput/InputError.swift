import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Why an input could not be found, opened or read to its end.
///
/// Every case names the path (or input name) so that its ``description`` stands alone as a message
/// for the user. ``truncated(_:compressedOffset:)`` and ``corrupt(_:compressedOffset:reason:)`` are
/// not fatal: the source delivered everything it could decode before the damage, and the caller
/// prints and counts them (see ``isDamage``).
public enum InputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing exists at the path (`ENOENT`, or a dangling symbolic link).
    case notFound(path: String)
    /// The path exists but may not be read (`EACCES`/`EPERM`).
    case permissionDenied(path: String)
    /// A directory argument holds no `*.irc`, `*.log`, `*.txt` or `*.gz` file.
    case noLogs(directory: String)
    /// A directory where a file was needed (e.g. opening a directory as a source).
    case isDirectory(path: String)
    /// `-` (standard input) was given more than once.
    case standardInputRepeated
    /// `open(2)` or `stat(2)` failed for another reason.
    case cannotOpen(path: String, errno: Int32)
    /// `read(2)` failed.
    case readFailed(name: String, errno: Int32)
    /// A file whose descriptor was released to stay under the open-file bound names another file when
    /// opened again (it was replaced or renamed over while being read); lines before were delivered.
    case replaced(name: String)
    /// A compressed input ended inside a gzip member; everything before was delivered.
    case truncated(name: String, compressedOffset: UInt64)
    /// A compressed input is damaged at about `compressedOffset`; everything before was delivered.
    case corrupt(name: String, compressedOffset: UInt64, reason: String)
    /// zlib could not be set up (out of memory).
    case decompressorUnavailable(name: String, reason: String)

    /// Whether the input was read up to damage in its content (a truncated or corrupt compressed
    /// stream), as opposed to not being readable at all. Damage is reported and counted, not fatal.
    public var isDamage: Bool {
        switch self {
        case .truncated, .corrupt: true
        default: false
        }
    }

    /// Whether the input could not be opened because the process or the system ran out of file
    /// descriptors (`EMFILE`, `ENFILE`): not a fault of the input, and fatal to a merge (exit 66),
    /// since the inputs after it could not be opened either.
    public var isDescriptorExhaustion: Bool {
        guard case .cannotOpen(_, let code) = self else { return false }
        return code == EMFILE || code == ENFILE
    }

    /// The error for a failed `open(2)`/`stat(2)` of `path` with `code`.
    package static func opening(_ path: String, errno code: Int32) -> InputError {
        switch code {
        case ENOENT: .notFound(path: path)
        case EACCES, EPERM: .permissionDenied(path: path)
        case EISDIR: .isDirectory(path: path)
        default: .cannotOpen(path: path, errno: code)
        }
    }

    public var description: String {
        switch self {
        case .notFound(let path):
            "\(path): no such file or directory"
        case .permissionDenied(let path):
            "\(path): permission denied"
        case .noLogs(let directory):
            "\(directory): directory holds no chat logs (a directory gives capture's YYYY-MM-DD….log[.gz] and "
                + "*.irc[.gz]; name a file to read it whatever its name)"
        case .isDirectory(let path):
            "\(path): is a directory"
        case .standardInputRepeated:
            "'-' (standard input) given more than once"
        case .cannotOpen(let path, let code) where code == EMFILE || code == ENFILE:
            "\(path): cannot open: \(Errno.text(code)) (out of file descriptors; see ulimit -n)"
        case .cannotOpen(let path, let code):
            "\(path): cannot open: \(Errno.text(code))"
        case .readFailed(let name, let code):
            "\(name): read error: \(Errno.text(code))"
        case .replaced(let name):
            "\(name): replaced by another file while it was read; lines before were read"
        case .truncated(let name, let offset):
            "\(name): compressed data ends early at byte \(offset) (truncated file); lines before it were read"
        case .corrupt(let name, let offset, let reason):
            "\(name): compressed data is corrupt near byte \(offset) (\(reason)); lines before it were read"
        case .decompressorUnavailable(let name, let reason):
            "\(name): cannot start decompression: \(reason)"
        }
    }
}
