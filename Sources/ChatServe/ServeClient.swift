import ChatNet
import ChatPosix
import ChatStore
import IRCWire
import TwitchSession

/// One connected client: its transport (plain ``TCPConnection`` or server-side ``TLSConnection``),
/// the framer for what it sends, its ``ServeSession``, the ``LogTimeline``s that play the channels it
/// joined, and its keepalive.
///
/// The server calls ``readAvailable(now:)`` when the descriptor is readable, ``flush()`` when it is
/// writable, and ``pump(now:)`` after either and when ``nextDue`` has come; ``closeReason`` says when
/// to close it. A timeline hands each line to its listeners, which copy it into their write queues
/// (one copy per client, from the timeline's buffer). At `--speed max` a timeline waits while a
/// listener has ``highWater`` bytes queued, so a slow reader holds the replay back instead of piling
/// up the log (back-pressure); a paced timeline does not wait, and a client that lets
/// ``maxQueued`` bytes pile up is closed, as Twitch drops a client that does not read.
///
/// Keepalive: once logged in, the client gets `PING :tmi.twitch.tv` every
/// ``ServeOptions/pingIntervalMs``, and is closed when a PING goes unanswered (no PONG) for
/// ``ServeOptions/pongTimeoutMs``. Before that, a client that has not completed the WebSocket
/// upgrade and the login within ``ServeOptions/loginTimeoutMs`` of being accepted is closed. The
/// write queue bound (``maxQueued``) is checked after each read too: a WebSocket client's pings queue
/// pongs, and the pongs it owes without reading count (``WebSocketStream/owedPongBytes``).
///
/// Confined to the server's loop thread.
final class ServeClient: ChannelListener, ChannelMember {
    /// At `--speed max`, a timeline waits while this many bytes are queued for one of its listeners.
    static let highWater = 32 * 1024
    /// Close a client that lets this many bytes pile up without reading.
    static let maxQueued = 1024 * 1024

    let number: Int
    let transport: any ByteStream
    let peer: String
    /// The peer's IP address (without the port), for the per-address cap.
    let address: String
    private let context: ServeContext
    private var framer = LineFramer(maxLineLength: 8 * 1024, bufferCapacity: 16 * 1024)
    private(set) var session = ServeSession()
    /// ``ServeSession/sendsTags``, kept up to date after each command (read per line).
    private var sendsTags = false

    /// The timelines that play the channels joined: the shared one, or (`--from-start`) its own.
    private var timelines: [LogTimeline] = []
    /// `--stall-after` fired: nothing more is sent or answered.
    private(set) var isStalled = false
    /// A timeline or a relay queued lines outside this client's own ``pump(now:)``: it needs a turn
    /// to write them.
    private var needsService = false
    /// Replayed lines queued for this client.
    private(set) var linesSent = 0
    /// Lines of other clients relayed to this one.
    private(set) var linesRelayed = 0
    private var faultFired = false
    /// `--reconnect-grace`: when a client that was sent RECONNECT is closed; it plays until then.
    private var reconnectClose: (at: Int64, after: Int)?
    /// Keepalive: when the next PING goes out, and when an unanswered one times out.
    private var nextPingAt: Int64?
    private var pongDeadline: Int64?
    /// When a client that has not logged in is closed; `nil` once it has.
    private var loginDeadline: Int64?
    /// Whether the server welcomed the client (upgrade and login done).
    var isLoggedIn: Bool { loginDeadline == nil }
    /// Set when the client must be closed (after its queue is written, unless ``isForced``).
    private(set) var closeReason: CloseReason?
    /// The connection cannot or need not be written to any more: close without flushing.
    private var isForced = false
    /// Whether the first bytes were looked at for a TLS handshake (plain connections only).
    private var checkedForTLS: Bool
    /// The interest last registered with the loop.
    var registeredInterest: EventLoop.Interest = .readable

