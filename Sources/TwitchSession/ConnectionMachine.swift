import ChatStore
public import IRCWire

/// The life of one chat connection as a value: events in, actions out. It never touches a socket.
///
/// The ingest loop owns the socket. It calls ``start(at:)`` once, performs the returned actions
/// (`.connect(after:)`, `.send`, `.close`, `.report`), feeds back what happens with
/// ``handle(_:at:)`` (`.connected`, each received line as a ``ServerLine``, `.closed`,
/// `.writeFailed`) and calls ``handle(_:at:)`` with `.tick` when ``nextDeadline`` passes. Time comes
/// in as a ``Moment`` and randomness from a seed, so tests drive every timeout without waiting.
///
/// What it does:
/// - **Login**: `CAP REQ` for the Twitch capabilities, then `PASS` (only with a token), then `NICK`
///   (`justinfan` + digits when anonymous). `CAP ACK` → reported; `CAP NAK` or no answer within
///   ``ConnectionSettings/capabilityTimeoutMs`` → reported as degraded and the session goes on
///   without them; either way `CAP END` follows, so a plain IRCv3 server finishes registration.
///   `Login authentication failed` → a fatal record, the connection closes, no retry.
/// - **Joins** (after the welcome `001`): one `JOIN` per channel, at most
///   ``ConnectionSettings/joinLimit`` per ``ConnectionSettings/joinWindowMs`` (a sliding window
///   kept across reconnects), each answered once by a record: joined (our echo), refused (NOTICE
///   `msg_channel_suspended`, `msg_banned`, `tos_ban`, `msg_room_not_found`, …; not retried) or
///   timed out (retried on the next connection).
/// - **Liveness**: PING → PONG with the same token. After ``ConnectionSettings/idleTimeoutMs``
///   without any line, our own PING; no line within ``ConnectionSettings/pongTimeoutMs`` → the
///   connection is dead.
/// - **RECONNECT without a hole**: the connection stays open as the retiring one while a replacement
///   connects and joins; it is closed once the replacement has joined its channels, and a channel
///   gets a gap only when the retiring connection closed before the replacement joined it (see
///   ``ConnectionAction/handOver``).
/// - **Reconnects** after RECONNECT (the overlap off), end of stream, errors or a dead connection: exponential
///   back-off with jitter (``BackoffPolicy``), reset after a healthy connection; all channels are
///   joined again, and every channel that was captured gets a ``Gap`` record for the interval it
///   was not: never a silent hole.
/// - **Channel list changes** while it runs (a reloaded `--channels-file`): ``add(_:at:)`` queues a
///   channel for its JOIN at the pace (and rejoins it after later reconnects), ``remove(_:at:)``
///   parts one and forgets it.
///
/// At most ``ConnectionSettings/maxChannelsPerConnection`` channels; ``ConnectionPlan`` splits
/// larger lists over several machines. A `Sendable` value, owned by the ingest loop.
public struct ConnectionMachine: Sendable {
    /// Where the connection stands.
    public enum Phase: Sendable, Equatable {
        /// Not started.
        case idle
        /// A `.connect(after:)` is outstanding.
        case connecting
        /// Connected, waiting for the welcome (`001`).
        case registering
        /// Registered: joins flow.
        case ready
        /// Stopped for good (fatal error or ``stop(at:)``).
        case stopped
    }

    /// Where one channel stands on the current connection.
    public enum ChannelStatus: Sendable, Equatable {
        /// Waiting to be joined (not connected yet, or held back by the rate limit).
        case waiting
        /// JOIN sent at this monotonic time; no answer yet.
        case joining(sentAt: Int64)
        case joined
        /// No answer within the timeout on this connection; retried on the next.
        case timedOut
        /// Refused by the server; not retried.
        case refused
    }

    /// A gap that started but has not ended.
    struct OpenGap: Sendable, Equatable {
        var from: Timestamp
        var reason: DisconnectReason
    }

