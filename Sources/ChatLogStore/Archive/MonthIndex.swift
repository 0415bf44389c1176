import ChatGzip
import ChatInput
import ChatPosix
import IRCWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A channel's month partitioned by user id, so a user's month reads one part of it instead of every
/// line: `DIR/.chatcap-index/<channel>/<YYYY-MM>/NN.log.gz` (``shardCount`` parts, a line in part
/// `FNV-1a(user-id) % shardCount`) and `manifest`, the files it was made from with their sizes.
///
/// Derived and rebuildable: deleting the folder loses nothing. It covers only days before today (a
/// day still being written changes), and is used only while the manifest names exactly the month's
/// covered files at exactly their sizes: a file that grew, appeared or went makes it stale, and the
/// next request builds it again. It is built in a folder of its own and swapped into place with its
/// manifest inside (``PathExchange``), so a crash leaves either the old index, the new one, or none —
/// never a partial one that looks whole — and a reader finds the old or the new one, never none. In a
/// process one thread at a time builds a month (``ensureCurrent(for:)``). The folder is hidden (`.`): replay, stats and load pass it by, and it is no
/// channel of the API.
///
/// Lines are kept as stored (with capture's `time` tag), in the order the merge read them: a part is
/// in time order, as the month's files are.
struct MonthIndex {
    static let shardCount = 64
    static let folderName = ".chatcap-index"

    /// `DIR/.chatcap-index/<channel>/<YYYY-MM>`.
    let path: String

    init(archive: LogArchive, channel: String, month: LogMonth) {
        let name = String(month.year) + "-" + (month.month < 10 ? "0" : "") + String(month.month)
        path = archive.root + "/" + Self.folderName + "/" + channel + "/" + name
    }

    /// The part holding the lines of user `id`.
    func shardPath(for id: [UInt8]) -> String {
        var hash = FNV1a64()
        for b in id { hash.add(b) }
        let shard = Int(hash.value % UInt64(Self.shardCount))
        return path + "/" + (shard < 10 ? "0" : "") + String(shard) + ".log.gz"
    }

    /// The manifest of `files`: `name size` a line; `nil` when a file cannot be looked at.
    static func manifest(_ files: [LogArchive.File]) -> String? {
        var text = ""
        for file in files {
            var info = stat()
            // SAFETY: `file.path` is bridged to a NUL-terminated C string; `info` is a local `stat`.
            guard unsafe stat(file.path, &info) == 0 else { return nil }
            text += String(file.path.split(separator: "/").last ?? "") + " " + String(info.st_size) + "\n"
        }
        return text
    }

    /// Whether the index on disk was made from exactly `files` as they are now.
    func isCurrent(for files: [LogArchive.File]) -> Bool {
        guard let expected = Self.manifest(files), let found = try? Self.readText(path + "/manifest") else {
            return false
        }
        return found == expected
    }

    /// Makes the index of `files` (the month's files of days before today, in time order), replacing any.
    ///
    /// - Returns: whether it is in place (false when the folder cannot be written, e.g. a read-only
    ///   archive, a file changed while it was read, or `going()` said stop: asked every 4,096 lines; the
    ///   caller reads the files themselves).
    /// - Complexity: O(bytes of `files`). - Allocations: a compressor per part (about 25 MB together).
    func build(from files: [LogArchive.File], while going: () -> Bool = { true }) -> Bool {
        guard let before = Self.manifest(files) else { return false }
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        guard Self.makeFolders(parent) else { return false }
        let month = String(path.split(separator: "/").last ?? "")
        let building = parent + "/.building-" + month + "-" + String(getpid())
        Self.removeFolder(building)
        // SAFETY: the path is bridged to a NUL-terminated C string for the call.
        guard unsafe mkdir(building, 0o755) == 0 else { return false }
        var writers: [GzipWriter] = []
        for shard in 0..<Self.shardCount {
            let name = building + "/" + (shard < 10 ? "0" : "") + String(shard) + ".log.gz"
            guard let writer = try? GzipWriter(path: name, outputCapacity: 32 * 1024) else {
                Self.removeFolder(building)
                return false
            }
            writers.append(writer)
        }
        var failed = false
        var reader = ArchiveReader()
        var lines = 0
        reader.read(files.map(\.path)) { line, bytes in
            lines &+= 1
            if lines & 0xFFF == 0 && !going() {
                failed = true
                return false
            }
            guard let id = line.userId, !id.raw.isEmpty else { return true }
            var hash = FNV1a64()
            hash.add(bytes, id.raw.range)
            let writer = writers[Int(hash.value % UInt64(Self.shardCount))]
            do throws(GzipWriterError) {
                try writer.write(bytes)
                try writer.write(Self.lineEnd.span)
            } catch {
                failed = true
                return false
            }
            return true
        }
        for writer in writers where (try? writer.close()) == nil { failed = true }
        // A file that changed while it was read (or was damaged) leaves no index behind.
        guard !failed, reader.counts.failedFiles == 0, Self.manifest(files) == before,
            Self.writeText(before, to: building + "/manifest")
        else {
            Self.removeFolder(building)
            return false
        }
        // In one step: a reader finds the old index or the new one, never none.
        guard PathExchange.replace(path, with: building) else {
            Self.removeFolder(building)
            return false
        }
        Self.removeFolder(building)  // the old index, if there was one
        return true
    }

