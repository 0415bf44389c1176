import ChatHTTP
import ChatIndex
import ChatPosix
import ChatStore
import IRCWire
import TwitchSession

/// Takes the lines a ``LogTimeline`` plays in a channel: a connected client.
protocol ChannelListener: AnyObject {
    /// Whether it takes more lines now. At `--speed max` a timeline waits until every listener of the
    /// line's channel does.
    var hasRoom: Bool { get }
    /// Takes one served line (without CR LF); `untaggedStart` is where it starts without its tags.
    func receive(_ line: Span<UInt8>, untaggedStart: Int)
}

/// The log played like live chat: one position in the log that moves on with the clock, and for each
/// channel the listeners that hear its lines from the moment they joined.
///
/// ```
///  log:       ──a1──b1──a2──a3──b2──a4──▶   (lines of #a and #b, paced by their times)
///  timeline:  starts at the first JOIN ──── now
///  client 1:  joined #a at the start:  a1 a2 a3 a4
///  client 2:  joined #a after a2:               a3 a4   (no rerun of a1 a2)
///  client 3:  joined #b after b1:                  b2
/// ```
///
/// By default the server has one, shared by every client and channel (see ``TimelineHub``): it starts
/// when the first client joins a channel the log has, and every later JOIN — of another channel, or after a
/// reconnect — joins it where it is, as on Twitch. With `--from-start` each client's JOIN gets a
/// timeline of the client's own that starts at the log's start (the channels of one burst of JOINs
/// share one).
///
/// The pass starts at the log's start: its first timed line is due at once and every later line as far
/// after it as its time is after that line's, divided by the speed. A line goes to the listeners of its
/// channel that joined before it was due. With a speed the clock does not wait: while nobody listens
/// nothing is read, and the lines due meanwhile are read past when someone joins (a gap, not a rerun).
/// At `--speed max` there is no clock: the timeline moves as fast as the listeners of each line's
/// channel read (a line of a channel nobody joined is read past), and waits while it has no listener.
///
/// Lines are written for sending by a ``ServedLineWriter`` (times rebased, ids fresh on each pass of
/// `--loop` after the first) into one buffer that every listener copies from; the recording client's
/// own lines are left out (see ``RecordingFilter``). At the end of the log the timeline finishes, or
/// with `--loop` starts the next pass where the last one ended (a pass without a line of any joined
/// channel makes it wait for a new channel instead of spinning).
///
/// One ``ReplayCursor`` per timeline, so the log is read once per timeline however many channels and
/// clients it plays to. Confined to the server's loop thread.
final class LogTimeline {
    /// Log lines looked at per ``pump(now:)`` at most, so that one timeline cannot hold up the rest.
    static let linesPerTurn = 2048

    private struct Listener {
        let listener: any ChannelListener
        /// When it joined (monotonic ms): it hears the lines due from then on.
        let since: Int64
    }

    /// A joined channel.
    private struct Slot {
        let name: String
        /// Whether the log has lines of the channel: only listeners of such channels keep the timeline
        /// going (a client that first joins a channel the log lacks does not start the log).
        let isInLog: Bool
        var listeners: [Listener] = []
        /// The recording client's JOIN came and the ROOMSTATE that answered it has not.
        var roomStateDue = false
        var playedThisPass = 0
        var leftOutThisPass = 0
    }

    /// A client's name for its own timeline (`--from-start`), for reports.
    private let owner: String?
    private let cursor: ReplayCursor
    private let speed: Double?
    private let loop: Bool
    private let keepTime: Bool
    private let report: (String) -> Void
    private let rooms: RoomDirectory
    /// Records the lines played and the channels joined (the shared timeline, for recent-messages).
    private let history: RecentHistory?
    /// Wall-clock minus monotonic milliseconds at the current pump: a line due at `due` (monotonic)
    /// is played at `due + wallOffset` (ms since 1970).
    private var wallOffset: Int64 = 0
    /// The `tmi-sent-ts` of the last line written, which the next one never goes below.
    private var lastSentAtMs: Int64 = .min

