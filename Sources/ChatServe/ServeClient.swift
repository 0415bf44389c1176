import ChatNet
import ChatPosix
import IRCWire

/// One connected client: its transport (plain ``TCPConnection`` or server-side ``TLSConnection``),
/// the framer for what it sends, its ``ServeSession`` and its replay position, paced and filtered to
/// the channels it joined.
///
/// The server calls ``readAvailable(now:)`` when the descriptor is readable, ``flush()`` when it is
/// writable, and ``pump(now:)`` after either and when ``nextDue`` has come; ``closeReason`` says when
/// to close it. Replayed lines are copied once, from the log reader's buffer into the write queue;
/// at most about ``highWater`` bytes are queued, so a slow reader holds the replay back instead of
/// piling up the log (back-pressure).
///
/// Confined to the server's loop thread.
final class ServeClient {
    /// Where the replay stands.
    enum ReplayState: Equatable {
        /// Nothing joined yet.
        case waiting
        case running
        /// The log ended (and `--loop` is off, or the last pass sent nothing to this client).
        case finished
        /// `--stall-after` fired: nothing more is sent or answered.
        case stalled
    }

    /// Why the connection is to be closed.
    enum CloseReason: Equatable, CustomStringConvertible {
        case clientClosed
        case quit
        case reconnectSent(after: Int)
        case dropped(after: Int)
        case notReading(queued: Int)
        case failed(String)
        case serverStopping

        var description: String {
            switch self {
            case .clientClosed: "the client closed the connection"
            case .quit: "the client quit"
            case .reconnectSent(let n): "sent RECONNECT after \(n) lines (--reconnect-after)"
            case .dropped(let n): "dropped after \(n) lines (--drop-after)"
            case .notReading(let queued): "the client does not read (\(queued) bytes queued)"
            case .failed(let message): message
            case .serverStopping: "the server is stopping"
            }
        }
    }

    /// Stop pulling replay lines while this many bytes are queued.
    static let highWater = 32 * 1024
    /// Close a client that lets this many bytes of replies pile up without reading.
    static let maxQueued = 1024 * 1024
    /// Log lines looked at per ``pump(now:)`` at most, so that one client cannot hold up the others.
    static let linesPerTurn = 2048

    let number: Int
    let transport: any ByteStream
    let peer: String
    private let context: ServeContext
    private var framer = LineFramer(maxLineLength: 8 * 1024, bufferCapacity: 16 * 1024)
    private(set) var session = ServeSession()
    /// ``ServeSession/channels`` as bytes, for comparing with the log's channel ranges.
    private var channelBytes: [[UInt8]] = []

    private(set) var state = ReplayState.waiting
    private var cursor: ReplayCursor?
    /// Pacing: the monotonic time the pass started and the log time of its first timed line.
    private var origin: (monotonicMs: Int64, logMs: Int64)?
    /// A line read from the log that is not due yet (paced replay only).
    private var held: [UInt8] = []
    private var heldDue: Int64?
    /// Replayed lines queued for this client, over all passes.
    private(set) var linesSent = 0
    private var linesThisPass = 0
    private var faultFired = false
    /// Set when the client must be closed (after its queue is written, unless ``isForced``).
    private(set) var closeReason: CloseReason?
    /// The connection cannot or need not be written to any more: close without flushing.
    private var isForced = false
    /// The interest last registered with the loop.
    var registeredInterest: EventLoop.Interest = .readable

    init(number: Int, transport: any ByteStream, peer: String, context: ServeContext) {
        self.number = number
        self.transport = transport
        self.peer = peer
        self.context = context
    }

    /// `#3 127.0.0.1:54321 (justinfan123)`, for reports.
    var name: String {
        "client #\(number) \(peer)" + (session.nick.map { " (\($0))" } ?? "")
    }

    /// Whether the client is ready to be closed now: a reason is set and either nothing more can be
    /// written or everything queued was written.
    var isDone: Bool {
        closeReason != nil && (isForced || transport.pendingWriteCount == 0)
    }

