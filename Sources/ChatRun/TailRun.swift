public import ChatLive
public import ChatMemory
public import ChatOutput
public import ChatPosix
import ChatStore
import IRCWire
import TwitchSession

/// One run of `tail`: the live session feeding the output pipeline (and the HTTP service beside it),
/// the channel list reloaded on SIGHUP, the batched output flushed at each tick, systemd's
/// notifications, and the end-of-run figures.
///
/// The command builds the pipeline and the ``LiveConnection`` from its options and maps the
/// ``Ending`` to an exit status; everything between is here.
public final class TailRun {
    /// How the run ended, for the command's exit status (and ``report(_:)``).
    public struct Ending {
        public var session: LiveSession
        public var ending: LiveSession.Ending
        /// The first output error (EPIPE: the reader went away): the run stopped at it.
        public var failure: OutputError?
        /// JOINs confirmed (a channel rejoined counts again).
        public var joined: Int
        /// When every JOIN first had its outcome: monotonic ms, and the lines written by then.
        public var settled: (ms: Int64, lines: Int)?
        /// When the run started (monotonic ms).
        public var startedMs: Int64
    }

    let connection: LiveConnection
    let console: RunConsole
    let stop: StopFlag
    let pipeline: OutputPipeline
    let sink: OutputSink
    let budget: MemoryBudget
    let http: LiveHTTPService?
    let service: ServiceNotifier?
    let reload: ChannelReload?
    /// `--stats`: lines per second and CPU time at the end.
    public var stats = false

    /// - Parameters:
    ///   - stop: raised by SIGINT/SIGTERM (``Interrupts``).
    ///   - budget: the one budget of the output's rings and `--http-port`'s.
    ///   - reload: `--channels-file`'s reload, its SIGHUP handler installed by the run.
    public init(
        _ connection: LiveConnection, console: RunConsole, stop: StopFlag, pipeline: OutputPipeline, sink: OutputSink,
        budget: MemoryBudget, http: LiveHTTPService?, service: ServiceNotifier?, reload: ChannelReload?
    ) {
        self.connection = connection
        self.console = console
        self.stop = stop
        self.pipeline = pipeline
        self.sink = sink
        self.budget = budget
        self.http = http
        self.service = service
        self.reload = reload
    }

    /// Runs until `--duration`, a stop signal, an output error or a fatal session error.
    ///
    /// - Throws: what the session's set-up throws (the event loop, the TLS context).
    public func run() throws -> Ending {
        let http = self.http
        let pipeline = self.pipeline
        let sink = self.sink
        let budget = self.budget
        var failure: OutputError? = nil
        var joined = 0
        var joinedChannels = Set<String>()
        let session = try LiveSession(
            channels: connection.channels, credentials: connection.credentials, endpoint: connection.endpoint,
            settings: connection.settings, stop: stop,
            onLine: { bytes, message, receivedAt, number in
                http?.line(bytes, message, receivedAt: receivedAt)
                guard failure == nil else { return }
                do throws(OutputError) {
                    try pipeline.handleLive(bytes, message, receivedAt: receivedAt, lineNumber: number)
                } catch { failure = error }
            },
            onRecord: { record in
                http?.record(record)
                if case .joined(let channel, _) = record {
                    joined += 1
                    joinedChannels.insert(channel)
                }
                guard failure == nil else { return }
                do throws(OutputError) { try pipeline.record(record) } catch { failure = error }
            },
            onProblem: { problem in
                http?.problem(problem)
                guard failure == nil else { return }
                do throws(OutputError) { try pipeline.handleLive(problem) } catch { failure = error }
            })
        session.recentMessages = connection.recentMessages
        session.onMalformedLine = { bytes, _ in http?.malformed(bytes) }
        // Output is batched; each loop tick (at least every 30 ms) flushes what is 0.1 s old.
        let started = Moment.now().monotonicMs
        // When every JOIN has its outcome (the first time): how long joining took, and from then on
        // the line rate (--stats).
        var settled: (ms: Int64, lines: Int)? = nil
        let channelCount = Set(connection.channels.map(Login.normalize)).count
        // SIGHUP re-reads --channels-file (``ChannelReload/tick(now:session:say:)``).
        let reload = self.reload
        reload?.install()
        let service = self.service
        let console = self.console
        // An output error (EPIPE: the reader went away) ends the session at the next tick.
        session.onTick = {
            reload?.tick(now: Moment.now(), session: session, say: console.note)
            if settled == nil && session.joinsSettled {
                let now = Moment.now().monotonicMs
                settled = (now, pipeline.summary.lines)
                console.note(
                    "\(joined) of \(channelCount) channel\(channelCount == 1 ? "" : "s") joined in "
                        + "\(Double(now - started) / 1000) s over \(session.connectionCount) "
                        + "connection\(session.connectionCount == 1 ? "" : "s")")
            }
            if failure == nil {
                do throws(OutputError) {
                    try pipeline.releaseDue(now: Moment.now().wall)
                    try sink.flushIfDue(now: .now)
                } catch { failure = error }
            }
            if failure != nil { session.stop.raise() }
            service?.tick(nowMs: Moment.now().monotonicMs, ready: settled != nil) {
                // The list in force: a reload (SIGHUP) may have changed it.
                let list = session.channels
                return "\(list.count { joinedChannels.contains($0) }) of \(list.count) channels joined; "
                    + "\(pipeline.summary.lines) lines; \(budget.trimmedEntries) ring entries trimmed by the memory budget"
            }
            http?.publish(session, now: Moment.now()) { Self.httpFigures(pipeline) }
        }
        let ending = session.run(until: connection.deadline(from: Moment.now().monotonicMs))
        switch ending {
        case .deadline: console.note("stopped: --duration \(connection.durationText) reached")
        case .stopped where failure == nil: console.note("stopped: SIGINT or SIGTERM")
        default: break
        }
        service?.stopping(status: "stopping after \(pipeline.summary.lines) lines")
        http?.stop(session) { Self.httpFigures(pipeline) }
        return Ending(
            session: session, ending: ending, failure: failure, joined: joined, settled: settled, startedMs: started)
    }
}

@available(*, unavailable)
extension TailRun: Sendable {}

// Not Sendable: the ending holds the session, the ingest thread's.
@available(*, unavailable)
extension TailRun.Ending: Sendable {}