    /// Joined channels; never removed, so a position stays valid.
    private var slots: [Slot] = []
    /// Channel login → its position in `slots` (``ChannelIndex/Entry/channel``): one hash of the login
    /// and one cache line a line (``slot(of:)``), the login compared inside the index.
    private var slotIndex = ChannelIndex()
    /// Listeners of channels the log has.
    private var listenerCount = 0
    /// 1 for the log's first pass.
    private(set) var pass = 1
    /// Whether a line was read: a `--from-start` timeline takes new channels only before.
    private(set) var hasStarted = false
    /// Where the pass starts (monotonic ms); `nil` until the first pump of the first pass.
    private var passStart: Int64?
    /// Pacing: the monotonic time of the pass's first timed line and its log time.
    private var origin: (monotonicMs: Int64, logMs: Int64)?
    /// When the previous line was due (paced only).
    private var lastDue: Int64?
    private var writer = ServedLineWriter()
    /// The line in ``writer`` waits, with its channel (and the channel's slot, if it had one then): for
    /// its time (paced), or for room (at `--speed max`).
    private var held: (channel: ChannelIndex.Key, slot: Int?, due: Int64)?
    private var filter = RecordingFilter()
    private(set) var isFinished = false
    /// `--loop` and the last pass had no line of a joined channel: wait for a new channel.
    private var isIdle = false
    /// Lines of the log read in this pass.
    private var readThisPass = 0

    init(
        owner: String?, log: ReplayLog, options: ServeOptions, history: RecentHistory? = nil,
        report: @escaping (String) -> Void
    ) {
        self.owner = owner
        cursor = log.makeCursor { message in report((owner.map { "\($0): " } ?? "") + message) }
        speed = options.speed
        loop = options.loop
        keepTime = options.keepTime
        self.report = report
        rooms = log.rooms
        self.history = history
    }

    /// Whether anyone listens to a channel the log has.
    var hasListeners: Bool { listenerCount > 0 }

    /// Adds `listener` to `channel` (a lower-case login without `#`); it hears the lines due from `now` on.
    func add(_ listener: any ChannelListener, channel: String, now: Int64) {
        let index = slot(for: channel)
        guard !slots[index].listeners.contains(where: { $0.listener === listener }) else { return }
        slots[index].listeners.append(Listener(listener: listener, since: now))
        if slots[index].isInLog { listenerCount += 1 }
        isIdle = false
    }

    /// Removes `listener` from `channel` (also while the timeline delivers to it).
    func remove(_ listener: any ChannelListener, channel: String) {
        var channel = channel
        guard let index = channel.withUTF8({ unsafe Self.key(of: $0.span) }).flatMap(slot(of:)) else { return }
        let before = slots[index].listeners.count
        slots[index].listeners.removeAll { $0.listener === listener }
        if slots[index].isInLog { listenerCount -= before - slots[index].listeners.count }
    }

    /// Whether `listener` listens to any channel of this timeline.
    func isHeard(by listener: any ChannelListener) -> Bool {
        slots.contains { $0.listeners.contains { $0.listener === listener } }
    }

    /// Whether `listener` listens to `channel` on this timeline.
    func isHeard(by listener: any ChannelListener, in channel: String) -> Bool {
        slots.contains { $0.name == channel && $0.listeners.contains { $0.listener === listener } }
    }

    private func slot(for channel: String) -> Int {
        var name = channel
        // A login is at most 25 bytes; the session only joins valid logins.
        let key = name.withUTF8({ unsafe Self.key(of: $0.span) })!
        if let index = slot(of: key) { return index }
        slots.append(Slot(name: channel, isInLog: rooms.has(channel)))
        history?.join(channel)
        slotIndex.insert(key, ChannelIndex.Entry(log: 0, ring: 0, channel: slots.count - 1))
        return slots.count - 1
    }

    /// The index key of a channel's login, or `nil` for an empty name or one over 32 bytes (a login has
    /// at most 25): such a line has no channel to play to.
    ///
    /// - Complexity: O(1) (at most 32 bytes). - Allocations: none.
    private static func key(of name: Span<UInt8>) -> ChannelIndex.Key? {
        guard (1...ChannelIndex.inlineBytes).contains(name.count) else { return nil }
        return ChannelIndex.key(for: name)
    }