    /// Whether the index is current for `files`, building it when it is not, one build of a month at a
    /// time in this process (threads asking for the same month wait for the one building it, then find
    /// it current); another process builds in a folder of its own.
    ///
    /// - Returns: whether it was current, has been built now, or is not in place (``build(from:while:)``
    ///   failed: the caller reads the files themselves).
    /// - Complexity: O(1) file checks when current; ``build(from:while:)`` otherwise.
    func ensureCurrent(for files: [LogArchive.File], while going: () -> Bool = { true }) -> Readiness {
        let gate = Self.gates.withLock { gates in
            if let gate = gates[path] { return gate }
            let gate = BuildGate()
            gates[path] = gate
            return gate
        }
        return gate.lock.withLock { _ in
            if isCurrent(for: files) { return .current }
            return build(from: files, while: going) ? .built : .failed
        }
    }

    /// What ``ensureCurrent(for:while:)`` found or did.
    enum Readiness {
        case current, built, failed
    }

    /// One lock per month folder (a few bytes each; the months of the archive's channels at most).
    private final class BuildGate: Sendable {
        let lock = Mutex(())
    }

    private static let gates = Mutex<[String: BuildGate]>([:])

    private static let lineEnd: [UInt8] = [0x0D, 0x0A]

    /// `mkdir -p path` (an absolute or relative path).
    private static func makeFolders(_ path: String) -> Bool {
        var built = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            built += "/" + part
            // SAFETY: the path is bridged to a NUL-terminated C string for the call.
            if unsafe mkdir(built, 0o755) != 0 && errno != EEXIST { return false }
        }
        return true
    }

    /// Removes a folder of plain files (an index part folder), if it is there.
    private static func removeFolder(_ path: String) {
        // SAFETY (both): the paths are bridged to NUL-terminated C strings for the call.
        for name in (try? InputPaths.entries(of: path)) ?? [] { _ = unsafe unlink(path + "/" + name) }
        _ = unsafe rmdir(path)
    }

    /// A small text file whole (the manifest).
    private static func readText(_ path: String) throws(InputError) -> String {
        let source = try FileSource(path: path)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            var failure: InputError? = nil
            // SAFETY: the chunk's buffer is valid for the closure; `read` writes at most its count.
            let n = unsafe chunk.withUnsafeMutableBytes { buffer -> Int in
                do throws(InputError) {
                    return try unsafe source.read(into: buffer)
                } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw failure }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `text` to a new file at `path` (the manifest).
    private static func writeText(_ text: String, to path: String) -> Bool {
        // SAFETY: the path is bridged to a NUL-terminated C string for the call.
        let fd = unsafe open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        let bytes = Array(text.utf8)
        // SAFETY: the buffer is valid for the call and holds `count` bytes.
        let written = unsafe bytes.withUnsafeBytes { unsafe write(fd, $0.baseAddress, $0.count) }
        return close(fd) == 0 && written == bytes.count
    }
}