    init(number: Int, transport: any ByteStream, peer: String, address: String, context: ServeContext, now: Int64) {
        self.number = number
        self.transport = transport
        self.peer = peer
        self.address = address
        self.context = context
        loginDeadline = now + context.options.loginTimeoutMs
        checkedForTLS = !(transport is TCPConnection)
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

    /// When the client needs its next ``pump(now:)`` (monotonic milliseconds; 0 for at once): lines
    /// queued by others to write, a line of a timeline due, a PING to send or one that timed out.
    ///
    /// - Complexity: O(timelines joined).
    var nextDue: Int64? {
        if needsService { return 0 }
        guard closeReason == nil, !isStalled else { return nil }
        var earliest = min(
            nextPingAt ?? .max, pongDeadline ?? .max, loginDeadline ?? .max, reconnectClose?.at ?? .max)
        for timeline in timelines {
            if let due = timeline.nextDue, due < earliest { earliest = due }
        }
        return earliest == .max ? nil : earliest
    }

    /// What to wait for: the transport's wish, plus writability while replay lines are ready now.
    func interest(now: Int64) -> EventLoop.Interest {
        var interest = transport.interest
        if hasReadyLines(now: now) { interest.insert(.writable) }
        return interest
    }

    private func hasReadyLines(now: Int64) -> Bool {
        guard closeReason == nil, !isStalled, transport.pendingWriteCount < Self.highWater else { return false }
        return timelines.contains { ($0.nextDue ?? .max) <= now }
    }

    // MARK: Reading

    /// Reads and answers everything the client sent, until the socket has nothing more.
    ///
    /// - Complexity: O(bytes read) plus the replies. - Allocations: per command (the control path).
    func readAvailable(now: Int64) {
        if !checkedForTLS, let tls = TLSClientHello.waiting(on: transport.fileDescriptor) {
            checkedForTLS = true
            if tls {
                TLSClientHello.refuse(transport.fileDescriptor)
                close(.tlsOnPlainPort)
                return
            }
        }
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
            if closeReason == nil, transport.pendingWriteCount > Self.maxQueued {
                close(.notReading(queued: transport.pendingWriteCount))  // pings queued pongs
                return
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
        guard !isStalled, closeReason == nil, bytes.count > 0 else { return }
        let command: ClientCommand
        do {
            command = try ClientCommand(parsing: bytes)
        } catch {
            return
        }
        let actions = session.receive(
            command, refused: context.options.faults.refusedChannels, rooms: context.log.rooms,
            unknownChannel: context.options.unknownChannel)
        sendsTags = session.sendsTags
        for action in actions {
            switch action {
            case .send(let line):
                send(line)
            case .registered:
                loginDeadline = nil
                nextPingAt = now + context.options.pingIntervalMs
            case .joined(let channel):
                context.report("\(name) joined #\(channel)")
                join(channel, now: now)
            case .unknownChannel(let channel, _):
                context.report(context.hub.unknownChannelReport(channel, client: name))
            case .parted(let channel):
                leave(channel)
                context.report("\(name) left #\(channel)")
            case .refused(let channel):
                context.report("\(name) was refused #\(channel) (--refuse-join)")
            case .said(let channel, let text, let id):
                context.report("\(name) says in #\(channel): \(ServeSession.printable(text))")
                relay(text, to: channel, id: id)
            case .pong:
                pongDeadline = nil
            case .quit:
                close(.quit)
            }
        }
        if transport.pendingWriteCount > Self.maxQueued {
            close(.notReading(queued: transport.pendingWriteCount))
        }
    }

    // MARK: Channels

    /// Starts hearing `channel`: from now on the shared timeline, or (``ServeOptions/fromStart``) from
    /// the log's start on a timeline of its own. A fault of count 0 fires here.
    private func join(_ channel: String, now: Int64) {
        guard closeReason == nil, !isStalled else { return }
        context.hub.enter(self, channel)
        if !timelines.contains(where: { $0.isHeard(by: self, in: channel) }) {
            let timeline = context.hub.timeline(owner: name, own: timelines)
            timeline.add(self, channel: channel, now: now)
            if !timelines.contains(where: { $0 === timeline }) { timelines.append(timeline) }
        }
        fireFaultIfDue()
    }

    private func leave(_ channel: String) {
        context.hub.leave(self, channel)
        for timeline in timelines { timeline.remove(self, channel: channel) }
        timelines.removeAll { !$0.isHeard(by: self) }
    }

    /// Leaves every channel: nothing more is played or relayed to this client.
    private func leaveAll() {
        for channel in session.channels {
            context.hub.leave(self, channel)
            for timeline in timelines { timeline.remove(self, channel: channel) }
        }
        timelines.removeAll()
    }

    /// Hands `text` to the other clients in `channel`, tagged as Twitch delivers a chat message.
    private func relay(_ text: String, to channel: String, id: String) {
        let line = session.relayedPrivmsg(
            channel: channel, text: text, id: id, roomId: context.log.rooms.id(of: channel),
            sentAtMs: Moment.now().wall.milliseconds)
        for member in context.hub.members(of: channel) where member !== self {
            member.receiveRelayed(line)
        }
    }

    // MARK: ChannelListener, ChannelMember

    /// Whether a timeline at `--speed max` may hand this client another line.
    var hasRoom: Bool {
        closeReason != nil || isStalled || transport.pendingWriteCount < Self.highWater
    }

    /// Queues a replayed line (without its tags unless the client asked for them), counts it and fires
    /// a fault whose count is reached.
    ///
    /// - Complexity: O(line length). - Allocations: none once the write queue has grown.
    func receive(_ line: Span<UInt8>, untaggedStart: Int) {
        guard closeReason == nil, !isStalled else { return }
        transport.enqueue(line: sendsTags ? line : line.extracting(untaggedStart...))
        needsService = true
        linesSent += 1
        fireFaultIfDue()
        if closeReason == nil, transport.pendingWriteCount > Self.maxQueued {
            close(.notReading(queued: transport.pendingWriteCount))
        }
    }

    /// Queues a line another client said in a channel this one is in.
    func receiveRelayed(_ line: String) {
        guard closeReason == nil, !isStalled else { return }
        if sendsTags {
            send(line)
        } else if let space = line.firstIndex(of: " ") {
            send(String(line[line.index(after: space)...]))
        }
        needsService = true
        linesRelayed += 1
    }

    // MARK: Playing

    /// Sends a PING or closes the client when one timed out, and plays what its timelines have due.
    ///
    /// - Complexity: O(lines played, see ``LogTimeline/pump(now:)``).
    /// - Allocations: none per line once queues have grown.
    func pump(now: Int64) {
        needsService = false
        guard closeReason == nil, !isStalled else { return }
        if let deadline = loginDeadline, deadline <= now {
            close(.noLogin(timeoutMs: context.options.loginTimeoutMs))
            return
        }
        if let deadline = pongDeadline, deadline <= now {
            close(.noPong(timeoutMs: context.options.pongTimeoutMs))
            return
        }
        if let (deadline, after) = reconnectClose, deadline <= now {
            close(.reconnectSent(after: after))
            return
        }
        if let next = nextPingAt, next <= now {
            send("PING :\(ServeSession.server)")
            if pongDeadline == nil { pongDeadline = now + context.options.pongTimeoutMs }
            nextPingAt = now + context.options.pingIntervalMs
        }
        // A copy: a fault may close the client (and empty `timelines`) while a timeline plays.
        for timeline in timelines {
            timeline.pump(now: now)
        }
        needsService = false
    }

    private func fireFaultIfDue() {
        guard !faultFired, let fault = context.options.faults.due(afterSent: linesSent) else { return }
        faultFired = true
        switch fault {
        case .reconnect:
            send(":\(ServeSession.server) RECONNECT")
            let grace = context.options.faults.reconnectGraceMs
            if grace > 0 {
                // As Twitch: the connection goes on playing for a while, then closes.
                reconnectClose = (Moment.now().monotonicMs + grace, linesSent)
            } else {
                close(.reconnectSent(after: linesSent))
            }
        case .drop:
            close(.dropped(after: linesSent))
        case .stall:
            isStalled = true
            leaveAll()
            nextPingAt = nil
            pongDeadline = nil
            context.report("\(name) stalled after \(linesSent) lines (--stall-after)")
        }
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
        leaveAll()
        switch reason {
        case .quit, .reconnectSent, .dropped:
            if closeReason == nil { closeReason = reason }
        case .clientClosed, .failed, .notReading, .noPong, .noLogin, .evicted, .serverStopping, .tlsOnPlainPort:
            if closeReason == nil || closeReason == .quit { closeReason = reason }
            isForced = true
        }
    }

    /// The line reported when the client goes.
    var farewell: String {
        var text = "\(name) disconnected: \(linesSent) line\(linesSent == 1 ? "" : "s") sent"
        if linesRelayed > 0 { text += ", \(linesRelayed) relayed" }
        if let closeReason { text += "; \(closeReason)" }
        return text
    }
}

@available(*, unavailable)
extension ServeClient: Sendable {}
