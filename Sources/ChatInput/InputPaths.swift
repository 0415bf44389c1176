import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// Turns the command line's `FILE|DIR|-` arguments into the ordered list of inputs to read.
///
/// - A file is taken as given, whatever its name (its format is told by its first bytes later).
/// - `-` is standard input (at most once).
/// - A directory is searched recursively for what capture writes — `YYYY-MM-DD.log`,
///   `YYYY-MM-DDTHH.log`, `YYYY-MM-DD.N.log`, `YYYY-MM-DD.NNNN.log`, each also `.gz` — and for
///   chatcap's own `*.irc` / `*.irc.gz` logs. Any other file in it is skipped and listed in
///   ``Expansion/skipped`` (a system directory's `*.log` files are not chat). Hidden entries (names
///   starting with `.`) and `load`'s bookkeeping (a `_load` directory: progress and lock files) are
///   skipped without a word, entries are visited in byte order of their names, and a directory reached
///   twice through symbolic links is searched once.
/// - A file reached twice (the same file named twice, or through a directory and one inside it, or
///   a link) is read once; the later names are listed in ``Expansion/repeated``, and so is a
///   directory argument already searched (`DIR DIR`, `DIR DIR/chan`).
///
/// Argument order is kept: the files of each argument come together, in the order given.
public enum InputPaths: Sendable {
    /// What ``expansion(of:)`` found.
    public struct Expansion: Sendable, Equatable {
        /// The inputs to read, in order, each file once.
        public var paths: [String] = []
        /// Files inside the directories searched that are not chat logs (see the type's rule).
        public var skipped: [String] = []
        /// Names of files already among `paths`, and directory arguments already searched (read once).
        public var repeated: [String] = []

        /// What to say once about `skipped` and `repeated` (nothing when both are empty), lists cut
        /// after five names.
        public var notes: [String] {
            func list(_ paths: [String]) -> String {
                paths.prefix(5).joined(separator: ", ") + (paths.count > 5 ? ", … (\(paths.count - 5) more)" : "")
            }
            var out: [String] = []
            if !skipped.isEmpty {
                out.append(
                    "skipped \(skipped.count) files in the directories given that are not chat logs "
                        + "(read: capture's YYYY-MM-DD….log[.gz] and *.irc[.gz]; name a file to read it): \(list(skipped))"
                )
            }
            if !repeated.isEmpty { out.append("read once, named again: \(list(repeated))") }
            return out
        }
    }

    /// The inputs named by `arguments`, in order (``expansion(of:)``'s paths).
    public static func expand(_ arguments: [String]) throws(InputError) -> [String] {
        try expansion(of: arguments).paths
    }

    /// The inputs named by `arguments`, in order, with what was skipped or repeated.
    ///
    /// - Throws: ``InputError/notFound(path:)`` for a missing path, ``InputError/permissionDenied(path:)``
    ///   for a file or directory that cannot be read, ``InputError/noLogs(directory:)`` for a directory
    ///   without logs, ``InputError/standardInputRepeated`` for a second `-`,
    ///   ``InputError/cannotOpen(path:errno:)`` for other failures.
    /// - Complexity: O(entries in the directories searched). - Allocations: the list and its strings.
    public static func expansion(of arguments: [String]) throws(InputError) -> Expansion {
        var search = Search()
        var sawStandardInput = false
        for argument in arguments {
            if argument == "-" {
                guard !sawStandardInput else { throw InputError.standardInputRepeated }
                sawStandardInput = true
                search.found.paths.append(argument)
                continue
            }
            let info = try status(of: argument)
            if info.st_mode & S_IFMT == S_IFDIR {
                let before = search.logsSeen
                try search.directory(argument, isArgument: true)
                if search.logsSeen == before { throw InputError.noLogs(directory: argument) }
            } else {
                // SAFETY: `argument` is bridged to a NUL-terminated C string for the call.
                guard unsafe access(argument, R_OK) == 0 else { throw InputError.opening(argument, errno: errno) }
                search.file(argument, info)
            }
        }
        return search.found
    }

    /// The directory where `load` keeps its progress and lock files inside a capture directory:
    /// skipped by a directory search without a word (it holds no chat).
    public static let loadBookkeeping = "_load"

    /// Whether a directory search picks up a file named `name`: what capture writes
    /// (`YYYY-MM-DD` + optional `THH` + optional `.N` + `.log` or `.log.gz`) or `*.irc` / `*.irc.gz`.
    public static func isLogName(_ name: String) -> Bool {
        guard !name.hasPrefix(".") else { return false }
        for suffix in [".irc", ".irc.gz"] where name.hasSuffix(suffix) && name.utf8.count > suffix.utf8.count {
            return true
        }
        var rest = Substring(name)
        if rest.hasSuffix(".log.gz") {
            rest = rest.dropLast(3)
        }
        guard rest.hasSuffix(".log") else { return false }
        rest = rest.dropLast(4)
        let bytes = Array(rest.utf8)
        guard bytes.count >= 10 else { return false }
        func digits(_ r: Range<Int>) -> Bool { r.allSatisfy { bytes[$0] >= 0x30 && bytes[$0] <= 0x39 } }
        guard digits(0..<4), bytes[4] == 0x2D, digits(5..<7), bytes[7] == 0x2D, digits(8..<10) else { return false }
        var i = 10
        if i < bytes.count && bytes[i] == UInt8(ascii: "T") {
            guard i + 3 <= bytes.count, digits(i + 1..<i + 3) else { return false }
            i += 3
        }
        if i < bytes.count {
            guard bytes[i] == UInt8(ascii: "."), i + 1 < bytes.count, digits(i + 1..<bytes.count) else { return false }
        }
        return true
    }

    /// One expansion's state: what was found, and which files and directories were seen.
    private struct Search {
        var found = Expansion()
        var visited: Set<DirectoryIdentity> = []
        var files: Set<DirectoryIdentity> = []
        /// Log files met (new or repeated): a directory that adds none has no logs.
        var logsSeen = 0

        mutating func file(_ path: String, _ info: stat) {
            logsSeen += 1
            if files.insert(DirectoryIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted {
                found.paths.append(path)
            } else {
                found.repeated.append(path)
            }
        }

        /// Searches `directory`; `isArgument` when the command line names it (then a second search
        /// of it is said, as for a file named twice).
        mutating func directory(_ directory: String, isArgument: Bool = false) throws(InputError) {
            let info = try status(of: directory)
            guard visited.insert(DirectoryIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted
            else {
                logsSeen += 1  // searched already: its logs are among the inputs
                if isArgument { found.repeated.append(directory) }
                return
            }
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
                case S_IFDIR where name == InputPaths.loadBookkeeping:
                    continue
                case S_IFDIR:
                    try self.directory(path)
                case S_IFREG where isLogName(name):
                    // SAFETY: `path` is bridged to a NUL-terminated C string for the call.
                    guard unsafe access(path, R_OK) == 0 else { throw InputError.opening(path, errno: errno) }
                    file(path, entry)
                case S_IFREG:
                    found.skipped.append(path)
                default:
                    continue
                }
            }
        }
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

    /// The names in `directory` (without `.` and `..`), in byte order.
    package static func entries(of directory: String) throws(InputError) -> [String] {
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
