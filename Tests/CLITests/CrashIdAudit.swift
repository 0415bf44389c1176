import ChatStore
import ChatTestSupport
import Foundation
import Glibc
import Testing

/// Every message id `serve` played while a capture run was joined, held against what the capture
/// directory holds after a kill -9 loop: each one is in a file, or inside a `gap` the capture recorded.
///
/// **What serve played**, and when, comes from ``Recorder``: a client of serve of its own beside the
/// capture (`Tests/Support/irc_recorder.py`), which writes down each message's id, channel and
/// `tmi-sent-ts` in the order serve sent them. Serve stamps `tmi-sent-ts` with the moment it plays the
/// line (the generated log has no `time` tag, so each line is paced by its own `tmi-sent-ts`), and the
/// timeline is one for every client, so the recorder hears exactly what the capture was sent, in the
/// same order. Serve's clock and capture's are the same machine's wall clock.
///
/// **Which ids must be accounted for**: those of channel C played while a run was joined to C, after its
/// `joined #C` record (in a later millisecond) (capture's receive time of the JOIN echo: serve added it to the channel before)
/// to the moment the test killed it, and for every run after the first from its `start` record (a
/// restart's gap ends when the channel is joined again: what serve played between a run's start and
/// its JOIN is inside it); for the run stopped last, up to the last message it stored, in
/// serve's order (what serve played after that was still on its way when the run stopped), and in the
/// last second before its `stop` record only up to the channel's own last stored message (its
/// connection may be read after the others': seen, two ids of a channel played 9 ms before the stop
/// and not yet read while another channel's later one was). A run
/// whose `joined` record itself was lost with its unflushed tail is not counted; neither is what serve
/// played while no run was joined (counted apart, ``Result/unjoined``).
///
/// **Inside a gap**: a gap of C from `F` to `T` (capture's clock) holds a message played at `t` (serve's
/// clock) when `F - lag ≤ t ≤ T`, where `lag` is the largest delivery lag (capture's receive time minus
/// serve's play time) of the messages the capture stored in the two seconds up to `F`. After a kill the
/// restarted run's gap starts at the last line stored (the lines received after the last flush point
/// are cut by the repair: they are received after it); a message played before that line reached
/// capture, and not stored, was lost while capture claims to have been running, and fails the check.
struct CrashIdAudit {
    struct Stored {
        var receivedMs: Int64
        var sentMs: Int64
    }

    struct Played {
        var sentMs: Int64
        var id: String
        var channel: String
    }

    struct Result: CustomStringConvertible {
        /// Ids played while a run was joined (those that must be accounted for).
        var required = 0
        /// Of those, in the files.
        var stored = 0
        /// Not in the files, inside a gap.
        var inGap = 0
        /// Not in the files nor inside a gap: `sentMs id channel`, the first few.
        var missing: [String] = []
        var missingCount = 0
        /// For each of the first few missing ids, what surrounds it (``neighbourhood(of:at:in:kills:lagAt:)``):
        /// a failure explains itself in a CI log whose test directory is gone.
        var neighbourhoods: [String] = []
        /// Played while no run was joined (not counted).
        var unjoined = 0
        var gaps = 0
        /// The largest delivery lag used for a gap's start (ms).
        var largestLag: Int64 = 0

        var description: String {
            "\(required) ids played while a run was joined: \(stored) stored, \(inGap) inside a gap, "
                + "\(missingCount) missing \(missing); \(unjoined) played while no run was joined; \(gaps) gaps, "
                + "largest lag at a gap's start \(largestLag) ms"
                + neighbourhoods.map { "\n  " + $0 }.joined()
        }
    }

    /// Stored messages by id.
    var stored: [String: Stored] = [:]
    /// Gaps per channel: `(from, to)`, ms since 1970.
    var gaps: [String: [(from: Int64, to: Int64)]] = [:]
    /// `joined` records per channel, ms since 1970.
    var joined: [String: [Int64]] = [:]
    /// `start` records (one per run), ms since 1970.
    var starts: [Int64] = []
    /// `stop` records (the run stopped last has one), ms since 1970.
    var stops: [Int64] = []

