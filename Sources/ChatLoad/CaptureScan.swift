public import ChatInput
import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// The capture files of a directory `load` ships: `DIR/<channel>/*.log.gz`, and when asked
/// `DIR/_session/*.log.gz` (lines without a channel and capture's own records, whose records `load`
/// ships to a table of their own). `_load` and any other folder starting with `_` or `.` are not
/// chat and are left out; so is anything else in a channel folder that is not a `.log.gz` file (counted).
public enum CaptureScan: Sendable {
    /// One capture file.
    public struct File: Sendable, Equatable {
        /// `<channel>/<name>`, relative to the directory.
        public var relativePath: String
        public var channel: String
        /// Whether it is a session file (`_session/`, ``sessionFolder``).
        public var isSession: Bool { channel == CaptureScan.sessionFolder }
        /// Its size when listed.
        public var size: UInt64
    }

    /// The folder of capture's session files.
    public static let sessionFolder = "_session"

    /// What a scan found.
    public struct Listing: Sendable {
        public var files: [File]
        /// Entries in channel folders that are not `.log.gz` files.
        public var ignored: Int
    }

    /// Lists `directory`'s capture files, sorted by path; with `sessions`, the session files too.
    ///
    /// - Throws: ``InputError`` when `directory` cannot be read; a channel folder that vanishes
    ///   meanwhile is skipped.
    /// - Complexity: one `readdir` per folder and one `stat` per file.
    public static func list(_ directory: String, sessions: Bool = false) throws(InputError) -> Listing {
        var listing = Listing(files: [], ignored: 0)
        guard let top = entries(directory) else { throw InputError.opening(directory, errno: errno) }
        for (name, type) in top
        where (sessions && name == sessionFolder) || (!name.hasPrefix("_") && !name.hasPrefix(".")) {
            let folder = directory + "/" + name
            guard type == DT_DIR || (type == DT_UNKNOWN && isDirectory(folder)) else { continue }
            guard let inner = entries(folder) else { continue }
            for (fileName, _) in inner where !fileName.hasPrefix(".") {
                var info = stat()
                guard fileName.hasSuffix(".log.gz"), unsafe stat(folder + "/" + fileName, &info) == 0,
                    info.st_mode & S_IFMT == S_IFREG
                else {
                    if name != sessionFolder { listing.ignored += 1 }  // capture keeps its own files there
                    continue
                }
                listing.files.append(
                    File(relativePath: name + "/" + fileName, channel: name, size: UInt64(info.st_size)))
            }
        }
        listing.files.sort { $0.relativePath < $1.relativePath }
        return listing
    }

    /// Whether `directory` is a capture directory (what `chatcap capture --dir` writes): it holds
    /// `_session/` or `_load/` (loaded before), or at least one `<channel>/*.log.gz`. `load` refuses
    /// any other directory rather than leave its bookkeeping there.
    ///
    /// - Throws: ``InputError`` when `directory` cannot be read.
    /// - Complexity: that of ``list(_:)`` at most.
    public static func isCapture(_ directory: String) throws(InputError) -> Bool {
        if isDirectory(directory + "/" + sessionFolder) || isDirectory(directory + "/_load") { return true }
        return try !list(directory).files.isEmpty
    }

    /// The names and `d_type`s of a folder's entries (without `.` and `..`), or `nil` when it cannot be read.
    private static func entries(_ path: String) -> [(String, Int32)]? {
        guard let dir = unsafe opendir(path) else { return nil }
        defer { unsafe closedir(dir) }
        var result: [(String, Int32)] = []
        // SAFETY: `readdir` returns an entry valid until the next call on `dir`; its name is copied at once.
        while let entry = unsafe readdir(dir) {
            let name = unsafe withUnsafeBytes(of: entry.pointee.d_name) { raw in
                unsafe String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name == "." || name == ".." { continue }
            result.append((name, unsafe Int32(entry.pointee.d_type)))
        }
        return result
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return unsafe stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
