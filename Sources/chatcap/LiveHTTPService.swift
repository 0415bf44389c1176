import ArgumentParser
import ChatHTTP
import ChatLive
import ChatLogs
import ChatPosix
import ChatStore
import IRCWire
import Synchronization
import TwitchSession

/// capture's and tail's `--http-port`: one ``HTTPListener`` answering `GET /metrics`,
/// `GET /healthz` and `GET /api/v2/recent-messages/<login>` from what the ingest thread keeps.
///
/// The ingest thread is the only writer: it copies each line into its channel's ring
/// (``RecentHistory``, which the endpoint reads through the store's reader pins) and counts it in
/// ``IngestMetrics`` (plain fields); at the loop's tick, at most every ``publishIntervalMs``, it
/// publishes an ``IngestSnapshot`` that the HTTP threads copy under a lock taken only then and per
/// request. Nothing on the per-line path takes a lock, touches an atomic or allocates (once the
/// rings are full).
///
/// The hooks (``line(_:_:receivedAt:)``, ``malformed(_:)``, ``record(_:)``, ``problem(_:)``,
/// ``publish(_:now:output:)``, ``stop(_:output:)``) run on the ingest thread.
final class LiveHTTPService {
    /// How often the snapshot is renewed: what a scrape can lag behind the counters.
    static let publishIntervalMs: Int64 = 100
    /// Channels named in a 503's reason (the count says how many more).
    static let namedInHealth = 5

    /// The shared snapshot: written by the ingest thread, read by the HTTP threads.
    private final class Published: Sendable {
        let snapshot: Mutex<IngestSnapshot>
        init(_ snapshot: IngestSnapshot) { self.snapshot = Mutex(snapshot) }
        var current: IngestSnapshot { snapshot.withLock { $0 } }
    }

    let history: RecentHistory
    /// The process's memory budget (`--memory-budget`), shared with tail's own rings.
    let budget: MemoryBudget?
    let metrics: IngestMetrics
    let listener: HTTPListener
    private let published: Published
    private var snapshot: IngestSnapshot
    private var nextPublishMs: Int64 = 0
    private var stopped = false

    /// Starts the listener of `options`, or answers `nil` without `--http-port`; says where it
    /// listens on stderr (unless `quiet`).
    ///
    /// Every connection holds a descriptor, so the descriptor limit is raised to the hard one first
    /// (as capture does for its files; ``CaptureCommand/raiseDescriptorLimit()``) and the listener
    /// keeps within a quarter of it (``HTTPLimits/init(descriptorLimit:)``): a connection flood is
    /// shed and counted, and never takes the descriptors of the chat connections or the files.
    ///
    /// - Throws: `ExitCode(.ioErr)` (said on stderr) when the address cannot be bound.
    static func start(
        _ options: LiveHTTPOptions, command: String, quiet: Bool, budget: MemoryBudget? = nil,
        logsDirectory: String? = nil
    ) throws -> LiveHTTPService? {
        guard let port = options.http.httpPort else { return nil }
        let limits = CaptureCommand.raiseDescriptorLimit().map { HTTPLimits(descriptorLimit: $0) } ?? HTTPLimits()
        let service: LiveHTTPService
        do {
            service = try LiveHTTPService(
                options, port: UInt16(port), limits: limits, command: command, budget: budget,
                logsDirectory: logsDirectory)
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(.ioErr)
        }
        if !quiet { Diagnostics.note("listening on \(service.listener.url)") }
        return service
    }

    private init(
        _ options: LiveHTTPOptions, port: UInt16, limits: HTTPLimits, command: String, budget: MemoryBudget?,
        logsDirectory: String?
    ) throws(HTTPError) {
        let history = RecentHistory(limit: options.httpHistory ?? LiveHTTPOptions.defaultHistory, budget: budget)
        self.history = history
        self.budget = budget
        metrics = IngestMetrics(countsPerChannel: options.httpChannelMetrics)
        snapshot = IngestSnapshot(
            command: command, version: ChatcapVersion.string, startedAt: Moment.now().wall)
        let published = Published(snapshot)
        self.published = published
        var router = HTTPRouter()
        router.get("/metrics") { _, _ in
            HTTPResponse(status: 200, contentType: PrometheusText.contentType, body: published.current.exposition)
        }
        router.get("/healthz") { _, _ in
            let current = published.current
            return HTTPResponse(
                status: current.healthy ? 200 : 503, contentType: "text/plain; charset=utf-8",
                body: Array((current.health + "\n").utf8))
        }
        RecentMessagesEndpoint(store: history.store, bound: history.limit) { history.isJoined($0) }
            .install(in: &router)
        // capture: the logs API over the directory it writes (docs/logs.md), read as any reader would.
        if let logsDirectory {
            LogsService(archive: LogArchive(root: logsDirectory), now: { Moment.now().wall }).install(into: &router)
        }
        listener = try HTTPListener(host: options.http.host, port: port, limits: limits, router: router)
    }

    /// The end-of-run line of what the listener did with its connections (served, shed, not accepted).
    var summary: String { "http: " + listener.figures.summary }