    /// Takes one stored line (without CR LF) of a channel file or of `_session`.
    mutating func take(_ line: Substring) {
        var line = String(line)
        line.withUTF8 { take($0) }
    }

    /// ``take(_:)-(Substring)`` of a line's bytes, searched with libc (``ByteSearch``): a kill loop's
    /// audit reads 130,000 lines and more, and in a debug build `split` over `Substring`s was a quarter
    /// of the test bundle's CPU.
    mutating func take(_ line: UnsafeBufferPointer<UInt8>) {
        let n = line.count
        guard ByteSearch.equals(line, 0..<min(Self.timePrefix.count, n), Self.timePrefix) else { return }
        let space = ByteSearch.first(UInt8(ascii: " "), in: line, from: 0, to: n)
        guard space < n else { return }
        // The prefix, the command, its first parameter and the rest: up to four words after the tags.
        var words: [Range<Int>] = []
        var i = space + 1
        while words.count < 4 {
            while i < n && line[i] == UInt8(ascii: " ") { i += 1 }
            guard i < n else { break }
            let j = words.count < 3 ? ByteSearch.first(UInt8(ascii: " "), in: line, from: i, to: n) : n
            words.append(i..<j)
            i = j
        }
        guard words.count >= 3 else { return }
        func word(_ k: Int, is text: [UInt8]) -> Bool { ByteSearch.equals(line, words[k], text) }
        let isChat = word(1, is: Self.privmsg) || word(1, is: Self.usernotice)
        let isCapture = word(1, is: Self.capture) && word(0, is: Self.chatcap) && words.count == 4
        let isJoined = isCapture && word(2, is: Self.joinedWord)
        let isRecord =
            (isJoined || isCapture && word(2, is: Self.gapWord)) && line[words[3].lowerBound] == UInt8(ascii: "#")
        let isStart = isCapture && word(2, is: Self.startWord)
        let isStop = isCapture && word(2, is: Self.stopWord)
        guard isChat || isRecord || isStart || isStop else { return }
        // One pass over the tags for the few this needs (the last of a key wins).
        var values = [Range<Int>?](repeating: nil, count: Self.keys.count)
        var start = 1
        while start < space {
            let end = ByteSearch.first(UInt8(ascii: ";"), in: line, from: start, to: space)
            let equals = ByteSearch.first(UInt8(ascii: "="), in: line, from: start, to: end)
            if equals < end, let key = Self.keys.firstIndex(where: { ByteSearch.equals(line, start..<equals, $0) }) {
                values[key] = (equals + 1)..<end
            }
            start = end + 1
        }
        func value(_ key: Int) -> String? { values[key].map { ByteSearch.string(line, $0) } }
        guard let received = value(0).flatMap({ Self.milliseconds($0) }) else { return }
        if isStart {
            starts.append(received)
            return
        }
        if isStop {
            stops.append(received)
            return
        }
        if isChat {
            guard let id = value(1), let sent = value(2).flatMap({ Int64($0) }) else { return }
            stored[id] = Stored(receivedMs: received, sentMs: sent)
            return
        }
        let rest = words[3]
        let channel = ByteSearch.string(
            line,
            (rest.lowerBound + 1)..<ByteSearch.first(UInt8(ascii: " "), in: line, from: rest.lowerBound + 1, to: n))
        if isJoined {
            joined[channel, default: []].append(received)
        } else if let from = value(3).flatMap({ Self.milliseconds($0) }),
            let to = value(4).flatMap({ Self.milliseconds($0) })
        {
            gaps[channel, default: []].append((from, to))
        }
    }

    /// The tags ``take(_:)-(UnsafeBufferPointer<UInt8>)`` reads, in the order it numbers them.
    private static let keys: [[UInt8]] = ["time", "id", "tmi-sent-ts", "gap-from", "gap-to"].map { Array($0.utf8) }
    private static let timePrefix = Array("@time=".utf8)
    private static let privmsg = Array("PRIVMSG".utf8)
    private static let usernotice = Array("USERNOTICE".utf8)
    private static let capture = Array("CAPTURE".utf8)
    private static let chatcap = Array(":chatcap".utf8)
    private static let joinedWord = Array("joined".utf8)
    private static let gapWord = Array("gap".utf8)
    private static let startWord = Array("start".utf8)
    private static let stopWord = Array("stop".utf8)