    /// The position in `slots` of the channel whose login has `key`, if it was joined.
    ///
    /// - Complexity: O(1) expected: one cache line of the index, the login compared there.
    /// - Allocations: none.
    private func slot(of key: ChannelIndex.Key) -> Int? {
        // `confirm` is only asked for names over 32 bytes, which are never stored (``key(of:)``).
        slotIndex.entry(for: key, confirm: { _ in false })?.channel
    }

    /// When the timeline has something to do (monotonic ms; 0 for at once), or `nil` while it waits
    /// for nothing but its listeners (finished, idle, nobody listening, or at `--speed max` a listener
    /// of the held line's channel without room).
    var nextDue: Int64? {
        guard !isFinished, !isIdle, listenerCount > 0 else { return nil }
        guard let held else { return 0 }
        if speed == nil { return hasRoom(held.slot ?? slot(of: held.channel)) ? 0 : nil }
        return held.due
    }

    /// Whether every listener of the channel in slot `index` takes more lines (a channel nobody joined,
    /// `nil`, always does).
    private func hasRoom(_ index: Int?) -> Bool {
        guard let index else { return true }
        return slots[index].listeners.allSatisfy { $0.listener.hasRoom }
    }

    /// Plays what is due at `now`: delivers the held line when its time (or room) has come, then reads
    /// on until a line of a joined channel is not due yet or (at `--speed max`) its listeners have no
    /// room, or ``linesPerTurn`` lines were looked at.
    ///
    /// - Complexity: O(bytes of the lines looked at + listeners of the lines delivered).
    /// - Allocations: none per line once the writer's buffer has grown (a file pass opens its reader).
    func pump(now: Int64) {
        guard !isFinished, !isIdle, listenerCount > 0 else { return }
        // From both clocks to the nanosecond: the same offset in every turn, so that `tmi-sent-ts` never
        // goes back from one turn to the next (two clocks cut to the millisecond first were a
        // millisecond apart in about half the turns).
        let wallOffset = Moment.wallMinusMonotonicMs()
        self.wallOffset = wallOffset
        if passStart == nil { passStart = now }
        var looked = 0
        while !isFinished, !isIdle, listenerCount > 0, looked < Self.linesPerTurn {
            if let held {
                // A channel without a slot when its line was read may have been joined since.
                let index = held.slot ?? slot(of: held.channel)
                if speed == nil {
                    guard hasRoom(index) else { return }
                } else {
                    guard held.due <= now else { return }
                }
                self.held = nil
                if let index { deliver(to: index, due: held.due) }
                continue
            }
            looked += 1
            hasStarted = true
            let more = cursor.next { time, message, bytes in
                consider(time, message, bytes, now: now, wallOffset: wallOffset)
            }
            if !more { endPass(now: now) }
        }
    }

    private func consider(_ time: Int64?, _ message: TwitchMessage, _ bytes: Span<UInt8>, now: Int64, wallOffset: Int64)
    {
        readThisPass += 1
        if let time, origin == nil, speed != nil { origin = (passStart ?? now, time) }
        filter.observe(message, in: bytes)
        guard let channel = message.channel, let key = Self.key(of: bytes.extracting(channel.range)) else { return }
        // Looked up once a line: its room and its delivery take the slot.
        let index = slot(of: key)
        // At --speed max a line of a channel nobody joined is read past; with a clock it waits for its
        // time like any other, so that a channel joined meanwhile still gets it.
        if index == nil && speed == nil { return }
        var roomStateDue = index.map { slots[$0].roomStateDue } ?? false
        let ownLine = filter.isRecordingClientLine(message, in: bytes, roomStateDue: &roomStateDue)
        if let index {
            slots[index].roomStateDue = roomStateDue
            if ownLine { slots[index].leftOutThisPass += 1 }
        }
        if ownLine { return }
        let due = dueTime(of: time, now: now)
        // Never below the last line's: the offset is read again each turn, and a slewed wall clock (or
        // reads either side of a millisecond) made it a millisecond smaller now and then, so that a
        // line sent after another carried an earlier `tmi-sent-ts` (ServeSentTimeCLITests, 1 run in 6).
        // The last stamp was at most the wall time of its turn, so this is never after the send.
        let sentAtMs = max(due &+ wallOffset, lastSentAtMs)
        lastSentAtMs = sentAtMs
        writer.write(bytes, message: message, lineTime: time, sentAtMs: sentAtMs, pass: pass, keepTime: keepTime)
        if due <= now, speed != nil || hasRoom(index) {
            if let index { deliver(to: index, due: due) }
        } else {
            held = (key, index, due)
        }
    }