    /// A line received: into its channel's ring and the counters.
    ///
    /// - Complexity: O(line length); a CLEARMSG or a CLEARCHAT of a user adds O(1 + entries it marks)
    ///   (moderation's index), a CLEARCHAT of the whole chat a pass over its channel's ring.
    /// - Allocations: none once the channel's ring is full.
    func line(_ bytes: Span<UInt8>, _ message: TwitchMessage, receivedAt: Moment) {
        metrics.line(bytes, message, receivedAt: receivedAt.wall, store: history.store)
        history.record(bytes, message: message, receivedAt: receivedAt.wall)
    }

    /// A line the parser rejected.
    ///
    /// - Complexity: O(1). - Allocations: none.
    func malformed(_ bytes: Span<UInt8>) { metrics.malformed(bytes) }

    /// A session record: JOIN outcomes (and who the endpoint says is joined), gaps, reconnects.
    func record(_ record: SessionRecord) {
        metrics.record(record)
        switch record {
        case .joined(let channel, _): history.join(channel)
        // Removed from the list by a reload (SIGHUP): its lines stay, the endpoint says it is not joined.
        case .parted(let channel, _): history.part(channel)
        default: break
        }
    }

    /// A line that could not be handed on.
    func problem(_ problem: LiveProblem) {
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
    func publish(_ session: LiveSession, now: Moment, force: Bool = false, output: () -> IngestOutputFigures) {
        guard !stopped, force || now.monotonicMs >= nextPublishMs else { return }
        nextPublishMs = now.monotonicMs + Self.publishIntervalMs
        snapshot.receivedLines = metrics.receivedLines
        snapshot.receivedBytes = metrics.receivedBytes
        snapshot.malformedLines = metrics.malformedLines
        snapshot.tooLongLines = metrics.tooLongLines
        snapshot.cutOffLines = metrics.cutOffLines
        snapshot.gaps = metrics.gaps
        snapshot.reconnects = metrics.reconnects
        snapshot.joined = metrics.joined
        snapshot.refused = metrics.refused
        snapshot.timedOut = metrics.timedOut
        let backfill = session.backfillCounters
        snapshot.backfilledLines = UInt64(backfill.recoveredLines)
        snapshot.backfillFailures = UInt64(backfill.failed)
        // A fresh array each time: the one the readers may hold is never written again.
        snapshot.lagCounts = Array(metrics.lagCounts)
        snapshot.lagSumMs = metrics.lagSumMs
        snapshot.output = output()
        snapshot.listener = listener.figures
        snapshot.budget = budget.map {
            BudgetFigures(
                limit: $0.limit, reservedBytes: $0.heldBytes, outsideBytes: $0.outsideBytes,
                trimmedEntries: UInt64($0.trimmedEntries), trimmedBytes: UInt64($0.trimmedBytes))
        }
        if metrics.countsPerChannel {
            snapshot.perChannel = metrics.perChannel.indices.compactMap { index in
                guard let log = history.store.log(at: index), metrics.perChannel[index] > 0 else { return nil }
                return (log.name, metrics.perChannel[index])
            }
        }
        assessHealth(session)
        let copy = snapshot
        published.snapshot.withLock { $0 = copy }
    }

    /// The last snapshot (`/healthz` says the capture is stopping), then the listener closes.
    func stop(_ session: LiveSession, output: () -> IngestOutputFigures) {
        publish(session, now: Moment.now(), force: true, output: output)
        stopped = true
        published.snapshot.withLock {
            $0.healthy = false
            $0.health = "stopping"
        }
        listener.stop()
    }

    /// Healthy while every connection is registered and every channel joined on it; otherwise the
    /// reason, naming the first few channels not joined and why.
    private func assessHealth(_ session: LiveSession) {
        var channels = 0
        var joined = 0
        var missing: [String] = []
        session.forEachChannel { channel, status, ready in
            channels += 1
            if ready && status == .joined {
                joined += 1
                return
            }
            guard missing.count < Self.namedInHealth else { return }
            let why: String
            switch (ready, status) {
            case (false, _): why = "connection not registered"
            case (true, .refused): why = "JOIN refused"
            case (true, .timedOut): why = "JOIN timed out"
            default: why = "joining"
            }
            missing.append("#\(channel) (\(why))")
        }
        snapshot.connections = session.connectionCount
        snapshot.connectionsUp = session.readyConnectionCount
        snapshot.channels = channels
        snapshot.channelsJoined = joined
        let over = "over \(snapshot.connectionsUp) of \(snapshot.connections) connections"
        if channels > 0 && joined == channels && snapshot.connectionsUp == snapshot.connections {
            snapshot.healthy = true
            snapshot.health = "ok: \(joined) of \(channels) channels joined \(over)"
            return
        }
        snapshot.healthy = false
        let more = channels - joined - missing.count
        snapshot.health =
            "unavailable: \(joined) of \(channels) channels joined \(over); not joined: "
            + missing.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
            + (metrics.lastDisconnect.map { "; last disconnect: \($0)" } ?? "")
    }
}

@available(*, unavailable)
extension LiveHTTPService: Sendable {}
