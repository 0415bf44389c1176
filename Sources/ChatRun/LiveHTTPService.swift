public import ChatHTTP
public import ChatLive
public import ChatLogStore
public import ChatLogs
public import ChatMemory
import ChatPosix
import ChatStore
public import IRCWire
public import TwitchSession

/// capture's and tail's `--http-port`: one ``HTTPListener`` answering `GET /metrics`,
/// `GET /healthz` and `GET /api/v2/recent-messages/<login>` from what the ingest thread keeps.
///
/// The ingest thread is the only writer: it copies each line into its channel's ring
/// (``RecentHistory``, which the endpoint reads through the store's reader pins) and counts it in
/// ``IngestMetrics`` (plain fields); at the loop's tick, at most every ``publishIntervalMs``, it
/// publishes an ``IngestSnapshot`` (``IngestBoard``) that the HTTP threads copy under a lock taken
/// only then and per request. Nothing on the per-line path takes a lock, touches an atomic or
/// allocates (once the rings are full). Whether the run is healthy is ``IngestHealth``'s rule.
///
/// The hooks (``line(_:_:receivedAt:)``, ``malformed(_:)``, ``record(_:)``, ``problem(_:)``,
/// ``publish(_:now:force:output:)``, ``stop(_:output:)``) run on the ingest thread.
public final class LiveHTTPService {
    /// How often the snapshot is renewed: what a scrape can lag behind the counters.
    public static let publishIntervalMs: Int64 = 100

    /// What the listener is, and what it keeps.
    public struct Settings: Sendable {
        public var host: String
        public var port: UInt16
        /// Lines kept per channel for the recent-messages endpoint.
        public var history: Int
        /// `--http-channel-metrics`.
        public var channelMetrics: Bool
        /// `capture` or `tail`, and the version `/metrics` names.
        public var command: String
        public var version: String
        /// capture: the logs API over the directory it writes (docs/logs.md).
        public var logsDirectory: String? = nil
        /// The logs API's range and limit bounds (`--max-range-days`, `--max-limit`).
        public var logsBounds = LogsBounds()
        /// capture's `--opt-out` list: the logs API never serves its channels' and users' lines.
        public var logsOptOut = OptOutList()
        /// `--max-connections`: connections answered at once (``HTTPLimits/answering(_:)``), at most an
        /// eighth of the descriptor limit, so that the twice as many open at most stay within the
        /// quarter the listener may take; `nil`: ``HTTPLimits/init(descriptorLimit:)``'s.
        public var maxConnections: Int? = nil
        /// `--request-timeout` (``HTTPLimits/timed(_:)``); `nil`: only the default silence timeout.
        public var requestTimeout: Int? = nil

        public init(host: String, port: UInt16, history: Int, channelMetrics: Bool, command: String, version: String) {
            self.host = host
            self.port = port
            self.history = history
            self.channelMetrics = channelMetrics
            self.command = command
            self.version = version
        }
    }

    public let history: RecentHistory
    /// The process's memory budget (`--memory-budget`), shared with tail's own rings.
    public let budget: MemoryBudget?
    public let metrics: IngestMetrics
    public let listener: HTTPListener
    private let board: IngestBoard
    /// capture: the logs API over its directory.
    private let logs: LogsService?
    private var snapshot: IngestSnapshot
    private var nextPublishMs: Int64 = 0
    private var stopped = false

    /// Binds the listener of `settings`.
    ///
    /// Every connection holds a descriptor, so the descriptor limit is raised to the hard one first
    /// (as capture does for its files; ``DescriptorLimit/raise()``) and the listener keeps within a
    /// quarter of it (``HTTPLimits/init(descriptorLimit:)``): a connection flood is shed and counted,
    /// and never takes the descriptors of the chat connections or the files.
    ///
    /// - Throws: ``HTTPError`` when the address cannot be bound.
    public init(_ settings: Settings, budget: MemoryBudget?) throws(HTTPError) {
        let descriptors = DescriptorLimit.raise()
        var limits = descriptors.map { HTTPLimits(descriptorLimit: $0) } ?? HTTPLimits()
        if let n = settings.maxConnections {
            limits = limits.answering(descriptors.map { max(1, min(n, $0 / 8)) } ?? n)
        }
        if let seconds = settings.requestTimeout { limits = limits.timed(seconds) }
        let history = RecentHistory(limit: settings.history, budget: budget)
        self.history = history
        self.budget = budget
        metrics = IngestMetrics(countsPerChannel: settings.channelMetrics)
        snapshot = IngestSnapshot(command: settings.command, version: settings.version, startedAt: Moment.now().wall)
        let board = IngestBoard(snapshot)
        self.board = board
        var router = HTTPRouter()
        board.install(in: &router)
        RecentMessagesEndpoint(store: history.store, bound: history.limit) { history.isJoined($0) }
            .install(in: &router)
        // capture: the logs API over the directory it writes (docs/logs.md), read as any reader would.
        logs = settings.logsDirectory.map { directory in
            LogsService(
                archive: LogArchive(root: directory), bounds: settings.logsBounds, optOut: settings.logsOptOut,
                now: { Moment.now().wall })
        }
        logs?.install(into: &router)
        listener = try HTTPListener(host: settings.host, port: settings.port, limits: limits, router: router)
    }

