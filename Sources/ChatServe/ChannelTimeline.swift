import ChatPosix
import IRCWire
import TwitchSession

/// Takes the lines a ``ChannelTimeline`` plays: a connected client.
protocol ChannelListener: AnyObject {
    /// Whether it takes more lines now. At `--speed max` a timeline waits until all its listeners do.
    var hasRoom: Bool { get }
    /// Takes one served line (without CR LF); `untaggedStart` is where it starts without its tags.
    func receive(_ line: Span<UInt8>, untaggedStart: Int)
}

/// One channel played from the log, like a live channel: a position in the log that moves on with
/// the clock, and the listeners that hear it from the moment they joined.
///
/// ```
///  log:       ──a──b──c──d──e──f──g──▶  (lines of the channel, paced by their times)
///  timeline:  starts at the first JOIN ─────── now
///  client 1:  joined at the start: a b c d e f g
///  client 2:  joined after c:            d e f g      (no rerun of a b c)
/// ```
///
/// By default the server keeps one per channel, started by the channel's first JOIN and shared by
/// every client (see ``TimelineHub``); with `--from-start` each client's JOIN starts one of its own.
/// The pass starts at the log's start: its first timed line (of any channel) is due at once and every
/// later line as far after it as its time is after that line's, divided by the speed. A line goes to
/// the listeners that joined before it was due. With a speed the clock does not wait: lines due while
/// nobody listens are read past when someone joins (a gap, not a rerun). At `--speed max` there is no
/// clock: the timeline moves as fast as its slowest listener reads, and waits while it has none.
///
/// Lines are written for sending by a ``ServedLineWriter`` (times rebased, ids fresh on each pass of
/// `--loop` after the first) into one buffer that every listener copies from; the recording client's
/// own lines are left out (see ``RecordingFilter``). At the end of the log the timeline finishes, or
/// with `--loop` starts the next pass where the last one ended (a pass without a line of the channel
/// ends it too, so an empty channel does not spin).
///
/// Confined to the server's loop thread.
final class ChannelTimeline {
    /// Log lines looked at per ``pump(now:)`` at most, so that one timeline cannot hold up the others.
    static let linesPerTurn = 2048

    /// The channel (a lower-case login without `#`).
    let channel: String
    private let channelBytes: [UInt8]
    /// `#channel`, or the client's name and the channel for a client's own timeline, for reports.
    private let label: String
    private let cursor: ReplayCursor
    private let speed: Double?
    private let loop: Bool
    private let keepTime: Bool
    private let report: (String) -> Void

    private var listeners: [(listener: any ChannelListener, since: Int64)] = []
    /// 1 for the log's first pass.
    private(set) var pass = 1
    /// Where the pass starts (monotonic ms); `nil` until the first pump of the first pass.
    private var passStart: Int64?
    /// Pacing: the monotonic time of the pass's first timed line and its log time.
    private var origin: (monotonicMs: Int64, logMs: Int64)?
    /// When the previous line was due (paced only).
    private var lastDue: Int64?
    private var writer = ServedLineWriter()
    /// When the line in ``writer`` is due, if it is held for its time.
    private var heldDue: Int64?
    private var filter = RecordingFilter()
    private(set) var isFinished = false
    /// Lines of the channel in this pass: served, and left out as the recording client's.
    private var seenThisPass = 0
    private var servedThisPass = 0
    private var leftOutThisPass = 0
    /// Lines played over all passes (whether anyone listened or not).
    private(set) var linesPlayed = 0

    init(channel: String, label: String, log: ReplayLog, options: ServeOptions, report: @escaping (String) -> Void) {
        self.channel = channel
        channelBytes = Array(channel.utf8)
        self.label = label
        cursor = log.makeCursor { message in report("\(label): \(message)") }
        speed = options.speed
        loop = options.loop
        keepTime = options.keepTime
        self.report = report
    }

    /// Whether anyone listens.
    var hasListeners: Bool { !listeners.isEmpty }

    /// Adds `listener`; it hears the lines due from `now` on.
    func add(_ listener: any ChannelListener, now: Int64) {
        guard !listeners.contains(where: { $0.listener === listener }) else { return }
        listeners.append((listener, now))
    }

    /// Removes `listener` (also while the timeline delivers to it).
    func remove(_ listener: any ChannelListener) {
        listeners.removeAll { $0.listener === listener }
    }

    /// When the timeline has something to do (monotonic ms; 0 for at once), or `nil` while it waits
    /// for nothing but its listeners (finished, nobody listening, or a listener without room at
    /// `--speed max`).
    var nextDue: Int64? {
        guard !isFinished, !listeners.isEmpty else { return nil }
        if let heldDue { return heldDue }
        return canDeliver ? 0 : nil
    }

