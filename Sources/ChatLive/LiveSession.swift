import ChatCurl
import ChatNet
public import ChatPosix
public import IRCWire
public import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

/// Live chat: one ingest thread running an epoll loop over the connections of a ``ConnectionPlan``
/// (at most ``ConnectionSettings/channelsPerConnection`` channels each, first opened
/// ``ConnectionSettings/connectSpacingMs`` apart), each driven by its ``ConnectionMachine`` and
/// reconnecting on its own with gap records for its channels. All connections share one JOIN pace
/// (``ConnectionSettings/joinLimit`` per ``ConnectionSettings/joinWindowMs``). Bytes are read straight into each connection's
/// ``LineFramer`` (allocated once), lines are parsed in place and handed to `onLine` — no copy and no
/// thread hop per line. Session records (connections, JOIN outcomes, gaps) go to `onRecord`, lines
/// that could not be used (``LiveProblem``) to `onProblem`. `tail` hands all three to ChatOutput's
/// `OutputPipeline` (`OutputPipeline+Live.swift`), `watch` to its `LiveFeed`, `capture` to its writer.
///
/// Connecting (name resolution, TCP connect, TLS handshake) blocks the loop for at most the
/// endpoint's timeout; chat of other connections waits meanwhile (documented trade-off: connections
/// are opened at least 2 s apart and rarely).
public final class LiveSession {
    public typealias LineHandler = (Span<UInt8>, TwitchMessage, _ receivedAt: Moment, _ lineNumber: Int) -> Void
    public typealias RecordHandler = (SessionRecord) -> Void
    public typealias ProblemHandler = (LiveProblem) -> Void

    final class Connection {
        var machine: ConnectionMachine
        /// Plain ``TCPConnection`` or ``TLSConnection``, or a ``WebSocketStream`` over either, as the
        /// endpoint says.
        var stream: (any ByteStream)? = nil
        /// What the stream's descriptor is registered for, so the loop changes it only when it differs.
        var registered: EventLoop.Interest = []
        var framer = LineFramer()
        /// Whether the current connection has received any byte (a reset before the first one on a
        /// plain connection hints at a TLS port).
        var receivedAny = false
        var connectAt: Int64? = nil
        var lines = 0
        /// The read budget ran out before the stream would block: service again before waiting.
        var hasMore = false
        /// ``LiveSession/drain(_:receivedAt:)`` is handing out the framer's lines: a close meanwhile
        /// leaves the framer alone, so that every complete line already received is still handled.
        var isDraining = false
        /// Why the stream was closed while draining: the partial line left is reported with it.
        var closedWhileDraining: DisconnectReason? = nil
        /// After RECONNECT: the old connection, kept open beside this one (its replacement) until the
        /// machine says `.closeRetired` or it ends.
        var retiring: Connection? = nil
        /// Set on a retiring connection: the connection it hands over to. Its lines are chat only
        /// (PINGs answered); its end is told to the owner's machine.
        weak var owner: Connection? = nil
        /// `.handOver` came while draining: the stream moves to a retiring connection when the drain ends.
        var handOverRequested = false
        /// Writes the lines of an overlap once; dropped ``LiveSession/overlapLingerMs`` after the
        /// retiring connection is gone (the replacement may still hold copies it had not read).
        var overlap: OverlapFilter? = nil
        var overlapUntil: Int64? = nil
        init(machine: ConnectionMachine) { self.machine = machine }
    }