    /// Holds `played` (in serve's order) against what was taken; `kills` are the wall-clock moments
    /// (ms) the test killed the runs, in order; the last run was stopped.
    func audit(played: [Played], kills: [Int64]) -> Result {
        var result = Result()
        result.gaps = gaps.values.reduce(0) { $0 + $1.count }
        // The largest delivery lag of the messages stored in the 2 s up to each gap's start.
        let byReceipt = stored.values.map { ($0.receivedMs, $0.receivedMs - $0.sentMs) }.sorted { $0.0 < $1.0 }
        var lagAt: [Int64: Int64] = [:]
        for from in Set(gaps.values.flatMap { $0.map(\.from) }) {
            var end = byReceipt.partitioningIndex { $0.0 > from }
            var lag: Int64 = 0
            while end > 0 && byReceipt[end - 1].0 >= from - 2_000 {
                lag = max(lag, byReceipt[end - 1].1)
                end -= 1
            }
            lagAt[from] = lag
            result.largestLag = max(result.largestLag, lag)
        }
        // The last run: up to the last message stored, in serve's order; in its last second only up to
        // the channel's own last stored message.
        var ownLast: [String: Int] = [:]
        for (index, message) in played.enumerated() where stored[message.id] != nil { ownLast[message.channel] = index }
        let lastStored = ownLast.values.max() ?? -1
        let stopMs = stops.max()
        // Every run after the first is accountable from its start: its channels are in a gap until joined.
        let restarts = starts.sorted().dropFirst()
        let windows = joined.mapValues { joins in
            (joins + restarts).map { start in (start, kills.first { $0 > start }) }
        }
        for (index, message) in played.enumerated() {
            // After the window's start, strictly: both clocks are read to the millisecond, and a message
            // serve played in the very millisecond capture received the JOIN echo may have gone out
            // before the JOIN took effect (seen: played at .062, `joined` at .062, not sent to capture).
            let joinedThen = (windows[message.channel] ?? []).contains { start, kill in
                message.sentMs > start
                    && (kill.map { message.sentMs <= $0 }
                        ?? (index <= lastStored
                            && (index <= (ownLast[message.channel] ?? -1)
                                || stopMs.map { message.sentMs < $0 - 1_000 } ?? true)))
            }
            guard joinedThen else {
                result.unjoined += 1
                continue
            }
            result.required += 1
            if stored[message.id] != nil {
                result.stored += 1
            } else if (gaps[message.channel] ?? []).contains(where: { gap in
                gap.from - (lagAt[gap.from] ?? 0) <= message.sentMs && message.sentMs <= gap.to
            }) {
                result.inGap += 1
            } else {
                result.missingCount += 1
                if result.missing.count < 5 {
                    result.missing.append("\(message.sentMs) \(message.id) #\(message.channel)")
                    result.neighbourhoods.append(
                        neighbourhood(of: message, at: index, in: played, kills: kills, lagAt: lagAt))
                }
            }
        }
        return result
    }

    /// What surrounds a missing id, in ms from when serve played it: its channel's nearest stored ids
    /// in serve's order (played, then received by capture), the channel's gaps (with the lag that
    /// widened each one's start), `joined` records, and the kills, starts and stops, within 5 s.
    func neighbourhood(of message: Played, at index: Int, in played: [Played], kills: [Int64], lagAt: [Int64: Int64])
        -> String
    {
        let t = message.sentMs
        func near(_ ms: Int64) -> Bool { abs(ms - t) <= 5_000 }
        func nearestStored(_ range: some Sequence<Int>) -> String {
            for i in range where played[i].channel == message.channel {
                if let s = stored[played[i].id] { return "played \(s.sentMs - t), received \(s.receivedMs - t)" }
            }
            return "none"
        }
        let before = nearestStored(stride(from: index - 1, through: 0, by: -1))
        let after = nearestStored(index + 1..<played.count)
        func list(_ items: [String]) -> String { "[" + items.joined(separator: ", ") + "]" }
        func offsets(_ times: [Int64]) -> String { list(times.filter(near).map { "\($0 - t)" }) }
        let gaps = (self.gaps[message.channel] ?? []).filter { near($0.from) || near($0.to) }
            .map { "\($0.from - t)...\($0.to - t) (lag \(lagAt[$0.from] ?? 0))" }
        return "#\(message.channel) \(message.id): stored before it \(before); after it \(after); gaps \(list(gaps)); "
            + "joined \(offsets(joined[message.channel] ?? [])); kills \(offsets(kills)); starts \(offsets(starts)); "
            + "stops \(offsets(stops))"
    }