    /// When the held line is due (monotonic milliseconds), if the replay waits for one.
    var nextDue: Int64? {
        state == .running && closeReason == nil ? heldDue : nil
    }

    /// What to wait for: the transport's wish, plus writability while replay lines are ready now.
    func interest(now: Int64) -> EventLoop.Interest {
        var interest = transport.interest
        if hasReadyLines(now: now) { interest.insert(.writable) }
        return interest
    }

    private func hasReadyLines(now: Int64) -> Bool {
        guard state == .running, closeReason == nil, transport.pendingWriteCount < Self.highWater else { return false }
        if let heldDue { return heldDue <= now }
        return true
    }

    // MARK: Reading

    /// Reads and answers everything the client sent, until the socket has nothing more.
    ///
    /// - Complexity: O(bytes read) plus the replies. - Allocations: per command (the control path).
    func readAvailable(now: Int64) {
        while !isForced {
            let outcome: ReadOutcome
            do {
                outcome = try transport.read(into: &framer)
            } catch {
                close(.failed("\(error)"))
                return
            }
            while let event = framer.nextLine() {
                guard case .line(let line) = event else { continue }  // over-long: ignored
                framer.withBytes(of: line) { bytes in handle(bytes, now: now) }
            }
            switch outcome {
            case .bytes: continue
            case .wouldBlock: return
            case .endOfStream:
                close(.clientClosed)
                return
            }
        }
    }

    private func handle(_ bytes: Span<UInt8>, now: Int64) {
        guard state != .stalled, closeReason == nil, bytes.count > 0 else { return }
        let command: ClientCommand
        do {
            command = try ClientCommand(parsing: bytes)
        } catch {
            return
        }
        let actions = session.receive(
            command, refused: context.options.faults.refusedChannels, rooms: context.log.rooms)
        for action in actions {
            switch action {
            case .send(let line):
                send(line)
            case .joined(let channel):
                if !channelBytes.contains(Array(channel.utf8)) { channelBytes.append(Array(channel.utf8)) }
                context.report("\(name) joined #\(channel)")
                startReplay()
            case .parted(let channel):
                channelBytes.removeAll { $0 == Array(channel.utf8) }
                context.report("\(name) left #\(channel)")
            case .refused(let channel):
                context.report("\(name) was refused #\(channel) (--refuse-join)")
            case .said(let channel, let text):
                context.report("\(name) says in #\(channel): \(ServeSession.printable(text))")
            case .quit:
                close(.quit)
            }
        }
        if transport.pendingWriteCount > Self.maxQueued {
            close(.notReading(queued: transport.pendingWriteCount))
        }
    }

    // MARK: Replay

    private func startReplay() {
        switch state {
        case .waiting:
            cursor = context.log.makeCursor { [context, name] message in context.report("\(name): \(message)") }
            beginPass()
        case .finished where context.options.loop:
            cursor?.rewind()
            beginPass()
        default:
            return
        }
        fireFaultIfDue()
    }

    private func beginPass() {
        state = .running
        origin = nil
        linesThisPass = 0
    }

    /// Queues replay lines that are due, up to the high-water mark, and fires a fault when its count
    /// is reached.
    ///
    /// - Complexity: O(bytes of the lines looked at), at most ``linesPerTurn`` lines.
    /// - Allocations: none per line once the queue and the held-line buffer have grown.
    func pump(now: Int64) {
        var looked = 0
        let sendsTags = session.sendsTags  // the session changes only when the client sends a command
        while state == .running, closeReason == nil, transport.pendingWriteCount < Self.highWater,
            looked < Self.linesPerTurn
        {
            if let due = heldDue {
                guard due <= now else { return }
                heldDue = nil
                transport.enqueue(line: held.span)
                countLine()
                continue
            }
            guard let cursor else { return }
            looked += 1
            var sent = false
            let more = cursor.next { time, channel, untaggedStart, bytes in
                guard let channel, joined(bytes.extracting(channel.range)) else {
                    if let time, origin == nil { origin = (now, time) }
                    return
                }
                let line = bytes.extracting((sendsTags ? 0 : untaggedStart)...)
                let due = dueTime(of: time, now: now)
                if due <= now {
                    transport.enqueue(line: line)
                    sent = true
                } else {
                    held.removeAll(keepingCapacity: true)
                    for i in line.indices { held.append(line[i]) }
                    heldDue = due
                }
            }
            if sent { countLine() }
            if !more { endPass() }
        }
    }