    /// Hands the line in ``writer`` to every listener of the channel in slot `index` that joined before
    /// it was due.
    private func deliver(to index: Int, due: Int64) {
        slots[index].playedThisPass += 1
        let untaggedStart = writer.untaggedStart
        let receivedAt = Timestamp(milliseconds: due &+ wallOffset)
        // The line and its message borrowed from the writer, and the history unretained: `let line =
        // writer.bytes` and `if let history` retained the buffer and the history a line (make alloc's
        // serve-record-history).
        // SAFETY: `history` is a `let` of this timeline, alive for the call.
        let history = unsafe self.history.map { unsafe Unmanaged.passUnretained($0) }
        unsafe writer.withLine(parsing: history != nil) { line, message in
            if let history = unsafe history, let message {
                // Taken from the parse of the log's line: the written line is not parsed again.
                unsafe history._withUnsafeGuaranteedRef { $0.record(line, message: message, receivedAt: receivedAt) }
            }
            // Iterates a copy: a listener may leave (a fault, a full queue) while it is handed the line.
            for entry in slots[index].listeners where entry.since <= due {
                entry.listener.receive(line, untaggedStart: untaggedStart)
            }
        }
    }

    /// When a line of log time `time` is due: at once without pacing; with the previous line when it
    /// has no time; else as far after the pass's start as its distance from the pass's first timed
    /// line, divided by the speed (never before the previous line).
    private func dueTime(of time: Int64?, now: Int64) -> Int64 {
        guard let speed else { return now }
        var due: Int64
        if let time, let origin {
            // Clamped to about 30,000 years, so that no log time and speed can overflow.
            let offset = min(max(0, (Double(time) - Double(origin.logMs)) / speed), 1e15)
            due = origin.monotonicMs + Int64(offset.rounded(.up))
        } else {
            due = lastDue ?? passStart ?? now
        }
        if let lastDue, due < lastDue { due = lastDue }
        lastDue = due
        return due
    }

    private func endPass(now: Int64) {
        let played = slots.reduce(0) { $0 + $1.playedThisPass }
        let leftOut = slots.reduce(0) { $0 + $1.leftOutThisPass }
        if pass == 1 || played + leftOut == 0 {
            let channels =
                slots.count <= 8
                ? slots.map { "#\($0.name) \($0.playedThisPass)" }.joined(separator: ", ") : "\(slots.count) channels"
            var text =
                (owner.map { "\($0): " } ?? "") + "end of the log (pass \(pass)): \(played) lines played (\(channels))"
            if leftOut > 0 {
                text += ", \(leftOut) lines of the recording client left out (its JOIN, names, USERSTATE, ROOMSTATE)"
            }
            if cursor.skippedLines > 0 { text += ", \(cursor.skippedLines) malformed log lines skipped" }
            if loop && readThisPass > 0 {
                text +=
                    played + leftOut > 0
                    ? "; --loop: next passes with fresh message ids" : "; waiting for a channel with lines"
            }
            report(text)
        }
        guard loop, readThisPass > 0 else {
            isFinished = true
            return
        }
        // A pass that played nothing would be followed by another: wait for a new channel instead.
        if played + leftOut == 0 { isIdle = true }
        pass += 1
        cursor.rewind()
        origin = nil
        // The next pass starts where this one ended on the clock, even if it was played late.
        passStart = speed == nil ? now : (lastDue ?? now)
        readThisPass = 0
        for index in slots.indices {
            slots[index].roomStateDue = false
            slots[index].playedThisPass = 0
            slots[index].leftOutThisPass = 0
        }
    }
}

@available(*, unavailable)
extension LogTimeline: Sendable {}
