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
        /// Whether this is a retiring connection (``owner`` was set): asked per line without loading
        /// the weak reference (a `swift_weakLoadStrong` and a release each time).
        var retires = false
        /// `.handOver` came while draining: the stream moves to a retiring connection when the drain ends.
        var handOverRequested = false
        /// Writes the lines of an overlap once; dropped ``LiveSession/overlapLingerMs`` after the
        /// retiring connection is gone (the replacement may still hold copies it had not read).
        var overlap: OverlapFilter? = nil
        var overlapUntil: Int64? = nil
        /// A retiring connection the machine has closed, still read on by the loop until it is quiet,
        /// caught up or out of time (``LiveSession/closeRetired(of:)``).
        var closingRetired: Connection? = nil
        /// Set on a connection read on after `.closeRetired`: its last moment, and when it is closed
        /// if nothing more comes (each read moves it on).
        var drainEnd: Int64? = nil
        var quietUntil: Int64 = 0
        /// When a connection read on after `.closeRetired` is closed unless it has ended before.
        var closingDeadline: Int64 { min(quietUntil, drainEnd ?? .max) }
        init(machine: ConnectionMachine) { self.machine = machine }
    }

    public let endpoint: Endpoint
    /// The connections, in order; ``update(adding:removing:)`` may append one.
    var connections: [Connection]
    /// What a connection opened by ``update(adding:removing:)`` logs in and behaves with.
    let credentials: Credentials
    let settings: ConnectionSettings
    // Internal rather than private (here and below) only because the session's concerns are split over
    // files: `LiveSession+Lines.swift`, `+Actions`, `+Streams`, `+Channels`.
    let loop: EventLoop
    let tlsContext: TLSContext?
    let onLine: LineHandler
    let onRecord: RecordHandler
    let onProblem: ProblemHandler
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
    var connectionByDescriptor: [Int32: Connection] = [:]
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
    var backfill: BackfillCoordinator? = nil
    private var fetcher: BackfillFetcher? = nil
    /// What the backfill did so far (zero without ``recentMessages``).
    public var backfillCounters: BackfillCounters { backfill?.counters ?? BackfillCounters() }
    /// Set when a machine reports a fatal record.
    public internal(set) var fatal: String? = nil
    /// Lines received on both sides of a RECONNECT overlap and written once: the second copies,
    /// dropped (nothing is lost by it).
    public internal(set) var overlapDuplicates = 0
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
    var runDeadline: Int64? = nil

    /// How the last ``run(until:)`` ended (`nil` before one has).
    public internal(set) var ending: Ending? = nil

    /// Runs until ``stop`` is raised, a machine reports a fatal error, `deadline` passes (also in
    /// the middle of a TLS or WebSocket handshake with a server that does not answer), or the event
    /// loop fails; answers which (also kept in ``ending``).
    @discardableResult
    public func run(until deadline: Int64? = nil) -> Ending {
        var loopFailure: String? = nil
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
                checkClosingRetired(of: c, at: now.monotonicMs)
                if let until = c.overlapUntil, until <= now.monotonicMs, c.retiring == nil, c.closingRetired == nil {
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
            for c in connections {
                if c.hasMore { busy = serviceAgain(c) || busy }
                if let old = c.retiring, old.hasMore { busy = serviceAgain(old) || busy }
                if let old = c.closingRetired, old.hasMore { busy = serviceAgain(old) || busy }
            }
            backfill?.poll(now: now)
            onTick?()
            var timeout: Int64 = busy ? 0 : (onTick == nil ? 250 : 30)
            for c in connections {
                if let at = c.connectAt { timeout = min(timeout, at - now.monotonicMs) }
                if let due = c.machine.nextDeadline(sharing: pace) { timeout = min(timeout, due - now.monotonicMs) }
                if let old = c.closingRetired { timeout = min(timeout, old.closingDeadline - now.monotonicMs) }
            }
            if let deadline { timeout = min(timeout, deadline - now.monotonicMs) }
            if let due = backfill?.nextDeadline { timeout = min(timeout, due - now.monotonicMs) }
            do {
                try loop.wait(timeoutMs: Int32(clamping: max(0, timeout))) { fd, readiness in
                    guard let c = connectionByDescriptor[fd] else { return }
                    service(c, readiness)
                }
            } catch {
                // EINTR is no error here; what epoll_wait fails with otherwise (EBADF, EINVAL) it
                // would fail with on every turn: the loop could only spin.
                loopFailure = "\(error)"
                break
            }
        }
        let end = Moment.now()
        backfill?.poll(now: end)
        backfill?.finishAll(now: end)
        for c in connections {
            perform(c.machine.stop(at: end), on: c)
            if let old = c.closingRetired { finishRetired(old, of: c) }
        }
        let ending: Ending =
            if let loopFailure { .loopFailed(loopFailure) } else if let fatal { .fatal(fatal) } else if stop.isRaised {
                .stopped
            } else { .deadline }
        self.ending = ending
        return ending
    }
}

@available(*, unavailable)
extension LiveSession: Sendable {}
