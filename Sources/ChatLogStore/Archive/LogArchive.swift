public import ChatInput

#if canImport(Glibc)
    import Glibc
#endif

/// A capture directory seen as an archive: one folder per channel (`DIR/<login>/`), each holding
/// capture's files named by UTC day (see `CaptureRotation`), and `DIR/_session/` (capture's own
/// records), which is never served.
///
/// It holds only the directory's path: every question lists the folders again, so channels, days and
/// files that a running capture adds are seen by the next request. Paths are only ever made from
/// the root, a name that passed ``LogName/isLogin(_:)``, and a file name read from that folder that
/// passed ``LogName/day(ofFile:)``: no request can name anything else.
///
/// Immutable; any thread may use it.
public struct LogArchive: Sendable {
    /// The capture directory (as given, without a trailing `/`).
    public let root: String

    public init(root: String) {
        var root = root
        while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
        self.root = root
    }

    /// One capture file of a channel and the day it holds.
    public struct File: Sendable, Equatable {
        public var day: LogDay
        public var path: String
    }

    /// The channels: folders of the root named as logins, in byte order.
    ///
    /// - Throws: ``InputError`` when the root cannot be read.
    /// - Complexity: O(entries of the root) and one `stat` each. - Allocations: the names.
    public func channels() throws(InputError) -> [String] {
        try InputPaths.entries(of: root).filter { LogName.isLogin($0) && Self.isDirectory(root + "/" + $0) }
    }

    /// Whether `channel` (a login) has a folder.
    public func hasChannel(_ channel: String) -> Bool {
        LogName.isLogin(channel) && Self.isDirectory(root + "/" + channel)
    }

    /// The capture files of `channel`, by day, then in byte order of their names (the merge orders
    /// their lines by time). Empty for a channel without a folder.
    ///
    /// - Precondition: `channel` is a login (``LogName/isLogin(_:)``).
    /// - Complexity: O(entries of the folder). - Allocations: the list.
    public func files(of channel: String) -> [File] {
        precondition(LogName.isLogin(channel), "a channel is a login")
        let folder = root + "/" + channel
        guard let names = try? InputPaths.entries(of: folder) else { return [] }
        var files: [File] = []
        for name in names {
            guard let day = LogName.day(ofFile: name) else { continue }
            files.append(File(day: day, path: folder + "/" + name))
        }
        // Stable: within a day the byte order of the names stays.
        return files.enumerated().sorted { ($0.element.day, $0.offset) < ($1.element.day, $1.offset) }.map(\.element)
    }

    /// The days of `channel` that have files, newest first (as rustlog's `/list` answers).
    public func days(of channel: String) -> [LogDay] {
        var seen = Set<LogDay>()
        return files(of: channel).map(\.day).filter { seen.insert($0).inserted }.reversed()
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        // SAFETY: `path` is bridged to a NUL-terminated C string for the call; `info` is a local `stat`.
        return unsafe stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
