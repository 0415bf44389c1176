import ChatPosix

#if canImport(Glibc)
    import Glibc
#endif

/// What ClickHouse acknowledged of one capture file.
public struct FileProgress: Sendable, Equatable {
    /// Decompressed bytes from the file's start to the end of the last acknowledged line.
    public var offset: UInt64
    /// Lines acknowledged.
    public var lines: UInt64
    /// The fingerprint of the line ending at ``offset`` (`nil` at 0).
    public var mark: LineMark?
    /// The file's compressed size when everything it held was acknowledged, or 0: while the file
    /// keeps that size, nothing is left to load from it and it need not be opened.
    public var completeSize: UInt64

    public init(offset: UInt64 = 0, lines: UInt64 = 0, mark: LineMark? = nil, completeSize: UInt64 = 0) {
        self.offset = offset
        self.lines = lines
        self.mark = mark
        self.completeSize = completeSize
    }
}

/// The progress of one `load` destination, kept in `DIR/_load/<name>.progress`: one line per file,
///
/// ```
/// # chatcap load progress 1 <destination, credentials redacted>
/// <path relative to DIR>\t<offset>\t<lines>\t<line length>\t<line crc32, hex>\t<complete size>
/// ```
///
/// rewritten whole after every acknowledged INSERT: a temporary file, `fsync`, `rename` over the old
/// one, `fsync` of the directory. A crash at any point leaves the previous or the new version, never a
/// mix. A lock (`<name>.lock`, `flock`) keeps a second `load` of the same destination out.
public final class LoadProgressStore {
    public let path: String
    private let lockDescriptor: Int32
    private let header: String

    /// Opens (creating `DIR/_load/` if needed) and locks the progress `name` of `directory`.
    ///
    /// - Throws: ``LoadError/busy(path:)`` when another load holds the lock, ``LoadError/progress(path:reason:)``.
    public init(directory: String, name: String, destination: String) throws(LoadError) {
        let folder = directory + "/_load"
        if unsafe mkdir(folder, 0o755) != 0 && errno != EEXIST {
            throw LoadError.progress(path: folder, reason: Errno.text(errno))
        }
        path = folder + "/" + name + ".progress"
        header = "# chatcap load progress 1 \(destination)"
        let lockPath = folder + "/" + name + ".lock"
        let fd = unsafe open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LoadError.progress(path: lockPath, reason: Errno.text(errno)) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { throw LoadError.busy(path: lockPath) }
            throw LoadError.progress(path: lockPath, reason: Errno.text(code))
        }
        lockDescriptor = fd
    }

    deinit { close(lockDescriptor) }

    /// The progress stored, by relative path (empty when there is none yet).
    ///
    /// - Throws: ``LoadError/progress(path:reason:)`` for a file that cannot be read or a line that is not progress.
    public func load() throws(LoadError) -> [String: FileProgress] {
        let fd = unsafe open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return [:] }
            throw LoadError.progress(path: path, reason: Errno.text(errno))
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = unsafe chunk.withUnsafeMutableBytes { unsafe Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw LoadError.progress(path: path, reason: Errno.text(errno)) }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return try Self.parse(String(decoding: bytes, as: UTF8.self), path: path)
    }

    /// Parses the text of a progress file.
    static func parse(_ text: String, path: String) throws(LoadError) -> [String: FileProgress] {
        var result: [String: FileProgress] = [:]
        for (number, line) in text.split(separator: "\n").enumerated() where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 6, let offset = UInt64(fields[1]), let lines = UInt64(fields[2]),
                let length = Int(fields[3]), let crc = UInt32(fields[4], radix: 16), let size = UInt64(fields[5])
            else {
                throw LoadError.progress(path: "\(path):\(number + 1)", reason: "not a progress line: \(line)")
            }
            result[String(fields[0])] = FileProgress(
                offset: offset, lines: lines, mark: offset == 0 ? nil : LineMark(length: length, crc: crc),
                completeSize: size)
        }
        return result
    }

    /// The text of a progress file for `progress`, sorted by path.
    func render(_ progress: [String: FileProgress]) -> String {
        var text = header + "\n"
        for (name, p) in progress.sorted(by: { $0.key < $1.key }) {
            text +=
                "\(name)\t\(p.offset)\t\(p.lines)\t\(p.mark?.length ?? 0)\t"
                + String(p.mark?.crc ?? 0, radix: 16) + "\t\(p.completeSize)\n"
        }
        return text
    }

    /// Replaces the stored progress with `progress`, atomically and durably (see the type's notes).
    ///
    /// - Throws: ``LoadError/progress(path:reason:)``.
    /// - Complexity: O(files). - Allocations: the text.
    public func save(_ progress: [String: FileProgress]) throws(LoadError) {
        let temporary = path + ".tmp"
        let bytes = Array(render(progress).utf8)
        let fd = unsafe open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw LoadError.progress(path: temporary, reason: Errno.text(errno)) }
        var written = 0
        while written < bytes.count {
            let n = unsafe bytes.withUnsafeBytes { unsafe write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let code = errno
                close(fd)
                throw LoadError.progress(path: temporary, reason: Errno.text(code))
            }
            written += n
        }
        guard fsync(fd) == 0 else {
            let code = errno
            close(fd)
            throw LoadError.progress(path: temporary, reason: "fsync: " + Errno.text(code))
        }
        close(fd)
        guard unsafe rename(temporary, path) == 0 else {
            throw LoadError.progress(path: path, reason: "rename: " + Errno.text(errno))
        }
        let folder = String(path[..<path.lastIndex(of: "/")!])
        let dirFD = unsafe open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            _ = fsync(dirFD)
            close(dirFD)
        }
    }
}

@available(*, unavailable)
extension LoadProgressStore: Sendable {}
