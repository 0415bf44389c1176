import ChatArchive
import ChatStore
import Glibc
import IRCWire

/// The log `serve` replays, and how each client gets its own ``ReplayCursor`` over it.
///
/// Regular files (plain or gzip, from `FILE|DIR` arguments) are read **lazily, per client**: every
/// client's cursor opens its own ``MergeReader`` and reads only as far as it has been sent, so memory
/// per client is the reader's buffers (64 KiB per input lane), never the log. Inputs that cannot be
/// read twice — standard input (`-`), a FIFO — make the server read **all** inputs once into a shared
/// ``MemoryLog`` before it starts listening; that suits the small logs one pipes in.
///
/// On start the first ``roomScanLimit`` lines are scanned for `room-id` tags (see ``RoomDirectory``).
///
/// Confined to the server's loop thread.
final class ReplayLog {
    /// How many lines of a file log are scanned for room ids at start.
    static let roomScanLimit = 50_000

    /// The expanded input paths.
    let paths: [String]
    /// The shared copy, when an input cannot be read twice.
    let memory: MemoryLog?
    private(set) var rooms = RoomDirectory()

    /// Expands `arguments` (`FILE|DIR|-`), loads them into memory when one of them is not a regular
    /// file, and learns room ids.
    ///
    /// - Throws: ``ServeError/input(_:)`` with the error of ``InputPaths/expand(_:)``, or of an input
    ///   that could not be opened because descriptors ran out (``MergeReader/exhaustion``).
    init(arguments: [String], report: (String) -> Void) throws(ServeError) {
        do {
            let expansion = try InputPaths.expansion(of: arguments)
            paths = expansion.paths
            if !expansion.skipped.isEmpty {
                report(
                    "skipped \(expansion.skipped.count) files in the directories given that are not chat logs "
                        + "(read: capture's YYYY-MM-DD….log[.gz] and *.irc[.gz]); first: \(expansion.skipped[0])")
            }
            if !expansion.repeated.isEmpty { report("read once, named again: \(expansion.repeated[0]) …") }
        } catch {
            throw .input(error)
        }
        let reader = MergeReader(paths: paths)
        if paths.contains(where: { !Self.isRegularFile($0) }) {
            let log = MemoryLog()
            var rooms = RoomDirectory()
            reader.forEachEvent { event, bytes in
                switch event {
                case .line(let at, let message):
                    log.append(bytes, message: message, time: at.timestamp?.milliseconds)
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
            self.rooms = rooms
        } else {
            memory = nil
            var scanned = 0
            var rooms = RoomDirectory()
            while scanned < Self.roomScanLimit {
                let more = reader.next { event, bytes in
                    if case .line(_, let message) = event { rooms.learn(from: message, in: bytes) }
                }
                if !more { break }
                scanned += 1
            }
            if let error = reader.exhaustion { throw .input(error) }
            self.rooms = rooms
        }
    }

    /// A new position at the start of the log, for one client.
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