    public let endpoint: Endpoint
    /// The connections, in order; ``update(adding:removing:)`` may append one.
    var connections: [Connection]
    /// What a connection opened by ``update(adding:removing:)`` logs in and behaves with.
    let credentials: Credentials
    let settings: ConnectionSettings
    private let loop: EventLoop
    private let tlsContext: TLSContext?
    private let onLine: LineHandler
    private let onRecord: RecordHandler
    private let onProblem: ProblemHandler
    /// Raised (from any thread, e.g. a signal handler's flag poller) to end ``run(until:)``.
    public let stop: StopFlag
    /// Called on the ingest thread at least every 250 ms (e.g. to publish view-model windows).
    public var onTick: (() -> Void)? = nil
    /// Called with the bytes of a line the parser rejected (e.g. to store it), just before
    /// `onProblem` reports it.
    public var onMalformedLine: ((Span<UInt8>, _ receivedAt: Moment) -> Void)? = nil
    var actions: [ConnectionAction] = []
    /// The session's JOIN pace, shared by every connection.
    var pace: JoinLimiter
    /// Connections by file descriptor, for the loop's events.
    private var connectionByDescriptor: [Int32: Connection] = [:]
    /// Reads per connection per wake-up (each up to the framer's free space, 4–64 KiB).
    static let readBudget = 16
    /// The default of ``writeQueueLimit``: 1 MiB.
    public static let defaultWriteQueueLimit = 1 << 20
    /// Most bytes a connection may have waiting to be written. Our lines are few and short (login,
    /// JOINs, PONGs), so a queue past this is a server that sends (PINGs) but does not read: the
    /// connection is closed as dead (`disconnected` record, a gap for its channels, a reconnect with
    /// back-off). Checked after each line queued and each read (a WebSocket read answers pings; the
    /// pongs it owes count, see ``WebSocketStream/owedPongBytes``). A queue holds at most this plus
    /// one line or one read's pongs.
    public var writeQueueLimit = LiveSession.defaultWriteQueueLimit
    /// Where gaps are backfilled from (`--recent-messages`); set before ``run(until:)``. `nil`: gaps
    /// stay open.
    public var recentMessages: RecentMessagesSource? = nil
    private var backfill: BackfillCoordinator? = nil
    private var fetcher: BackfillFetcher? = nil
    /// What the backfill did so far (zero without ``recentMessages``).
    public var backfillCounters: BackfillCounters { backfill?.counters ?? BackfillCounters() }
    /// Set when a machine reports a fatal record.
    public private(set) var fatal: String? = nil
    /// Lines received on both sides of a RECONNECT overlap and written once: the second copies,
    /// dropped (nothing is lost by it).
    public private(set) var overlapDuplicates = 0
    /// How long a connection keeps matching its lines against the retiring one's after that one is gone.
    static let overlapLingerMs: Int64 = 5_000

    /// Why the session gave up (a rejected login or certificate), when a machine did.
    public var failure: DisconnectReason? { connections.lazy.compactMap(\.machine.failure).first }

    /// Whether any connection was ever welcomed by the server (registered). A session that ends
    /// without it never reached the chat: commands exit 69 (EX_UNAVAILABLE).
    public var everRegistered: Bool { connections.contains { $0.machine.registrations > 0 } }

    /// Why the last attempt of a connection that never registered failed, for the message of a
    /// session that never reached the chat.
    public var lastFailure: DisconnectReason? { connections.lazy.compactMap(\.machine.lastDisconnect).first }

    /// How many connections the channels were pooled into.
    public var connectionCount: Int { connections.count }

    /// Whether every connection is registered and every JOIN of it has its outcome (joined, refused
    /// or timed out).
    ///
    /// - Complexity: O(channels).
    public var joinsSettled: Bool { connections.allSatisfy { $0.machine.joinsSettled } }

    /// How many connections are registered with the server now.
    public var readyConnectionCount: Int { connections.reduce(0) { $0 + ($1.machine.phase == .ready ? 1 : 0) } }

    /// Calls `body` with each channel of the session, where it stands on its connection, and
    /// whether that connection is registered (`/healthz`: a channel is captured when both hold).
    ///
    /// - Complexity: O(channels).
    public func forEachChannel(_ body: (_ channel: String, ConnectionMachine.ChannelStatus, _ ready: Bool) -> Void) {
        for c in connections {
            let ready = c.machine.phase == .ready
            for channel in c.machine.channels { body(channel, c.machine.status(of: channel) ?? .waiting, ready) }
        }
    }

    public init(
        channels: [String], credentials: Credentials, endpoint: Endpoint,
        settings: ConnectionSettings = ConnectionSettings(),
        stop: StopFlag = StopFlag(),
        onLine: @escaping LineHandler, onRecord: @escaping RecordHandler, onProblem: @escaping ProblemHandler
    ) throws {
        self.endpoint = endpoint
        self.stop = stop
        self.credentials = credentials
        self.settings = settings
        let plans = ConnectionPlan.split(
            channels: channels, maxPerConnection: settings.channelsPerConnection, spacingMs: settings.connectSpacingMs)
        pace = JoinLimiter(limit: settings.joinLimit, windowMs: settings.joinWindowMs)
        connections = plans.map {
            Connection(machine: ConnectionMachine(plan: $0, credentials: credentials, settings: settings))
        }
        loop = try EventLoop()
        tlsContext = try endpoint.tls.map { try TLSContext($0) }
        self.onLine = onLine
        self.onRecord = onRecord
        self.onProblem = onProblem
        actions.reserveCapacity(16)
    }

