import ArgumentParser
import TwitchSession

/// The channel list of a running capture or tail, read again from `--channels-file` on SIGHUP
/// (``Hangups``): the channels named on the command line and those the file lists now, kept to
/// `--shard K/N` when one is given, against the list in force. A file that cannot be read, does not
/// parse, or leaves no channel keeps the list in force, and says why.
final class ChannelReload {
    /// What a reload made of the file.
    enum Outcome: Equatable {
        /// The new list (it may be the same): channels to part and to join, and how many there are now.
        case changed(added: [String], removed: [String], count: Int)
        /// The list in force is kept, for this reason.
        case kept(reason: String, count: Int)
    }

    let path: String
    /// The channels named on the command line: always in the list.
    let arguments: [String]
    let shard: ChannelShard?
    /// The list in force, normalised, each once.
    private(set) var channels: [String]

    /// - Parameter channels: the list the run started with (after `--shard`).
    init(path: String, arguments: [String], shard: ChannelShard?, channels: [String]) {
        self.path = path
        self.arguments = arguments
        self.shard = shard
        self.channels = Self.distinct(channels)
    }

    /// Catches SIGHUP (see ``Hangups``): from now on it asks for a reload instead of ending the process.
    func install() { Hangups.install() }

    /// The outcome of a SIGHUP received since the last call, or `nil` when none came. Call it from
    /// the ingest loop's tick; it reads the file there.
    func poll() -> Outcome? { Hangups.take() ? reload() : nil }

    /// Reads the file and makes it the list in force, unless it cannot be used.
    func reload() -> Outcome {
        let listed: [String]
        do { listed = try ChannelsFile.read(path) } catch {
            return .kept(reason: (error as? ValidationError)?.message ?? "\(error)", count: channels.count)
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
    func describe(_ outcome: Outcome) -> String {
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
    static let listedBytes = 4_000

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
    static func distinct(_ channels: [String]) -> [String] {
        var seen = Set<String>()
        return channels.map { Login.normalize($0) }.filter { seen.insert($0).inserted }
    }
}