    private var canDeliver: Bool {
        speed != nil || listeners.allSatisfy { $0.listener.hasRoom }
    }

    /// Plays what is due at `now`: delivers the held line when its time has come, then reads on until
    /// a line is not due yet (it is held), a listener has no room (`--speed max`), or
    /// ``linesPerTurn`` lines were looked at.
    ///
    /// - Complexity: O(bytes of the lines looked at + listeners × lines delivered).
    /// - Allocations: none per line once the writer's buffer has grown (a file pass opens its reader).
    func pump(now: Int64) {
        guard !isFinished, !listeners.isEmpty else { return }
        let clock = Moment.now()
        let wallOffset = clock.wallMs - clock.monotonicMs
        if passStart == nil { passStart = now }
        var looked = 0
        while !isFinished, !listeners.isEmpty, looked < Self.linesPerTurn {
            if let due = heldDue {
                guard due <= now else { return }
                heldDue = nil
                deliver(due: due)
                continue
            }
            guard canDeliver else { return }
            looked += 1
            let more = cursor.next { time, message, bytes in
                consider(time, message, bytes, now: now, wallOffset: wallOffset)
            }
            if !more { endPass(now: now) }
        }
    }

    private func consider(_ time: Int64?, _ message: TwitchMessage, _ bytes: Span<UInt8>, now: Int64, wallOffset: Int64)
    {
        if let time, origin == nil, speed != nil { origin = (passStart ?? now, time) }
        filter.observe(message, in: bytes)
        guard let channel = message.channel, isOurs(bytes.extracting(channel.range)) else { return }
        seenThisPass += 1
        if filter.isRecordingClientLine(message, in: bytes) {
            leftOutThisPass += 1
            return
        }
        let due = dueTime(of: time, now: now)
        writer.write(
            bytes, message: message, lineTime: time, sentAtMs: due + wallOffset, pass: pass, keepTime: keepTime)
        if due <= now {
            deliver(due: due)
        } else {
            heldDue = due
        }
    }

    /// Hands the line in ``writer`` to every listener that joined before it was due.
    private func deliver(due: Int64) {
        servedThisPass += 1
        linesPlayed += 1
        let untaggedStart = writer.untaggedStart
        // Iterates a copy: a listener may leave (a fault, a full queue) while it is handed the line.
        for (listener, since) in listeners where since <= due {
            listener.receive(writer.bytes.span, untaggedStart: untaggedStart)
        }
    }

    /// When a line of log time `time` is due: at once without pacing; with the previous line when it
    /// has no time; else as far after the pass's start as its distance from the pass's first timed
    /// line, divided by the speed (never before the previous line).
    private func dueTime(of time: Int64?, now: Int64) -> Int64 {
        guard let speed else { return now }
        let start = passStart ?? now
        var due: Int64
        if let time, let origin {
            // Clamped to about 30,000 years, so that no log time and speed can overflow.
            let offset = min(max(0, Double(time - origin.logMs) / speed), 1e15)
            due = origin.monotonicMs + Int64(offset.rounded(.up))
        } else {
            due = lastDue ?? start
        }
        if let lastDue, due < lastDue { due = lastDue }
        lastDue = due
        return due
    }

    private func endPass(now: Int64) {
        if pass == 1 || !loop || seenThisPass == 0 {
            var text = "\(label): end of the log (pass \(pass)): \(servedThisPass) lines played"
            if leftOutThisPass > 0 {
                text +=
                    ", \(leftOutThisPass) lines of the recording client left out (its JOIN, names, USERSTATE, ROOMSTATE)"
            }
            if cursor.skippedLines > 0 { text += ", \(cursor.skippedLines) malformed log lines skipped" }
            if loop && seenThisPass > 0 { text += "; --loop: next passes with fresh message ids" }
            report(text)
        }
        guard loop, seenThisPass > 0 else {
            isFinished = true
            return
        }
        pass += 1
        cursor.rewind()
        filter.rewind()
        origin = nil
        // The next pass starts where this one ended on the clock, even if it was played late.
        passStart = speed == nil ? now : (lastDue ?? now)
        seenThisPass = 0
        servedThisPass = 0
        leftOutThisPass = 0
    }

    /// Whether `channel` (a login from the log) is this timeline's.
    private func isOurs(_ channel: Span<UInt8>) -> Bool {
        guard channel.count == channelBytes.count else { return false }
        for i in 0..<channelBytes.count where channelBytes[i] != channel[i] { return false }
        return true
    }
}

@available(*, unavailable)
extension ChannelTimeline: Sendable {}