    /// Where ``run(until:)`` ends (monotonic milliseconds): a connect and its handshakes never outlast it.
    private var runDeadline: Int64? = nil

    /// Runs until ``stop`` is raised, a machine reports a fatal error, or `deadline` passes (also in
    /// the middle of a TLS or WebSocket handshake with a server that does not answer).
    public func run(until deadline: Int64? = nil) {
        runDeadline = deadline
        let start = Moment.now()
        if let source = recentMessages, backfill == nil {
            // libcurl's global setup here, before the workers start (a failure is theirs to report).
            try? HTTPClient.prepare()
            let fetcher = BackfillFetcher(source: source, waker: loop.waker)
            self.fetcher = fetcher
            backfill = BackfillCoordinator(
                source: source, fetcher: fetcher, onLine: onLine, onRecord: onRecord, onProblem: onProblem)
        }
        defer { fetcher?.close() }
        for c in connections { perform(c.machine.start(at: start), on: c) }
        while !stop.isRaised && fatal == nil {
            let now = Moment.now()
            if let deadline, now.monotonicMs >= deadline { break }
            for c in connections {
                if let until = c.overlapUntil, until <= now.monotonicMs, c.retiring == nil {
                    c.overlap = nil
                    c.overlapUntil = nil
                }
                if let at = c.connectAt, at <= now.monotonicMs {
                    c.connectAt = nil
                    open(c)
                }
                if let due = c.machine.nextDeadline(sharing: pace), due <= now.monotonicMs {
                    actions.removeAll(keepingCapacity: true)
                    c.machine.handle(.tick, at: now, into: &actions, sharing: &pace)
                    perform(actions, on: c)
                }
            }
            // Connections whose read budget ran out go first, and the wait below does not block.
            var busy = false
            for c in connections where c.hasMore {
                c.hasMore = false
                service(c, [])
                busy = busy || c.hasMore
            }
            for c in connections {
                guard let old = c.retiring, old.hasMore else { continue }
                old.hasMore = false
                service(old, [])
                busy = busy || old.hasMore
            }
            backfill?.poll(now: now)
            onTick?()
            var timeout: Int64 = busy ? 0 : (onTick == nil ? 250 : 30)
            for c in connections {
                if let at = c.connectAt { timeout = min(timeout, at - now.monotonicMs) }
                if let due = c.machine.nextDeadline(sharing: pace) { timeout = min(timeout, due - now.monotonicMs) }
            }
            if let deadline { timeout = min(timeout, deadline - now.monotonicMs) }
            if let due = backfill?.nextDeadline { timeout = min(timeout, due - now.monotonicMs) }
            _ = try? loop.wait(timeoutMs: Int32(clamping: max(0, timeout))) { fd, readiness in
                guard let c = connectionByDescriptor[fd] else { return }
                service(c, readiness)
            }
        }
        let end = Moment.now()
        backfill?.poll(now: end)
        backfill?.finishAll(now: end)
        for c in connections { perform(c.machine.stop(at: end), on: c) }
    }

    /// Added to a failure that looks like the two ends disagreeing on TLS: a plain connection closed
    /// or reset before the server sent a byte (a TLS port waits for a handshake, then gives up), or a
    /// TLS handshake that failed or timed out (a plain IRC port does not answer one).
    private var mismatchHint: String {
        endpoint.tls == nil
            ? " (TLS/plain mismatch? the port may expect TLS: drop --plain)"
            : " (TLS/plain mismatch? the port may speak plain IRC: --plain)"
    }

    /// Whether a connect failed in the TLS handshake (it failed, or did not finish in time): what a
    /// plain IRC port does to a handshake. A name that does not resolve or a refused connection
    /// (``TLSError/socket(_:)``) is no sign of a mismatch.
    private static func handshakeFailed(_ error: any Error) -> Bool {
        switch error as? TLSError {
        case .handshakeFailed, .timedOut: true
        default: false
        }
    }

