public import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Turns the command line's `FILE|DIR|-` arguments into the ordered list of inputs to read.
///
/// - A file is taken as given, whatever its name (its format is told by its first bytes later).
/// - `-` is standard input (at most once).
/// - A directory is searched recursively for `*.irc`, `*.log`, `*.txt` and `*.gz` files; hidden
///   entries (names starting with `.`) are skipped, entries are visited in byte order of their names,
///   and a directory reached twice through symbolic links is searched once.
///
/// Argument order is kept: the files of each argument come together, in the order given.
public enum InputPaths: Sendable {
    /// The name endings a directory search picks up.
    public static let logSuffixes = [".irc", ".log", ".txt", ".gz"]

    /// The inputs named by `arguments`, in order.
    ///
    /// - Throws: ``InputError/notFound(path:)`` for a missing path, ``InputError/permissionDenied(path:)``
    ///   for a file or directory that cannot be read, ``InputError/noLogs(directory:)`` for a directory
    ///   without logs, ``InputError/standardInputRepeated`` for a second `-`,
    ///   ``InputError/cannotOpen(path:errno:)`` for other failures.
    /// - Complexity: O(entries in the directories searched). - Allocations: the list and its strings.
    public static func expand(_ arguments: [String]) throws(InputError) -> [String] {
        var result: [String] = []
        var sawStandardInput = false
        var visited: Set<DirectoryIdentity> = []
        for argument in arguments {
            if argument == "-" {
                guard !sawStandardInput else { throw InputError.standardInputRepeated }
                sawStandardInput = true
                result.append(argument)
                continue
            }
            let info = try status(of: argument)
            if info.st_mode & S_IFMT == S_IFDIR {
                let before = result.count
                try search(directory: argument, into: &result, visited: &visited)
                if result.count == before { throw InputError.noLogs(directory: argument) }
            } else {
                // SAFETY: `argument` is bridged to a NUL-terminated C string for the call.
                guard unsafe access(argument, R_OK) == 0 else { throw InputError.opening(argument, errno: errno) }
                result.append(argument)
            }
        }
        return result
    }

    /// Whether a directory search picks up a file named `name`.
    public static func isLogName(_ name: String) -> Bool {
        !name.hasPrefix(".") && logSuffixes.contains { name.hasSuffix($0) && name.utf8.count > $0.utf8.count }
    }

    private struct DirectoryIdentity: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// `stat(2)` of `path` (following links), or the error that names why it failed.
    private static func status(of path: String) throws(InputError) -> stat {
        var info = stat()
        // SAFETY: `path` is bridged to a NUL-terminated C string for the call; `info` is a local `stat`.
        guard unsafe stat(path, &info) == 0 else { throw InputError.opening(path, errno: errno) }
        return info
    }

    private static func search(
        directory: String, into result: inout [String], visited: inout Set<DirectoryIdentity>
    ) throws(InputError) {
        let info = try status(of: directory)
        guard visited.insert(DirectoryIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted
        else { return }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        for name in try entries(of: directory) where !name.hasPrefix(".") {
            let path = prefix + name
            var entry = stat()
            // SAFETY: as in `status(of:)`.
            guard unsafe stat(path, &entry) == 0 else {
                if errno == ENOENT { continue }  // a dangling link, or removed while we looked
                throw InputError.opening(path, errno: errno)
            }
            switch entry.st_mode & S_IFMT {
            case S_IFDIR:
                try search(directory: path, into: &result, visited: &visited)
            case S_IFREG where isLogName(name):
                // SAFETY: `path` is bridged to a NUL-terminated C string for the call.
                guard unsafe access(path, R_OK) == 0 else { throw InputError.opening(path, errno: errno) }
                result.append(path)
            default:
                continue
            }
        }
    }

    /// The names in `directory` (without `.` and `..`), in byte order.
    private static func entries(of directory: String) throws(InputError) -> [String] {
        // SAFETY: `directory` is bridged to a NUL-terminated C string for the call.
        guard let handle = unsafe opendir(directory) else { throw InputError.opening(directory, errno: errno) }
        defer { unsafe closedir(handle) }
        var names: [String] = []
        // SAFETY: `readdir` returns NULL or an entry valid until the next call on `handle`; its name is
        // NUL-terminated inside `d_name` and copied at once.
        while let entry = unsafe readdir(handle) {
            let name = unsafe withUnsafeBytes(of: entry.pointee.d_name) { raw in
                unsafe String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
