import ChatFormat
import ChatGzip
import ChatInput
public import ChatStore
import IRCWire
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// What a capture run finds in its directory about the run before it, so that the hole between the
/// two runs is a record and not a silent absence (see ``CaptureWriter/recordPreviousRun(channels:at:)``).
///
/// The previous run **ended with `stop`** when the last `CAPTURE` record of the newest `_session`
/// file (by modification time) is `stop`: a run writes `start` first and `stop` last, and nothing
/// after it. Then it was alive until that record. Otherwise it ended without one (killed, crashed, the
/// machine lost power) and was last known alive at the newest line it stored: the newest files of
/// `_session` and of every channel directory are read, newest first, until a file's modification time
/// is older than the newest line found (no line of a file is newer than the file).
///
/// **Stored** means kept: up to each file's last flush point. A killed run leaves compressed lines
/// after it (the compressor writes whenever its buffer fills), readable until the next run's repair
/// cuts them off (``GzipFlushPoint``); taking the newest of those for the run's last moment started the
/// gap after the lines received between the last flush and it, which were then lost without a record.
///
/// - Complexity: reads the newest session file, and after a run without `stop` the newest files of
///   the directories until the newest line is certain — typically one or two files, each decompressed
///   twice (once to find its last flush point), at start only.
public struct CapturePreviousRun: Sendable, Equatable {
    /// Whether the previous run's last record is `stop`.
    public var endedWithStop: Bool
    /// When the previous run was last known to capture: its `stop` record, or its newest line.
    public var lastLine: Timestamp
    /// The channels of the new run that the directory already holds files of: each gets a gap.
    public var channels: [String]

    /// The reason of those gaps: `capture was not running (…)`, saying how the previous run ended.
    public var gapReason: String {
        endedWithStop
            ? "capture was not running (stopped, then started again)"
            : "capture was not running (the previous run ended without a stop record)"
    }

    public init(endedWithStop: Bool, lastLine: Timestamp, channels: [String]) {
        self.endedWithStop = endedWithStop
        self.lastLine = lastLine
        self.channels = channels
    }

    /// Looks at `directory` (a capture directory) before the new run writes anything.
    ///
    /// - Parameter channels: the new run's channels (logins, with or without `#`).
    /// - Returns: `nil` when the directory holds no earlier run (no `_session` file with a line).
    public static func examine(directory: String, channels: [String]) -> CapturePreviousRun? {
        let session = LogFile.newest(in: directory + "/_session")
        guard let session else { return nil }
        var lastRecordIsStop = false
        var lastRecordMs: Int64? = nil
        var newest = Int64.min
        read(session.path) { message, bytes, time in
            if let time { newest = max(newest, time) }
            guard let record = CaptureRecordLine(message, in: bytes) else { return }
            lastRecordIsStop = bytes.extracting(record.event.range).equals("stop")
            lastRecordMs = time
        }
        let known = channels.map { Login.normalize($0) }.filter { channel in
            !channel.isEmpty && LogFile.newest(in: directory + "/" + channel) != nil
        }
        if lastRecordIsStop, let at = lastRecordMs {
            return CapturePreviousRun(endedWithStop: true, lastLine: Timestamp(milliseconds: at), channels: known)
        }
        // Without `stop`: the newest line of any directory's newest file.
        var files = [session]
        for name in LogFile.names(in: directory) where !name.hasPrefix(".") && name != "_session" {
            if let file = LogFile.newest(in: directory + "/" + name) { files.append(file) }
        }
        files.sort { $0.modifiedMs > $1.modifiedMs }
        for file in files where file.path != session.path {
            if newest != Int64.min && file.modifiedMs < newest { break }
            read(file.path) { _, _, time in
                if let time { newest = max(newest, time) }
            }
        }
        guard newest != Int64.min else { return nil }
        return CapturePreviousRun(endedWithStop: false, lastLine: Timestamp(milliseconds: newest), channels: known)
    }

    /// Calls `body` with every line of the file at `path` up to its last flush point (what a repair
    /// keeps) and its time (`nil` when it has none), ignoring malformed lines and a damaged end.
    private static func read(_ path: String, _ body: (TwitchMessage, Span<UInt8>, Int64?) -> Void) {
        let kept = keptTextLength(path)
        MergeReader(paths: [path]).forEachEvent { event, bytes in
            guard case .line(let at, let message) = event else { return }
            // A flush point ends a line: a line starting before it is kept whole.
            if let kept, at.byteOffset >= kept { return }
            let own = at.timeSource == .timeTag || at.timeSource == .tmiSentTs || at.timeSource == .received
            body(message, bytes, own ? at.timestamp?.milliseconds : nil)
        }
    }

    /// The text of the file at `path` that a repair keeps (``GzipFlushPoint/durableTextLength(descriptor:size:path:)``),
    /// or `nil` for all of it: the file ends in a finished member, or cannot be scanned (then whatever
    /// reads is taken, as before).
    private static func keptTextLength(_ path: String) -> UInt64? {
        var descriptor: Int32
        repeat {
            // SAFETY: `path` is bridged to a NUL-terminated string for the call.
            descriptor = unsafe open(path, O_RDONLY | O_CLOEXEC)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        // SAFETY: `info` is a local `stat` that `fstat(2)` fills in.
        guard unsafe fstat(descriptor, &info) == 0 else { return nil }
        return try? GzipFlushPoint.durableTextLength(descriptor: descriptor, size: UInt64(info.st_size), path: path)
    }
}

/// A capture file and its modification time.
private struct LogFile {
    var path: String
    var modifiedMs: Int64

    /// The most recently modified log file directly in `directory` (ties: the later name), or `nil`.
    static func newest(in directory: String) -> LogFile? {
        var best: LogFile? = nil
        for name in names(in: directory) where InputPaths.isLogName(name) {
            let path = directory + "/" + name
            var info = stat()
            // SAFETY: `info` is a local `stat` that `stat(2)` fills in; `path` is bridged for the call.
            guard unsafe stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            let ms = Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000
            if best.map({ ms >= $0.modifiedMs }) ?? true { best = LogFile(path: path, modifiedMs: ms) }
        }
        return best
    }

    /// The names in `directory` in byte order (none when it cannot be read).
    static func names(in directory: String) -> [String] {
        (try? InputPaths.entries(of: directory)) ?? []
    }
}
