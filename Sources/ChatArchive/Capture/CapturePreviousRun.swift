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
    /// After a run without `stop`, the channels not live to the run's end: those whose files were not
    /// written to in its last moments (their newest file is older than ``lastLine``), quiet ones and
    /// those whose connection was down, between a drop and their rejoin, when the run died; and those
    /// written to then, but with a `disconnected` record, or a `joined` record of their own, newer than
    /// their newest received line: what came then was a backfill's (its recovered lines and the older
    /// live lines it held), which ends at its wait's end, also after the channel's connection dropped
    /// again; and after a rejoin whose backfill was still waiting, the lines it held died with the run.
    /// Also the channels live to the end whose files were last flushed before the run's newest line:
    /// each file is kept up to its own last flush point, so their lines received since were cut.
    /// Each one's gap starts at its own last stored line, kept here (``lastLine(of:)``).
    public var channelLastLines: [String: Timestamp] = [:]

    /// Where `channel`'s gap starts: its own last stored line when it was not written to in the run's
    /// last moments (``channelLastLines``), else the run's (``lastLine``).
    public func lastLine(of channel: String) -> Timestamp {
        channelLastLines[Login.normalize(channel)] ?? lastLine
    }

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

    /// The examination was stopped (``examine(directory:channels:shouldStop:)``'s `shouldStop`).
    public struct Interrupted: Error, Sendable, Equatable {}

    /// Looks at `directory` (a capture directory) before the new run writes anything.
    ///
    /// - Parameters:
    ///   - channels: the new run's channels (logins, with or without `#`).
    ///   - shouldStop: asked between files and every few thousand lines (a stop signal during start-up:
    ///     reading the newest files of a busy capture can take seconds).
    /// - Returns: `nil` when the directory holds no earlier run (no `_session` file with a line).
    /// - Throws: ``Interrupted`` once `shouldStop` says so; nothing was written.
    public static func examine(directory: String, channels: [String], shouldStop: () -> Bool = { false })
        throws(Interrupted) -> CapturePreviousRun?
    {
        let session = LogFile.newest(in: directory + "/_session")
        guard let session else { return nil }
        var lastRecordIsStop = false
        var lastRecordMs: Int64? = nil
        var newest = Int64.min
        var connections = ConnectionRecords()
        try read(session.path, shouldStop) { message, bytes, time in
            if let time { newest = max(newest, time) }
            guard let record = CaptureRecordLine(message, in: bytes) else { return }
            lastRecordIsStop = bytes.extracting(record.event.range).equals("stop")
            lastRecordMs = time
            connections.take(record, bytes, time)
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
        var found: [String: Newest] = [:]
        for file in files where file.path != session.path {
            if newest != Int64.min && file.modifiedMs < newest { break }
            let lines = try Newest(of: file.path, shouldStop)
            found[file.path] = lines
            newest = max(newest, lines.any)
        }
        guard newest != Int64.min else { return nil }
        var previous = CapturePreviousRun(
            endedWithStop: false, lastLine: Timestamp(milliseconds: newest), channels: known)
        // A channel whose files were last written before the run's newest line got nothing in its last
        // moments: it was quiet, or its connection was down (a drop, a rejoin under way); one written to
        // then by a backfill only, too. Lines since its own last one may be lost, not only since the
        // run's: read where its files end.
        for channel in known {
            if let last = try Self.lastLine(
                in: directory + "/" + channel, before: newest, down: connections.down(channel), found, shouldStop)
            {
                previous.channelLastLines[channel] = last
            }
        }
        return previous
    }

    /// The newest stored line of the files in `folder` when the channel was not live to the end
    /// (``channelLastLines``): none of them was modified at or after `runLastMs`, or the channel was
    /// `down` after its newest received line (``ConnectionRecords/down(_:)``); when it was live to the
    /// end, its newest kept line if that is older than `runLastMs` (its last flush point came before
    /// the run's newest line's); `nil` when it was live to the end up to `runLastMs`, or none of its
    /// files holds a timed line.
    ///
    /// - Parameter found: files read already (their newest lines), not read again.
    /// - Complexity: decodes the folder's newest files (twice each, as ``read(_:_:_:)``) until one holds
    ///   a line, unless `found` has them; at start only.
    private static func lastLine(
        in folder: String, before runLastMs: Int64, down: (Int64) -> Bool, _ found: [String: Newest],
        _ shouldStop: () -> Bool
    ) throws(Interrupted) -> Timestamp? {
        let files = LogFile.all(in: folder).sorted { $0.modifiedMs > $1.modifiedMs }
        guard let first = files.first else { return nil }
        if first.modifiedMs >= runLastMs {
            let lines: Newest
            if let known = found[first.path] { lines = known } else { lines = try Newest(of: first.path, shouldStop) }
            if lines.received != Int64.min && !down(lines.received) {
                // Live to the end, but kept only up to its own last flush point, which may come before
                // another channel's: what it received after it is cut by the repair, so its gap starts
                // at its own last kept line when that is older than the run's newest.
                return lines.any < runLastMs ? Timestamp(milliseconds: lines.any) : nil
            }
        }
        for file in files {
            let lines: Newest
            if let known = found[file.path] { lines = known } else { lines = try Newest(of: file.path, shouldStop) }
            if lines.any != Int64.min { return Timestamp(milliseconds: lines.any) }
        }
        return nil
    }

    /// The session's connection records: when a connection last dropped, and when each channel was
    /// last joined. A channel whose newest received line is older than either was not live to the end:
    /// its connection dropped since (the `disconnected` record does not say which channels it had, so
    /// any drop counts: for a channel live on another connection, that only starts its gap at its own
    /// last line, a little earlier), or it was joined again since and nothing of it was written after
    /// (with `--recent-messages`, its live lines are held until the backfill ends, and its gap record
    /// is written then).
    private struct ConnectionRecords {
        var lastDisconnectedMs = Int64.min
        var joinedMs: [String: Int64] = [:]

        mutating func take(_ record: CaptureRecordLine, _ bytes: Span<UInt8>, _ time: Int64?) {
            guard let time else { return }
            let event = bytes.extracting(record.event.range)
            if event.equals("disconnected") {
                lastDisconnectedMs = max(lastDisconnectedMs, time)
            } else if event.equals("joined"), let channel = record.channel {
                let name = bytes.extracting(channel.range)
                var login = [UInt8]()
                for i in name.indices { login.append(name[i]) }
                joinedMs[Login.normalize(String(decoding: login, as: UTF8.self))] = time
            }
        }

        /// Whether a drop or a join of `channel` came after `receivedMs` (its newest received line).
        func down(_ channel: String) -> (Int64) -> Bool {
            let joined = joinedMs[Login.normalize(channel)] ?? Int64.min
            let dropped = lastDisconnectedMs
            return { receivedMs in dropped >= receivedMs || joined >= receivedMs }
        }
    }

    /// The newest line of a file up to its last flush point, and its newest received one (a line
    /// without `historical`: a backfill's recovered lines carry the service's times).
    private struct Newest {
        var any = Int64.min
        var received = Int64.min

        init(of path: String, _ shouldStop: () -> Bool) throws(Interrupted) {
            var any = Int64.min
            var received = Int64.min
            try read(path, shouldStop) { message, bytes, time in
                guard let time else { return }
                any = max(any, time)
                if message.line.tag("historical", in: bytes) == nil { received = max(received, time) }
            }
            self.any = any
            self.received = received
        }
    }

    /// Calls `body` with every line of the file at `path` up to its last flush point (what a repair
    /// keeps) and its time (`nil` when it has none), ignoring malformed lines and a damaged end.
    ///
    /// - Throws: ``Interrupted`` when `shouldStop` says so (asked before the file and every 4,096 lines).
    private static func read(
        _ path: String, _ shouldStop: () -> Bool, _ body: (TwitchMessage, Span<UInt8>, Int64?) -> Void
    ) throws(Interrupted) {
        if shouldStop() { throw Interrupted() }
        let kept = keptTextLength(path)
        if shouldStop() { throw Interrupted() }
        var count = 0
        try MergeReader(paths: [path]).forEachEvent { (event, bytes) throws(Interrupted) in
            count &+= 1
            if count & 4_095 == 0, shouldStop() { throw Interrupted() }
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
        for file in all(in: directory) where best.map({ file.modifiedMs >= $0.modifiedMs }) ?? true { best = file }
        return best
    }

    /// The log files directly in `directory`, in name order.
    static func all(in directory: String) -> [LogFile] {
        names(in: directory).compactMap { name in
            guard InputPaths.isLogName(name) else { return nil }
            let path = directory + "/" + name
            var info = stat()
            // SAFETY: `info` is a local `stat` that `stat(2)` fills in; `path` is bridged for the call.
            guard unsafe stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            let ms = Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000
            return LogFile(path: path, modifiedMs: ms)
        }
    }

    /// The names in `directory` in byte order (none when it cannot be read).
    static func names(in directory: String) -> [String] {
        (try? InputPaths.entries(of: directory)) ?? []
    }
}