    /// A reloaded `--opt-out` list, in force for the logs API's requests from now on.
    public func setOptOut(_ list: OptOutList) { logs?.setOptOut(list) }

    /// The end-of-run line of what the listener did with its connections (served, shed, not accepted).
    public var summary: String { "http: " + listener.figures.summary }

    /// A line received: into its channel's ring and the counters.
    ///
    /// - Complexity: O(line length); a CLEARMSG or a CLEARCHAT of a user adds O(1 + entries it marks)
    ///   (moderation's index), a CLEARCHAT of the whole chat a pass over its channel's ring.
    /// - Allocations: none once the channel's ring is full.
    public func line(_ bytes: Span<UInt8>, _ message: TwitchMessage, receivedAt: Moment) {
        metrics.line(bytes, message, receivedAt: receivedAt.wall, store: history.store)
        history.record(bytes, message: message, receivedAt: receivedAt.wall)
    }

    /// A line the parser rejected.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func malformed(_ bytes: Span<UInt8>) { metrics.malformed(bytes) }

    /// A session record: JOIN outcomes (and who the endpoint says is joined), gaps, reconnects.
    public func record(_ record: SessionRecord) {
        metrics.record(record)
        switch record {
        case .joined(let channel, _): history.join(channel)
        // Removed from the list by a reload (SIGHUP): its lines stay, the endpoint says it is not joined.
        case .parted(let channel, _): history.part(channel)
        default: break
        }
    }

    /// A line that could not be handed on.
    public func problem(_ problem: LiveProblem) {
        switch problem {
        case .skipped: metrics.unusable(tooLong: true)
        case .cutOff: metrics.unusable(tooLong: false)
        case .malformed, .backfillFailed, .backfillMisdated: break
        }
    }

    /// Renews the snapshot when ``publishIntervalMs`` has passed since the last (or now, with
    /// `force`): the counters, `output`'s figures and where every channel of `session` stands.
    ///
    /// - Complexity: O(channels) when due, O(1) otherwise.
    public func publish(
        _ session: LiveSession, now: Moment, force: Bool = false, output: () -> IngestOutputFigures
    ) {
        guard !stopped, force || now.monotonicMs >= nextPublishMs else { return }
        nextPublishMs = now.monotonicMs + Self.publishIntervalMs
        snapshot.copyCounters(of: metrics)
        let backfill = session.backfillCounters
        snapshot.backfilledLines = UInt64(backfill.recoveredLines)
        snapshot.backfillFailures = UInt64(backfill.failed)
        snapshot.output = output()
        snapshot.listener = listener.figures
        snapshot.copyBudget(budget)
        if metrics.countsPerChannel {
            snapshot.perChannel = metrics.perChannel.indices.compactMap { index in
                guard let log = history.store.log(at: index), metrics.perChannel[index] > 0 else { return nil }
                return (log.name, metrics.perChannel[index])
            }
        }
        var health = IngestHealth()
        session.forEachChannel { channel, status, ready in health.add(channel, status: status, ready: ready) }
        snapshot.assess(
            health, connections: session.connectionCount, connectionsUp: session.readyConnectionCount,
            lastDisconnect: metrics.lastDisconnect)
        board.publish(snapshot)
    }

    /// The last snapshot (`/healthz` says the capture is stopping), then the listener closes.
    public func stop(_ session: LiveSession, output: () -> IngestOutputFigures) {
        publish(session, now: Moment.now(), force: true, output: output)
        stopped = true
        board.stopping()
        listener.stop()
    }
}

@available(*, unavailable)
extension LiveHTTPService: Sendable {}
