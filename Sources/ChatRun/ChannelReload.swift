import ChatPosix
public import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// The channel list of a running capture or tail, read again from `--channels-file` on SIGHUP
/// (``Hangups``), and with `--reload-on-change` when the file changes: the channels named on the
/// command line and those the file lists now, kept to `--shard K/N` when one is given, against the
/// list in force. A file that cannot be read, does not parse, or leaves no channel keeps the list in
/// force, and says why.
///
/// A SIGHUP reads the file once it has stayed the same (`stat(2)`) for ``settleMs`` (at most
/// ``settleLimitMs`` after the signal), so that one sent while the file is rewritten does not apply
/// half of it.
///
/// A change is seen by `stat(2)` every interval (device, inode, size, modification and change
/// times: an editor's write in place or its rename, a symbolic link moved to another file, as a
/// Kubernetes ConfigMap update does) and applied once the file has stayed the same for one more
/// interval, so that a file still being written is not read half.
public final class ChannelReload {
    /// What a reload made of the file.
    public enum Outcome: Equatable, Sendable {
        /// The new list (it may be the same): channels to part and to join, and how many there are now.
        case changed(added: [String], removed: [String], count: Int)
        /// The list in force is kept, for this reason.
        case kept(reason: String, count: Int)
    }

    public let path: String
    /// The channels named on the command line: always in the list.
    public let arguments: [String]
    public let shard: ChannelShard?
    /// The list in force, normalised, each once.
    public private(set) var channels: [String]
    /// `--reload-on-change`: how often the file is looked at (`nil`: only SIGHUP reloads).
    public let watchIntervalMs: Int64?
    /// The file as last read (`nil`: it could not be looked at), and as seen at the last look.
    private var readStamp: FileStamp?
    private var seenStamp: FileStamp?
    private var nextLookMs: Int64 = .min
    /// A SIGHUP waiting for the file to settle: when it came, the file as last seen, and the next look.
    private var hangup: (since: Int64, stamp: FileStamp?, lookMs: Int64)? = nil

    /// How long the file must stay the same after a SIGHUP before it is read, and the longest wait.
    public static let settleMs: Int64 = 300
    public static let settleLimitMs: Int64 = 5_000

    /// - Parameters:
    ///   - channels: the list the run started with (after `--shard`).
    ///   - watchIntervalMs: with `--reload-on-change`, the interval between looks at the file.
    public init(
        path: String, arguments: [String], shard: ChannelShard?, channels: [String], watchIntervalMs: Int64? = nil
    ) {
        self.path = path
        self.arguments = arguments
        self.shard = shard
        self.channels = Self.distinct(channels)
        self.watchIntervalMs = watchIntervalMs
        readStamp = FileStamp(path)
        seenStamp = readStamp
    }

    /// Catches SIGHUP (see ``Hangups``): from now on it asks for a reload instead of ending the process.
    public func install() { Hangups.install() }

    /// The outcome of a SIGHUP received since the last call (or, with ``watchIntervalMs``, of a change
    /// of the file that has settled), or `nil` when there is none. Call it from the ingest loop's tick;
    /// it reads the file there.
    ///
    /// - Complexity: O(1) between looks; a `stat(2)` per look. - Allocations: none between looks.
    ///
    /// `signalled`: whether a SIGHUP came since the last call (`nil`: taken from ``Hangups`` here; a
    /// caller that answers SIGHUP for more than the channel list takes it once and passes it on).
    public func poll(nowMs: Int64, signalled: Bool? = nil) -> Outcome? {
        if signalled ?? Hangups.take() {
            // Not at once: a file being rewritten (`cat new > list`, a script writing line by line)
            // would be read half, and half the channels parted. Read once it has stayed the same for
            // ``settleMs``, or after ``settleLimitMs`` whatever it does.
            hangup = (since: nowMs, stamp: FileStamp(path), lookMs: nowMs + Self.settleMs)
        }
        if let pending = hangup, nowMs >= pending.lookMs {
            let stamp = FileStamp(path)
            if stamp == pending.stamp || nowMs - pending.since >= Self.settleLimitMs {
                hangup = nil
                return reload()
            }
            hangup = (pending.since, stamp, nowMs + Self.settleMs)
        }
        guard let interval = watchIntervalMs, nowMs >= nextLookMs else { return nil }
        nextLookMs = nowMs + interval
        let stamp = FileStamp(path)
        defer { seenStamp = stamp }
        // Changed since the last read, and the same as at the look before: written, and settled.
        return stamp != readStamp && stamp == seenStamp ? reload() : nil
    }

