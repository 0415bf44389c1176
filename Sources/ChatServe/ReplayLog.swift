import ChatInput
import ChatStore
import Glibc
import IRCWire

/// The log `serve` replays, the channels it has, and how each ``LogTimeline`` gets its own
/// ``ReplayCursor`` over it.
///
/// Regular files (plain or gzip, from `FILE|DIR` arguments) are read **lazily, per timeline**: every
/// timeline's cursor opens its own ``MergeReader`` and reads only as far as it has played, so memory
/// per timeline is the reader's buffers (64 KiB per input lane), never the log. Inputs that cannot be
/// read twice — standard input (`-`), a FIFO — make the server read **all** inputs once into a shared
/// ``MemoryLog`` before it starts listening; that suits the small logs one pipes in.
///
/// On start the server learns which channels the log has (for ``UnknownChannelPolicy``) and their room
/// ids (see ``RoomDirectory``): a file in capture's layout (`DIR/<channel>/<day>.log.gz`, see
/// ``CaptureLayout``) names its channel in its path, and the first ``roomScanLimit`` lines of such
/// files are scanned for room ids; every other file is read once to its end.
///
/// Confined to the server's loop thread.
final class ReplayLog {
    /// How many lines of capture files are scanned for room ids at start.
    static let roomScanLimit = 50_000

    /// The expanded input paths.
    let paths: [String]
    /// The shared copy, when an input cannot be read twice.
    let memory: MemoryLog?
    /// The channels of the log and their room ids.
    private(set) var rooms = RoomDirectory()

    /// Expands `arguments` (`FILE|DIR|-`), loads them into memory when one of them is not a regular
    /// file, and learns channels and room ids.
    ///
    /// - Throws: ``ServeError/input(_:)`` with the error of ``InputPaths/expand(_:)``, or of an input
    ///   that could not be opened because descriptors ran out (``MergeReader/exhaustion``).
    /// - Complexity: O(bytes of the inputs not in capture's layout) plus the room scan.
    init(arguments: [String], report: (String) -> Void) throws(ServeError) {
        do {
            let expansion = try InputPaths.expansion(of: arguments)
            paths = expansion.paths
            for note in expansion.notes { report(note) }
        } catch {
            throw .input(error)
        }
        var rooms = RoomDirectory()
        if paths.contains(where: { !Self.isRegularFile($0) }) {
            let log = MemoryLog()
            let reader = MergeReader(paths: paths)
            reader.forEachEvent { event, bytes in
                switch event {
                case .line(let at, let message):
                    log.append(bytes, time: at.timestamp?.milliseconds)
                    rooms.learn(from: message, in: bytes)
                case .inputFailed(_, let error, _):
                    report("\(error)")
                case .bareCarriageReturns:
                    report(event.diagnostic)
                case .malformed, .skipped:
                    break
                }
            }
            if let error = reader.exhaustion { throw .input(error) }
            let statistics = reader.statistics
            if statistics.malformedLines + statistics.skippedLines > 0 {
                report(
                    "\(statistics.malformedLines) malformed and \(statistics.skippedLines) over-long input "
                        + "lines will not be replayed")
            }
            memory = log
        } else {
            memory = nil
            var captured: [String] = []
            var others: [String] = []
            for path in paths {
                if let channel = CaptureLayout.channel(ofFile: path) {
                    rooms.learn(channel: channel)
                    captured.append(path)
                } else {
                    others.append(path)
                }
            }
            // Inputs reported as they fail here are reported again when a timeline reads them.
            if !others.isEmpty {
                let reader = MergeReader(paths: others)
                reader.forEachEvent { event, bytes in
                    if case .line(_, let message) = event { rooms.learn(from: message, in: bytes) }
                }
                if let error = reader.exhaustion { throw .input(error) }
            }
            if !captured.isEmpty {
                let reader = MergeReader(paths: captured)
                var scanned = 0
                while scanned < Self.roomScanLimit {
                    let more = reader.next { event, bytes in
                        if case .line(_, let message) = event { rooms.learn(from: message, in: bytes) }
                    }
                    if !more { break }
                    scanned += 1
                }
                if let error = reader.exhaustion { throw .input(error) }
            }
        }
        self.rooms = rooms
    }

    /// A new position at the start of the log, for one timeline.
    func makeCursor(onFailure: @escaping (String) -> Void) -> ReplayCursor {
        if let memory { return ReplayCursor(memory: memory, onFailure: onFailure) }
        return ReplayCursor(paths: paths, onFailure: onFailure)
    }

    private static func isRegularFile(_ path: String) -> Bool {
        guard path != "-" else { return false }
        var info = stat()
        // SAFETY: `path` is bridged to a NUL-terminated C string for the call; `info` is a local `stat`.
        return unsafe stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }
}

@available(*, unavailable)
extension ReplayLog: Sendable {}