    /// The recorder's rows: `<tmi-sent-ts>\t<id>\t<channel>`.
    /// Read with ``ByteSearch`` (270,000 rows and more a case).
    static func played(_ bytes: UnsafeBufferPointer<UInt8>) -> [Played] {
        var rows: [Played] = []
        var start = 0
        while start < bytes.count {
            let end = ByteSearch.first(UInt8(ascii: "\n"), in: bytes, from: start, to: bytes.count)
            defer { start = end + 1 }
            let tab1 = ByteSearch.first(UInt8(ascii: "\t"), in: bytes, from: start, to: end)
            let tab2 = ByteSearch.first(UInt8(ascii: "\t"), in: bytes, from: tab1 + 1, to: end)
            // Three fields, none empty.
            guard tab1 > start, tab2 < end, tab2 > tab1 + 1, tab2 + 1 < end,
                ByteSearch.first(UInt8(ascii: "\t"), in: bytes, from: tab2 + 1, to: end) == end,
                let sent = Int64(ByteSearch.string(bytes, start..<tab1))
            else { continue }
            rows.append(
                Played(
                    sentMs: sent, id: ByteSearch.string(bytes, (tab1 + 1)..<tab2),
                    channel: ByteSearch.string(bytes, (tab2 + 1)..<end)))
        }
        return rows
    }

    /// `2026-11-26T13:52:04.312Z` as ms since 1970 (the form capture writes), or `nil`.
    /// An RFC 3339 instant as ms since 1970, read by the store's own parser (``Timestamp/init(rfc3339:)``),
    /// as capture wrote it: `ISO8601DateFormatter` here, once a line, was most of ``take(_:)``'s time
    /// in a debug build (a kill loop's audit reads 60,000 lines and more).
    static func milliseconds(_ text: some StringProtocol) -> Int64? {
        Timestamp(rfc3339: String(text))?.milliseconds
    }

    /// `Tests/Support/irc_recorder.py` joined to `channels` of serve at `port`, writing to `path`.
    final class Recorder {
        let process = Process()
        let path: String

        init(port: UInt16, channels: [String], path: String) throws {
            self.path = path
            // It says "joined" once every JOIN is echoed.
            let said = try startPython(
                process, arguments: [Fixtures.root + "/Tests/Support/irc_recorder.py", "\(port)", path] + channels)
            guard said == "joined" else {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
                throw ServeCLIFailure(
                    description: "the recorder did not join: \(said)")
            }
        }

        /// Stops it (SIGTERM: it writes what it received) and reads what it recorded. The recorder must
        /// still be running: one that ended (serve closed it) heard only part of what serve played.
        func stop() -> [Played] {
            #expect(
                process.isRunning,
                "the recorder ended early (exit \(process.isRunning ? 0 : process.terminationStatus))")
            if process.isRunning {
                kill(process.processIdentifier, SIGTERM)
                let deadline = Date().addingTimeInterval(10)
                while process.isRunning && Date() < deadline { usleep(20_000) }
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                process.waitUntilExit()
            }
            return [UInt8](FileManager.default.contents(atPath: path) ?? Data()).withUnsafeBufferPointer {
                CrashIdAudit.played($0)
            }
        }

        deinit {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }
    }
}

extension Array {
    /// The first index whose element satisfies `predicate`, which must be false then true along the array.
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if predicate(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