    /// Reads the file and makes it the list in force, unless it cannot be used.
    public func reload() -> Outcome {
        readStamp = FileStamp(path)
        seenStamp = readStamp
        let listed: [String]
        do throws(ChannelsFile.Failure) { listed = try ChannelsFile.read(path) } catch {
            return .kept(reason: error.description, count: channels.count)
        }
        let named = Self.distinct(arguments + listed)
        let wanted = shard.map { Self.distinct($0.filter(named)) } ?? named
        guard !wanted.isEmpty else {
            let why =
                named.isEmpty
                ? "\(path) lists no channel" : "shard \(shard!) keeps none of the \(named.count) channels listed"
            return .kept(reason: why, count: channels.count)
        }
        let before = Set(channels)
        let after = Set(wanted)
        let outcome = Outcome.changed(
            added: wanted.filter { !before.contains($0) }, removed: channels.filter { !after.contains($0) },
            count: wanted.count)
        channels = wanted
        return outcome
    }

    /// What to say on stderr and store: `channel list reloaded from F: joining #a #b, parting #c; 7
    /// channels` (at most ``listedBytes`` of names each way, then `… and N more`), `… no change`, or
    /// `channel list not reloaded from F: <why>; keeping the 6 channels`.
    public func describe(_ outcome: Outcome) -> String {
        switch outcome {
        case .changed(let added, let removed, let count):
            var parts: [String] = []
            if !added.isEmpty { parts.append("joining " + Self.list(added)) }
            if !removed.isEmpty { parts.append("parting " + Self.list(removed)) }
            let what = parts.isEmpty ? "no change" : parts.joined(separator: ", ")
            return "channel list reloaded from \(path)\(shard.map { " (shard \($0))" } ?? ""): \(what); "
                + "\(count) channel\(count == 1 ? "" : "s")"
        case .kept(let reason, let count):
            return "channel list not reloaded from \(path): \(reason); keeping the \(count) channel"
                + (count == 1 ? "" : "s") + " in force"
        }
    }

    /// Most bytes of names one description lists each way: a record stays far below the readers'
    /// line limit (16 KiB) however many channels change.
    public static let listedBytes = 4_000

    /// `#a #b … and N more`.
    private static func list(_ channels: [String]) -> String {
        var text = ""
        for (i, channel) in channels.enumerated() {
            if text.utf8.count + channel.utf8.count + 2 > listedBytes {
                return text + " … and \(channels.count - i) more"
            }
            text += (i == 0 ? "#" : " #") + channel
        }
        return text
    }

    /// `channels` normalised, each once, in their first order.
    public static func distinct(_ channels: [String]) -> [String] {
        var seen = Set<String>()
        return channels.map { Login.normalize($0) }.filter { seen.insert($0).inserted }
    }
}

@available(*, unavailable)
extension ChannelReload: Sendable {}

/// What `stat(2)` says of a file that tells one version of it from the next.
struct FileStamp: Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: timespec
    var changed: timespec

    /// The file at `path` now (a symbolic link followed), or `nil` when it cannot be looked at.
    init?(_ path: String) {
        var info = stat()
        // SAFETY: `info` is a stat buffer of this struct's size, written by the call only.
        guard unsafe stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim
        changed = info.st_ctim
    }

    static func == (a: FileStamp, b: FileStamp) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size && a.modified.tv_sec == b.modified.tv_sec
            && a.modified.tv_nsec == b.modified.tv_nsec && a.changed.tv_sec == b.changed.tv_sec
            && a.changed.tv_nsec == b.changed.tv_nsec
    }
}