    private func service(_ c: Connection, _ readiness: EventLoop.Readiness) {
        guard let stream = c.stream else { return }
        if readiness.contains(.writable) || stream.hasPendingWrites {
            do { try stream.flush() } catch {
                lost(c, .failed("\(error)"))
                return
            }
        }
        // Read until the stream would block — TLS may hold decrypted bytes the socket no longer
        // signals — but at most `readBudget` times per wake-up, so that a server sending without
        // pause cannot starve timers, other connections or the stop flag.
        var budget = Self.readBudget
        while c.stream != nil {
            if budget == 0 {
                c.hasMore = true
                return
            }
            budget -= 1
            let outcome: ReadOutcome
            do { outcome = try stream.read(into: &c.framer) } catch {
                lost(c, .failed("\(error)" + (c.receivedAny ? "" : mismatchHint)))
                return
            }
            // A read may queue (pongs): the bound holds whatever made the queue grow.
            if exceedsWriteQueueLimit(c) { return }
            switch outcome {
            case .bytes:
                c.receivedAny = true
                drain(c, receivedAt: Moment.now())
            case .wouldBlock:
                updateInterest(c)
                return
            case .endOfStream:
                lost(
                    c,
                    c.receivedAny || endpoint.tls != nil
                        ? .endOfStream : .failed("the server closed the connection" + mismatchHint))
                return
            }
        }
    }

    /// Hands every complete line to the machine and to `onLine`, all stamped with the time of the
    /// read that completed them.
    ///
    /// Every complete line is handled, also those after a line that closed the connection (RECONNECT:
    /// Twitch goes on sending until it closes): the machine has moved on and ignores them, `onLine`
    /// gets them. A partial line left at such a close is reported as cut off, as at any close.
    private func drain(_ c: Connection, receivedAt now: Moment) {
        c.isDraining = true
        defer {
            c.isDraining = false
            if c.handOverRequested {
                c.handOverRequested = false
                handOver(c)
            }
            if let reason = c.closedWhileDraining {
                c.closedWhileDraining = nil
                discardPartialLine(of: c, closedBecause: reason)
            }
        }
        while let event = c.framer.nextLine() {
            switch event {
            case .skipped(let error):
                onProblem(.skipped(error))
            case .line(let line):
                c.lines += 1
                // Emptied before the parse: a rejected line must perform nothing, in particular not
                // the actions of the line before it again.
                actions.removeAll(keepingCapacity: true)
                var answersHTTP = false
                c.framer.withBytes(of: line) { bytes in
                    let message: TwitchMessage
                    do throws(LineError) { message = try TwitchMessage.parse(bytes) } catch {
                        if line.number == 1 && endpoint.transport == .tcp && Self.isHTTPStatusLine(bytes) {
                            answersHTTP = true
                            return
                        }
                        onMalformedLine?(bytes, now)
                        onProblem(.malformed(lineNumber: line.number, error))
                        return
                    }
                    if c.owner != nil {
                        // A retiring connection: chat only, but its PINGs are answered while it plays.
                        if case .ping(let token) = c.machine.classify(message, in: bytes), let stream = c.stream {
                            try? stream.enqueue(.pong(token))
                            _ = try? stream.flush()
                        }
                    } else {
                        // Every line counts for liveness; control lines also drive the session.
                        c.machine.handle(
                            .lineReceived(c.machine.classify(message, in: bytes)), at: now, into: &actions,
                            sharing: &pace)
                    }
                    deliver(bytes, message, from: c, receivedAt: now)
                }
                if answersHTTP {
                    // An HTTP answer (a WebSocket port) is one problem, not a malformed line per header.
                    while c.framer.nextLine() != nil {}
                    lost(c, .failed("the server answered in HTTP: a WebSocket port? (--transport websocket)"))
                    return
                }
                perform(actions, on: c)
            }
        }
    }

    /// Closes `c` as dead (``DisconnectReason/peerNotReading(queuedBytes:limit:)``) when more than
    /// ``writeQueueLimit`` bytes wait to be written, WebSocket pongs owed included.
    ///
    /// - Returns: whether it did.
    private func exceedsWriteQueueLimit(_ c: Connection) -> Bool {
        guard let stream = c.stream, stream.pendingWriteCount > writeQueueLimit else { return false }
        lost(c, .peerNotReading(queuedBytes: stream.pendingWriteCount, limit: writeQueueLimit))
        return true
    }

    /// Whether `bytes` starts like an HTTP status line (`HTTP/1.1 400 …`).
    private static func isHTTPStatusLine(_ bytes: Span<UInt8>) -> Bool {
        let prefix: [UInt8] = Array("HTTP/".utf8)
        guard bytes.count >= prefix.count else { return false }
        for i in 0..<prefix.count where bytes[i] != prefix[i] { return false }
        return true
    }