    private func countLine() {
        linesSent += 1
        linesThisPass += 1
        fireFaultIfDue()
    }

    private func endPass() {
        if context.options.loop && linesThisPass > 0 {
            cursor?.rewind()
            beginPass()
        } else {
            state = .finished
        }
    }

    /// When a line of log time `time` is due: at once without pacing or a time, else as far after the
    /// pass's start as its distance from the pass's first timed line, divided by the speed, but at
    /// most ``Seconds/maximumMilliseconds`` (100 years) after it: no speed and no line time a client
    /// can make the server read (a JOIN picks the log) overflows the arithmetic.
    private func dueTime(of time: Int64?, now: Int64) -> Int64 {
        guard let speed = context.options.speed, let time else { return now }
        guard let origin else {
            origin = (now, time)
            return now
        }
        // In `Double`: neither the difference of two `Int64` times nor its quotient can trap.
        let offset = (Double(time) - Double(origin.logMs)) / speed
        return origin.monotonicMs + Seconds.milliseconds(fromMilliseconds: offset)
    }

    private func fireFaultIfDue() {
        guard !faultFired, let fault = context.options.faults.due(afterSent: linesSent) else { return }
        faultFired = true
        switch fault {
        case .reconnect:
            send(":\(ServeSession.server) RECONNECT")
            close(.reconnectSent(after: linesSent))
        case .drop:
            close(.dropped(after: linesSent))
        case .stall:
            state = .stalled
            heldDue = nil
            context.report("\(name) stalled after \(linesSent) lines (--stall-after)")
        }
    }

    /// Whether `channel` (a login from the log) is one the client joined.
    private func joined(_ channel: Span<UInt8>) -> Bool {
        for joined in channelBytes where joined.count == channel.count {
            var equal = true
            for i in 0..<joined.count where joined[i] != channel[i] {
                equal = false
                break
            }
            if equal { return true }
        }
        return false
    }

    // MARK: Writing and closing

    /// Queues a control line (built as a string) and CR LF.
    private func send(_ line: String) {
        var line = line
        // SAFETY: the string's UTF-8 storage is lent only for the closure; the span is used inside it.
        line.withUTF8 { unsafe transport.enqueue(line: $0.span) }
    }

    /// Writes what the socket takes.
    func flush() {
        do {
            try transport.flush()
        } catch {
            close(.failed("\(error)"))
        }
    }

    /// Marks the client for closing. A graceful reason (QUIT, a fault) waits for the queue to be
    /// written and keeps its place in the report; a hard one (end of stream, an error, shutdown)
    /// closes at once and names the reason unless a graceful one came first.
    func close(_ reason: CloseReason) {
        switch reason {
        case .quit, .reconnectSent, .dropped:
            if closeReason == nil { closeReason = reason }
        case .clientClosed, .failed, .notReading, .serverStopping:
            if closeReason == nil || closeReason == .quit { closeReason = reason }
            isForced = true
        }
    }

    /// The line reported when the client goes.
    var farewell: String {
        var text = "\(name) disconnected: \(linesSent) lines sent"
        if let skipped = cursor?.skippedLines, skipped > 0 { text += ", \(skipped) malformed log lines skipped" }
        if let closeReason { text += "; \(closeReason)" }
        return text
    }
}

@available(*, unavailable)
extension ServeClient: Sendable {}
