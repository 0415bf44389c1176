import ArgumentParser
import ChatInput
import ChatLive
import ChatNet
import ChatOutput
import ChatPosix
import ChatRun
import ChatStore
import IRCWire
import Synchronization
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

struct TailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "Connect to Twitch chat and print it live, in every format replay has.",
        discussion: """
            Reconnects with back-off after RECONNECT, errors or a dead connection, rejoins every channel, \
            and reports each interval without capture as a gap (stderr, and a "gap" record in json). \
            Anonymous by default; an OAuth token comes from --token-file or CHATCAP_TOKEN, never from \
            the command line. Under systemd (NOTIFY_SOCKET set) it notifies READY=1, STATUS=, WATCHDOG=1 \
            and STOPPING=1 as capture does (docs/capture.md). With --channels-file, SIGHUP reads the file \
            again: channels added are joined, channels removed parted (a "parted" record), the others go on \
            untouched; a file that no longer parses keeps the list in force and says why.

            \(ConnectionOptions.exitStatusHelp), \(ConnectionOptions.noChannelJoinedHelp), 74 output error.
            """)

    @Argument(help: "Channels to join (logins, with or without #); more with --channels-file.")
    var channels: [String] = []

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backfill: RecentMessagesOptions
    @OptionGroup var reloading: ReloadOptions
    @OptionGroup var liveHTTP: LiveHTTPOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var filters: FilterOptions

    @Option(
        name: .customLong("capacity"), parsing: .unconditional,
        help: ArgumentHelp(
            "Entries kept per channel (the moderation look-ahead), \(OptionRanges.capacity.text) "
                + "(default: \(EntryRing.defaultCapacity))."),
        transform: { try OptionRanges.capacity.parse($0) })
    var capacity = EntryRing.defaultCapacity

    @Flag(help: "On exit, print lines read, lines per second and the CPU time used on stderr.")
    var stats = false

    @Option(parsing: .unconditional, help: ReportLimit.help("on standard error"))
    var reportLimit = 20

    @OptionGroup var limits: ChannelLimitOptions
    @OptionGroup var memory: MemoryBudgetOptions

    func validate() throws {
        try NoOpChecks.output(output, filters)
        try NoOpChecks.login(connection)
        try reloading.validate(channelsFile: connection.channelsFile)
        try ReportLimit.validate(reportLimit)
        guard !channels.isEmpty || connection.channelsFile != nil else {
            throw ValidationError("name at least one channel (or --channels-file)")
        }
        _ = try connection.channels(channels)
    }

    func run() throws {
        // First, as capture does: a stop signal during start-up is never lost.
        let stop = StopFlag()
        Interrupts.install(stop)
        ignoreBrokenPipes()
        if connection.insecure { Diagnostics.warning(TLSConfiguration.insecureWarning) }
        let credentials = try connection.credentials()
        let sink = OutputSink()
        var options = PipelineOptions()
        output.apply(to: &options, sink: sink)
        options.capacity = capacity
        options.reportLimit = reportLimit
        options.channelLimit = limits.channelLimit
        // One budget for the rings of the output and those of --http-port.
        let budget = memory.make()
        options.budget = budget
        try filters.apply(to: &options, windowDefault: 5)
        let pipeline = OutputPipeline(options: options, sink: sink, diagnose: Diagnostics.note)
        let http = try liveHTTP.start(command: "tail", quiet: false, budget: budget)
        var failure: OutputError? = nil
        var joined = 0
        // systemd (Type=notify): READY=1 once every JOIN has its outcome, WATCHDOG=1 from this loop,
        // STATUS= every 10 s.
        let service = ServiceManager.notifier(statusIntervalMs: 10_000)
        var joinedChannels = Set<String>()
        let session = try LiveSession(
            channels: try connection.channels(channels), credentials: credentials, endpoint: connection.endpoint,
            settings: connection.settings(for: credentials), stop: stop,
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
        session.recentMessages = backfill.source(connection)
        session.onMalformedLine = { bytes, _ in http?.malformed(bytes) }
        // Output is batched; each loop tick (at least every 30 ms) flushes what is 0.1 s old.
        let started = Moment.now().monotonicMs
        // When every JOIN has its outcome (the first time): how long joining took, and from then on
        // the line rate (--stats).
        var settled: (ms: Int64, lines: Int)? = nil
        let channelCount = Set(try connection.channels(channels).map(Login.normalize)).count
        // SIGHUP re-reads --channels-file (TailCommand+Reload.swift).
        let reload = try channelReloader(session: session)
        // An output error (EPIPE: the reader went away) ends the session at the next tick.
        session.onTick = {
            reload?()
            if settled == nil && session.joinsSettled {
                let now = Moment.now().monotonicMs
                settled = (now, pipeline.summary.lines)
                Diagnostics.note(
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
        let deadline = connection.deadline(from: Moment.now().monotonicMs)
        let ending = session.run(until: deadline)
        switch ending {
        case .deadline: Diagnostics.note("stopped: --duration \(connection.durationText) reached")
        case .stopped where failure == nil: Diagnostics.note("stopped: SIGINT or SIGTERM")
        default: break
        }
        service?.stopping(status: "stopping after \(pipeline.summary.lines) lines")
        http?.stop(session) { Self.httpFigures(pipeline) }
        ServiceManager.finish(service)
        if stats {
            let seconds = Double(Moment.now().monotonicMs - started) / 1000
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            let cpu =
                Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            let lines = pipeline.summary.lines
            Diagnostics.note(
                "stats: \(lines) lines in \(seconds) s = \(Int(Double(lines) / max(seconds, 0.001))) lines/s; CPU \(cpu) s (\(Int(cpu / max(seconds, 0.001) * 100)) % of one core)"
            )
            if let settled {
                let since = Double(Moment.now().monotonicMs - settled.ms) / 1000
                let after = lines - settled.lines
                Diagnostics.note(
                    "stats: since all joined (after \(Double(settled.ms - started) / 1000) s): \(after) lines in \(since) s = "
                        + "\(Int(Double(after) / max(since, 0.001))) lines/s")
            }
        }
        if session.recentMessages != nil { Diagnostics.note("backfill: " + session.backfillCounters.summary) }
        Diagnostics.note(budget.summary)
        if let http { Diagnostics.note(http.summary) }
        if session.overlapDuplicates > 0 {
            Diagnostics.note(
                "RECONNECT overlaps: \(session.overlapDuplicates) lines received on both connections, written once")
        }
        try finish(strict: false, warnsWhenEmpty: false) {
            if let failure { throw failure }
            try pipeline.finish()
            return pipeline.summary
        }
        if case .loopFailed = ending {
            Diagnostics.error("\(ending); stopped after \(pipeline.summary.lines) lines")
            throw ExitCode(.software)
        }
        if let fatal = session.fatal { try ConnectionOptions.exit(failure: session.failure, message: fatal) }
        if !session.everRegistered { try connection.exitUnreached(session.lastFailure) }
        if joined == 0 { try connection.exitNoneJoined(asked: channelCount) }
    }
}

/// SIGINT and SIGTERM raise a stop flag that the ingest loop polls (it wakes at least every 250 ms).
enum Interrupts {
    nonisolated(unsafe) static var flag: StopFlag? = nil

    /// The first SIGINT/SIGTERM raises `flag` (finish the current lines, close files, exit 0); a
    /// second one, while the first is still being honoured (e.g. a capture waiting for a stuck
    /// disk), exits at once with 130 — what a crash leaves (flushed data) stays readable.
    static func install(_ flag: StopFlag) {
        self.flag = flag
        signal(SIGINT) { _ in Interrupts.received() }
        signal(SIGTERM) { _ in Interrupts.received() }
        // A parent may have started us with these signals blocked (a thread's mask is inherited):
        // unblock them, or Ctrl-C and `kill` would be ignored until --duration ends.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigprocmask(SIG_UNBLOCK, &set, nil)
    }

    /// Async-signal-safe: an atomic flag, `write(2)` and `_exit(2)` only.
    private static func received() {
        guard let flag, !flag.isRaised else {
            let text = "\nchatcap: second interrupt: exiting now\n"
            _ = text.utf8.withContiguousStorageIfAvailable { write(2, $0.baseAddress, $0.count) }
            _exit(130)
        }
        flag.raise()
    }
}