    public let settings: ConnectionSettings
    public let credentials: Credentials
    /// The channels of this connection, normalised, in the order they were given (channels added at
    /// run time last: see ``add(_:at:)``).
    public internal(set) var channels: [String]
    /// Delay of the first connect (from ``ConnectionPlan/openAfterMs``).
    public let openAfterMs: Int64
    /// The nick we register with; after the welcome, the one the server confirmed.
    public internal(set) var nick: String
    public internal(set) var phase: Phase = .idle
    /// Connections made so far.
    public internal(set) var connectionCount = 0
    /// What became of `CAP REQ` on the current connection; `nil` while unanswered.
    public internal(set) var capabilityOutcome: CapabilityOutcome?
    /// Why the session gave up for good (a rejected login or certificate), once it has.
    public internal(set) var failure: DisconnectReason?
    /// Times the server welcomed us (`001`): 0 means this machine never got a working connection.
    public internal(set) var registrations = 0
    /// Why the last connection (or attempt) ended, if one did.
    public internal(set) var lastDisconnect: DisconnectReason?

    let initialNick: String
    var indexByChannel: [String: Int] = [:]
    var statuses: [ChannelStatus]
    var openGaps: [OpenGap?]
    /// Channels the retiring connection still delivers until the replacement joins them.
    var awaitingHandover: [Bool]
    /// A retiring connection (RECONNECT) is still open beside the current one: see
    /// ``ConnectionAction/handOver``.
    public internal(set) var isHandingOver = false
    /// Every channel is joined on the replacement: the retiring connection is closed at the first
    /// line seen on both, or at this time.
    var handoverSettleDeadline: Int64?
    /// A retiring connection is open and the replacement has joined every channel it was
    /// delivering: a line on both connections from now on confirms the handover.
    public var isHandoverSettled: Bool { isHandingOver && handoverSettleDeadline != nil }
    /// Channel indices to JOIN, in order, from `joinQueueHead`.
    var joinQueue: [Int] = []
    var joinQueueHead = 0
    /// Channel indices with a JOIN in flight, in send order (so their timeouts come in order).
    var inFlight: [Int] = []
    var inFlightHead = 0
    var limiter: JoinLimiter
    var backoff: Backoff
    var generator: SeededGenerator

    // The current connection.
    var connectedAt: Moment?
    var lastReceived: Moment?
    var capabilityDeadline: Int64?
    var registrationDeadline: Int64?
    var probeSentAt: Int64?
    var probeCount = 0

    /// A machine for `channels` (normalised and deduplicated here).
    ///
    /// - Parameters:
    ///   - seed: seeds the anonymous nick and the back-off jitter; tests pass a fixed one.
    /// - Precondition: at most ``ConnectionSettings/maxChannelsPerConnection`` distinct channels.
    public init(
        channels: [String], credentials: Credentials = .anonymous, settings: ConnectionSettings = ConnectionSettings(),
        openAfterMs: Int64 = 0, seed: UInt64 = UInt64.random(in: .min ... .max)
    ) {
        let unique = ConnectionPlan.normalizeAll(channels)
        precondition(
            unique.count <= ConnectionSettings.maxChannelsPerConnection,
            "at most \(ConnectionSettings.maxChannelsPerConnection) channels per connection; split with ConnectionPlan")
        precondition(openAfterMs >= 0, "openAfterMs must not be negative")
        self.settings = settings
        self.credentials = credentials
        self.channels = unique
        self.openAfterMs = openAfterMs
        for (index, channel) in unique.enumerated() { indexByChannel[channel] = index }
        statuses = Array(repeating: .waiting, count: unique.count)
        openGaps = Array(repeating: nil, count: unique.count)
        awaitingHandover = Array(repeating: false, count: unique.count)
        limiter = JoinLimiter(limit: settings.joinLimit, windowMs: settings.joinWindowMs)
        backoff = Backoff(policy: settings.backoff)
        generator = SeededGenerator(seed: seed)
        initialNick = credentials.nick(using: &generator)
        nick = initialNick
    }

    /// A machine for one connection of a plan.
    public init(
        plan: ConnectionPlan, credentials: Credentials = .anonymous,
        settings: ConnectionSettings = ConnectionSettings(),
        seed: UInt64 = UInt64.random(in: .min ... .max)
    ) {
        self.init(
            channels: plan.channels, credentials: credentials, settings: settings, openAfterMs: plan.openAfterMs,
            seed: seed)
    }

    // MARK: Driving

    /// Starts the session: the first `.connect(after: openAfterMs)`.
    public mutating func start(at now: Moment) -> [ConnectionAction] {
        guard phase == .idle else { return [] }
        phase = .connecting
        return [.connect(after: openAfterMs)]
    }