    /// Hands a line to the backfill or `onLine`, once: during a RECONNECT overlap a copy the other
    /// side already delivered is dropped (and counted in ``overlapDuplicates``).
    private func deliver(_ bytes: Span<UInt8>, _ message: TwitchMessage, from c: Connection, receivedAt now: Moment) {
        let owner = c.owner ?? c
        // Computed once when the overlap or the backfill needs it, never on a plain live line.
        let fingerprint = owner.overlap != nil || backfill != nil ? LineFingerprint.of(bytes, message) : 0
        if owner.overlap != nil {
            guard owner.overlap!.admit(fingerprint, from: c.owner == nil ? .replacement : .retiring) else {
                overlapDuplicates += 1
                // The replacement delivered a line the retiring connection had already delivered:
                // the retiring one has been read that far (its actions run after the line's).
                if c.owner == nil, c.retiring != nil {
                    c.machine.handle(.overlapConfirmed, at: now, into: &actions, sharing: &pace)
                }
                return
            }
        }
        if let backfill {
            backfill.deliver(bytes, message, fingerprint: fingerprint, receivedAt: now, lineNumber: c.lines)
        } else {
            onLine(bytes, message, now, c.lines)
        }
    }

    /// `.handOver`: the stream (with what its framer holds) moves to a retiring connection that goes
    /// on delivering chat; `c` is left without a stream for its replacement.
    private func handOver(_ c: Connection) {
        guard let stream = c.stream else { return }
        let old = Connection(machine: c.machine)
        old.owner = c
        old.stream = stream
        old.registered = c.registered
        old.receivedAny = c.receivedAny
        old.lines = c.lines
        swap(&old.framer, &c.framer)
        // What the socket already holds is read on the next turn of the loop.
        old.hasMore = true
        connectionByDescriptor[stream.fileDescriptor] = old
        c.stream = nil
        c.registered = []
        c.hasMore = false
        c.retiring = old
        // A replacement handed over in its turn still delivers late copies of what the connection
        // before it delivered: the filter goes on, sides swapped, rather than starting empty.
        if c.overlap != nil { c.overlap!.handOver() } else { c.overlap = OverlapFilter() }
        c.overlapUntil = nil
    }

    /// `.closeRetired`: reads what the retiring connection has already received, then closes it.
    private func closeRetired(of c: Connection) {
        guard let old = c.retiring else { return }
        c.retiring = nil
        c.overlapUntil = Moment.now().monotonicMs + Self.overlapLingerMs
        service(old, [])
        close(old, because: .serverRequestedReconnect)
    }

    private func lost(_ c: Connection, _ reason: DisconnectReason) {
        close(c, because: reason)
        let now = Moment.now()
        if let owner = c.owner {
            // The retiring connection ended before the machine asked for it.
            guard owner.retiring === c else { return }
            owner.retiring = nil
            owner.overlapUntil = now.monotonicMs + Self.overlapLingerMs
            actions.removeAll(keepingCapacity: true)
            owner.machine.handle(.retiredClosed(reason), at: now, into: &actions, sharing: &pace)
            perform(actions, on: owner)
            return
        }
        actions.removeAll(keepingCapacity: true)
        c.machine.handle(.closed(reason), at: now, into: &actions, sharing: &pace)
        perform(actions, on: c)
    }

    func perform(_ list: [ConnectionAction], on c: Connection) {
        for action in list {
            switch action {
            case .send(let message):
                guard let stream = c.stream else { continue }
                do {
                    try stream.enqueue(message)
                    try stream.flush()
                } catch {
                    lost(c, .failed("\(error)"))
                    continue
                }
                if !exceedsWriteQueueLimit(c) { updateInterest(c) }
            case .connect(let after):
                c.connectAt = Moment.now().monotonicMs + after
            case .handOver:
                if c.isDraining { c.handOverRequested = true } else { handOver(c) }
            case .closeRetired:
                // A handover asked for in this same drain has not happened yet: nothing to close.
                c.handOverRequested = false
                closeRetired(of: c)
            case .close(let reason):
                close(c, because: reason)
            case .report(let record):
                if case .fatal(let message, _) = record { fatal = message }
                // A gap that ends with the channel rejoined (its `joined` record follows in the same
                // list) is recorded once the backfill has its answer.
                // A restart's gap is not asked about: the new run has not seen the previous run's last
                // lines, so the service's lines around the gap's start could not be told from them.
                if case .gap(let gap) = record, let backfill, Self.rejoins(gap.channel, list), !gap.reason.isRestart {
                    backfill.begin(gap, now: Moment.now())
                    continue
                }
                onRecord(record)
            }
        }
    }

