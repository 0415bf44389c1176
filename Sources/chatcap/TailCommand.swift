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
        // systemd (Type=notify): READY=1 once every JOIN has its outcome, WATCHDOG=1 from the loop,
        // STATUS= every 10 s.
        let service = ServiceManager.notifier(statusIntervalMs: 10_000)
        let named = try connection.channels(channels)
        let run = TailRun(
            connection.live(named, credentials: credentials, backfill: backfill), console: Diagnostics.console,
            stop: stop, pipeline: pipeline, sink: sink, budget: budget, http: http, service: service,
            reload: try channelReloader())
        run.stats = stats
        let end = try run.run()
        ServiceManager.finish(service)
        run.report(end)
        try finish(strict: false, warnsWhenEmpty: false) {
            if let failure = end.failure { throw failure }
            try pipeline.finish()
            return pipeline.summary
        }
        if case .loopFailed = end.ending {
            Diagnostics.error("\(end.ending); stopped after \(pipeline.summary.lines) lines")
            throw ExitCode(.software)
        }
        let session = end.session
        if let fatal = session.fatal { try ConnectionOptions.exit(failure: session.failure, message: fatal) }
        if !session.everRegistered { try connection.exitUnreached(session.lastFailure) }
        if end.joined == 0 { try connection.exitNoneJoined(asked: Set(named.map(Login.normalize)).count) }
    }
}