    /// Takes one event and returns what to do, in order.
    ///
    /// Every event also runs the timers (capability, registration, JOIN timeouts, idle PING, dead
    /// connection) and sends the JOINs the rate limit allows.
    ///
    /// - Complexity: O(1) amortised for a chat line (``ServerLine/other``); O(channels) on
    ///   connect, welcome and disconnect.
    /// - Allocations: none for a line that needs no action (the empty array does not allocate).
    public mutating func handle(_ event: ConnectionEvent, at now: Moment) -> [ConnectionAction] {
        var actions: [ConnectionAction] = []
        handle(event, at: now, into: &actions)
        return actions
    }

    /// ``handle(_:at:)`` appending to a buffer the loop reuses.
    public mutating func handle(_ event: ConnectionEvent, at now: Moment, into actions: inout [ConnectionAction]) {
        guard phase != .idle && phase != .stopped else { return }
        switch event {
        case .connected:
            didConnect(at: now, &actions)
        case .lineReceived(let line):
            didReceive(line, at: now, &actions)
        case .tick:
            break
        case .closed(.certificateRejected(let message)) where !settings.retryCertificateErrors:
            fail(
                .certificateRejected(message),
                message: "\(message) Not reconnecting: a certificate error does not go away by retrying.", at: now,
                &actions)
        case .closed(let reason):
            connectionLost(reason, at: now, close: false, &actions)
        case .writeFailed(let message):
            connectionLost(.failed("write failed: \(message)"), at: now, close: true, &actions)
        case .retiredClosed(let reason):
            retiredEnded(reason, at: now, &actions)
        case .overlapConfirmed:
            overlapConfirmed(at: now, &actions)
        }
        runTimers(at: now, &actions)
    }

    /// Stops the session: closes the connection and ends every open gap now.
    public mutating func stop(at now: Moment) -> [ConnectionAction] {
        guard phase != .stopped else { return [] }
        var actions: [ConnectionAction] = []
        dropRetired(because: .stopped, at: now, &actions)
        if phase == .registering || phase == .ready {
            actions.append(.report(.disconnected(.stopped, at: now.wall)))
            actions.append(.close(.stopped))
        }
        closeOpenGaps(at: now, &actions)
        endConnection()
        phase = .stopped
        return actions
    }

    /// The monotonic time of the next timer (capability, registration, JOIN timeout, rate limit,
    /// idle PING, PONG); `nil` when none runs. Call ``handle(_:at:)`` with `.tick` then.
    public var nextDeadline: Int64? { nextDeadline(pacedBy: limiter) }

    /// ``nextDeadline`` with JOINs paced by `joins` (the machine's own limiter, or a session's).
    func nextDeadline(pacedBy joins: JoinLimiter) -> Int64? {
        guard phase == .registering || phase == .ready else { return nil }
        var deadline = Int64.max
        if let capabilityDeadline { deadline = min(deadline, capabilityDeadline) }
        if let handoverSettleDeadline { deadline = min(deadline, handoverSettleDeadline) }
        if phase == .registering, let registrationDeadline { deadline = min(deadline, registrationDeadline) }
        if let probeSentAt {
            deadline = min(deadline, probeSentAt + settings.pongTimeoutMs)
        } else if let lastReceived {
            deadline = min(deadline, lastReceived.monotonicMs + settings.idleTimeoutMs)
        }
        if phase == .ready {
            if let oldest = oldestInFlightSendTime { deadline = min(deadline, oldest + settings.joinTimeoutMs) }
            if joinQueueHead < joinQueue.count { deadline = min(deadline, joins.earliestSend(now: Int64.min)) }
        }
        return deadline == Int64.max ? nil : deadline
    }

    /// Classifies a parsed line for this session (our own JOIN is recognised by ``nick``).
    ///
    /// - Complexity: see ``ServerLine/init(_:in:ownNick:)``. - Allocations: none for chat lines.
    public func classify(_ message: TwitchMessage, in bytes: Span<UInt8>) -> ServerLine {
        ServerLine(message, in: bytes, ownNick: nick)
    }

    /// Where `channel` stands, or `nil` if it is not one of ours.
    public func status(of channel: String) -> ChannelStatus? {
        indexByChannel[Login.normalize(channel)].map { statuses[$0] }
    }

    /// The channels joined on the current connection, in order.
    public var joinedChannels: [String] {
        channels.indices.filter { statuses[$0] == .joined }.map { channels[$0] }
    }
}