    /// Whether `list` holds the `joined` record of `channel`.
    private static func rejoins(_ channel: String, _ list: [ConnectionAction]) -> Bool {
        list.contains {
            if case .report(.joined(let joined, _)) = $0 { return joined == channel }
            return false
        }
    }

    private func open(_ c: Connection) {
        let now = Moment.now()
        do {
            let stream = try connect()
            c.stream = stream
            c.receivedAny = false
            c.framer.reset()
            c.registered = stream.interest
            try loop.register(stream.fileDescriptor, interest: c.registered)
            connectionByDescriptor[stream.fileDescriptor] = c
            actions.removeAll(keepingCapacity: true)
            c.machine.handle(.connected, at: now, into: &actions, sharing: &pace)
        } catch {
            c.stream = nil
            actions.removeAll(keepingCapacity: true)
            // A handshake cut short by the run's deadline says nothing about TLS against plain.
            let cutShort = runDeadline.map { Moment.now().monotonicMs >= $0 } ?? false
            let reason: DisconnectReason =
                (error as? TLSError)?.isCertificateRejection == true
                ? .certificateRejected("\(error)")
                : .connectFailed("\(error)" + (looksLikeTLSMismatch(error) && !cutShort ? mismatchHint : ""))
            c.machine.handle(.closed(reason), at: now, into: &actions, sharing: &pace)
        }
        perform(actions, on: c)
    }

    /// Whether a failure to open looks like the two ends disagreeing on TLS: a TLS handshake that
    /// failed, or (a plain WebSocket) a server that closed or reset the connection without a byte of
    /// answer to the Upgrade request, as a TLS port does.
    private func looksLikeTLSMismatch(_ error: any Error) -> Bool {
        if endpoint.tls != nil { return Self.handshakeFailed(error) }
        return (error as? WebSocketError)?.isUnanswered == true
    }

    /// Connects to the endpoint, over TLS when it has a context, then (WebSocket transport) does the
    /// Upgrade handshake: blocks for at most its timeout in all, and never past the run's deadline.
    private func connect() throws -> any ByteStream {
        let start = Moment.now().monotonicMs
        let timeoutMs = runDeadline.map { min(endpoint.timeoutMs, max(1, $0 - start)) } ?? endpoint.timeoutMs
        let base: any ByteStream
        if let tlsContext {
            base = try TLSConnection.connect(
                host: endpoint.host, port: endpoint.port, context: tlsContext, timeoutMs: timeoutMs, stop: stop)
        } else {
            base = try TCPConnection.connect(host: endpoint.host, port: endpoint.port, timeoutMs: timeoutMs, stop: stop)
        }
        guard endpoint.transport == .websocket else { return base }
        return try WebSocketStream.connect(
            over: base, host: endpoint.host, port: endpoint.port, secure: tlsContext != nil, path: endpoint.path,
            peer: endpoint.description,
            timeoutMs: max(1, timeoutMs - (Moment.now().monotonicMs - start)), stop: stop)
    }

    /// Re-registers the stream's descriptor when what it waits for changed (one `epoll_ctl` then).
    private func updateInterest(_ c: Connection) {
        guard let stream = c.stream else { return }
        let interest = stream.interest
        guard interest != c.registered else { return }
        if (try? loop.modify(stream.fileDescriptor, interest: interest)) != nil { c.registered = interest }
    }

    /// Closes the stream. The complete lines still in the framer are drained first when the close
    /// comes from within ``drain(_:receivedAt:)``; a partial line left is reported as cut off.
    private func close(_ c: Connection, because reason: DisconnectReason) {
        guard let stream = c.stream else { return }
        try? loop.remove(stream.fileDescriptor)
        connectionByDescriptor[stream.fileDescriptor] = nil
        c.stream = nil  // the stream closes its descriptor when released
        if c.isDraining {
            c.closedWhileDraining = reason
        } else {
            discardPartialLine(of: c, closedBecause: reason)
        }
    }

    /// Empties the framer of a closed connection, reporting the bytes of a partial line (the framer
    /// holds no complete line here: every read is drained).
    private func discardPartialLine(of c: Connection, closedBecause reason: DisconnectReason) {
        if c.framer.pendingByteCount > 0 {
            onProblem(.cutOff(droppedBytes: c.framer.pendingByteCount, reason: reason))
        }
        c.framer.reset()
    }
}

@available(*, unavailable)
extension LiveSession: Sendable {}
