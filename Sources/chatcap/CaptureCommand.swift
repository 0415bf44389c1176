import ArgumentParser
import ChatArchive
import ChatLive
import ChatLogStore
import ChatNet
import ChatPosix
import ChatRun
import ChatStore
import IRCWire
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Archive Twitch chat to rotating gzip files that survive crashes.",
        discussion: """
            Writes DIR/<channel>/<YYYY-MM-DD>.log.gz (UTC) per channel, each line as received with an IRCv3 \
            time tag (receive time) added first, and DIR/_session/<YYYY-MM-DD>.log.gz with the lines that \
            have no channel and our own CAPTURE records (connections, joins, gaps). Files are flushed at \
            least every --flush-interval (0.5 s), so after a crash everything received before is readable by zcat and replay; \
            a restart appends a new gzip member. Lines the parser rejects are stored in the _session file \
            as received; with channels named, lines of any other channel go there too. At most \
            --max-open-files files are open: the least recently written is finished and closed, and a later \
            line reopens it with a new gzip member. Compressed chat waits for the disk in memory up to --buffer (plus about 320 KiB \
            per open file); when that is full, capture says so, stops reading the socket until half is \
            written (back-pressure: nothing is dropped), and counts the event. SIGINT/SIGTERM close every \
            file and exit 0 (a second one exits at once, 130); a write error (e.g. disk full) names the file \
            and exits 74. With --channels-file, SIGHUP reads the file again: channels added are joined at the \
            JOIN pace, channels removed are parted and their files finished, every other channel goes on \
            without a gap or a reconnect (--shard still applies); the change is said on stderr and stored as \
            a reload record, and a file that no longer parses keeps the list in force and says why. --opt-out FILE \
            withholds the lines of the channels and users it lists (counted; SIGHUP reads it again). Under systemd (NOTIFY_SOCKET set) it notifies READY=1 once every JOIN has its \
            outcome, STATUS=, WATCHDOG=1 (WatchdogSec=) and STOPPING=1. Format, records, status fields and \
            a unit file: docs/capture.md.

            \(ConnectionOptions.exitStatusHelp), \(ConnectionOptions.noChannelJoinedHelp), 66 an --opt-out file that \
            cannot be read or holds an entry that is neither a login nor an id, 74 write error.
            """)

    enum StatusMode: String, ExpressibleByArgument, CaseIterable {
        case auto, json, none
    }

    @Argument(help: "Channels to join (logins, with or without #); more with --channels-file.")
    var channels: [String] = []

    @Option(
        help: ArgumentHelp(
            "Keep only the channels of shard K of N (1 <= K <= N <= 4096): those whose crc32(login) % N is K-1.",
            discussion:
                "login is the channel's login in lower case without #; crc32 is zlib's (Python: zlib.crc32). "
                + "Hosts given the same channels with 1/N … N/N split them; two hosts on one shard are redundant.",
            valueName: "K/N"))
    var shard: String?

    @Option(help: "Directory to write the capture into (created if missing).", completion: .directory)
    var dir: String

    @Option(
        help: "Rotate files daily, hourly, or at a size from 64K to 1024G such as 100M (also daily).",
        completion: .list(["daily", "hourly", "100M", "1G"]))
    var rotate = "daily"

    @Option(
        parsing: .unconditional,
        help:
            "gzip compression level, \(CaptureCommand.levelRange.text): 1 (fastest) to 3 run on ISA-L, 4 to 9 (smallest) on zlib at a fraction of the speed (default: \(CaptureOptions.defaultLevel)).",
        transform: { Int32(try CaptureCommand.levelRange.parse($0)) })
    var level: Int32 = CaptureOptions.defaultLevel

    @Option(help: "Most compressed chat waiting for the disk before reading stops, a size from 1M to 4G such as 16M.")
    var buffer = "16M"

    @Option(
        parsing: .unconditional,
        help:
            "Most files open at once, \(CaptureCommand.maxOpenFilesRange.text); the least recently written is closed and reopened when needed (default: one per channel joined and one for _session, at most half of ulimit -n, raised to its hard limit first).",
        transform: { try CaptureCommand.maxOpenFilesRange.parse($0) })
    var maxOpenFiles: Int? = nil

    @Flag(help: "Store the received bytes unchanged, without the added time tag.")
    var verbatim = false

    @Option(
        help:
            "Status on stderr: auto (a status line when stderr is a terminal), json (one object every --status-interval seconds) or none."
    )
    var status: StatusMode = .auto

    @Option(
        parsing: .unconditional,
        help:
            "Seconds between JSON status objects (and systemd STATUS= updates, under NOTIFY_SOCKET), \(CaptureCommand.statusIntervalRange.text) (default: 10).",
        transform: { try CaptureCommand.statusIntervalRange.parse($0) })
    var statusInterval: Double?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds between flushes of every file written to, \(CaptureCommand.flushIntervalRange.text) (default: 0.5): a crash loses at most the lines of the last interval.",
            discussion:
                "Each flush compresses what a file holds with its own Huffman tables: at 10,000 busy channels the flushes "
                + "take about 0.16 of a core at 0.5 s, 0.016 at 5 s (up to about 1.2x the lines per second, 3-5% more "
                + "ratio), for more memory (each file's output chunk fills further) and lines that reach the disk later "
                + "(replay --follow may then write them out of time order). See docs/capture.md, \"Flushing many files\"."
        ),
        transform: { try CaptureCommand.flushIntervalRange.parse($0) })
    var flushInterval: Double = 0.5

    @Option(
        help: ArgumentHelp(
            "Share the compression of each flush of every file with a second thread: auto (when the process may run on two CPUs or more), on or off.",
            discussion:
                "With many channels nearly all compressing happens at the flushes (each file's text is compressed when "
                + "its 64 KiB stage fills or at a flush), and reading stops while they run. The files hold the same lines either way.",
            valueName: "mode"))
    var flushThread: ThreadChoice = .auto

    static let levelRange = NumberRange(1...9)
    /// `--flush-interval`: from about two loop turns to a minute (what a crash may lose).
    static let flushIntervalRange = NumberRange(0.1...60.0, unit: "seconds")
    static let maxOpenFilesRange = NumberRange(2...65_536)
    static let statusIntervalRange = NumberRange(0.1...86_400.0, unit: "seconds")
    /// `--rotate` sizes: below 64K a file would be rotated at nearly every write to disk.
    static let rotateSizes: ClosedRange<UInt64> = (64 << 10)...(1024 << 30)

    @Option(
        name: .customLong("opt-out"),
        help: ArgumentHelp(
            "Do not write (nor serve over --http-port) the lines of these channels and users: a file of logins "
                + "and numeric user ids, one a line (# comments), as chatcap logs --opt-out reads. A user's lines "
                + "are their messages and notices, their timeouts and bans, deletions naming them; a channel's, "
                + "all its lines. Counted in the end-of-run summary. SIGHUP reads it again.",
            valueName: "file"),
        completion: .file())
    var optOutFile: String?

    @Flag(help: "Print no status and no notes on stderr (errors still).")
    var quiet = false

    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backfill: RecentMessagesOptions
    @OptionGroup var reloading: ReloadOptions
    @OptionGroup var liveHTTP: LiveHTTPOptions
    @OptionGroup(title: "Logs API and listener bounds (with --http-port)") var logsBounds: LogsBoundsOptions
    @OptionGroup var memory: MemoryBudgetOptions

    func validate() throws {
        if memory.memoryBudget != nil && liveHTTP.http.httpPort == nil {
            throw ValidationError("--memory-budget applies only with --http-port (capture keeps rings only for it)")
        }
        if logsBounds.isGiven && liveHTTP.http.httpPort == nil {
            throw ValidationError(
                "--max-connections, --request-timeout, --max-range-days and --max-limit apply only with --http-port")
        }
        try NoOpChecks.login(connection)
        try reloading.validate(channelsFile: connection.channelsFile)
        if quiet && status == .json {
            throw ValidationError("--quiet silences the status that --status json asks for: give one of them")
        }
        try NoOpChecks.statusInterval(
            statusInterval, json: status == .json, serviceStatus: Environment.value("NOTIFY_SOCKET") != nil)
        guard !channels.isEmpty || connection.channelsFile != nil else {
            throw ValidationError("name at least one channel (or --channels-file)")
        }
        let named = try connection.channels(channels)
        if let shard {
            guard let parsed = ChannelShard(argument: shard) else {
                throw ValidationError(
                    "--shard must be K/N with 1 <= K <= N <= \(ChannelShard.maximumCount) (got '\(shard)')")
            }
            guard !parsed.filter(named).isEmpty else {
                throw ValidationError(
                    "shard \(parsed) keeps none of the \(Self.distinct(named).count) channels named")
            }
        }
        switch CaptureRotation(argument: rotate) {
        case .daily, .hourly: break
        case .size(let bytes) where Self.rotateSizes.contains(bytes): break
        default:
            throw ValidationError(
                "--rotate must be daily, hourly or a size from 64K to 1024G such as 100M (got '\(rotate)')")
        }
        guard let limit = CaptureRotation.byteCount(buffer), limit >= 1 << 20, limit <= 1 << 32 else {
            throw ValidationError("--buffer must be a size from 1M to 4G, such as 16M (got '\(buffer)')")
        }
        // --level, --max-open-files, --flush-interval and --status-interval are in range: their parsers check it.
    }

    func run() throws {
        // First: a stop signal at any moment of start-up (reading the previous run's files, connecting,
        // joining) ends the run, also when the parent started us with SIGINT ignored (`cmd &` in a script).
        let stop = StopFlag()
        Interrupts.install(stop)
        ignoreBrokenPipes()
        if connection.insecure { Diagnostics.warning(TLSConfiguration.insecureWarning) }
        let credentials = try connection.credentials()
        let named = try connection.channels(channels)
        let shard = self.shard.flatMap(ChannelShard.init(argument:))
        let channels = shard.map { Self.distinct($0.filter(named)) } ?? named
        if let shard, !quiet {
            Diagnostics.note(
                "shard \(shard) keeps \(channels.count) of \(Self.distinct(named).count) channels "
                    + "(crc32(login) % \(shard.count) == \(shard.index - 1))")
        }
        var optOut: CaptureOptOut? = nil
        if let optOutFile {
            do {
                optOut = CaptureOptOut(path: optOutFile, list: try LogsRun.readOptOut(optOutFile))
            } catch {
                Diagnostics.error("\(error)")
                throw ExitCode(.noInput)
            }
        }
        let http = try liveHTTP.start(
            command: "capture", quiet: quiet, budget: liveHTTP.http.httpPort == nil ? nil : memory.make(),
            logsDirectory: dir, logsBounds: logsBounds, logsOptOut: optOut?.list ?? OptOutList())
        var options = CaptureOptions(rotation: CaptureRotation(argument: rotate)!, verbatim: verbatim)
        options.level = level
        options.flushIntervalMs = Seconds.milliseconds(flushInterval)
        options.flushThread = flushThread.wanted
        options.bufferLimit = Int(CaptureRotation.byteCount(buffer)!)
        // Raised whether or not --max-open-files is given: the files need their descriptors either way.
        options.maxOpenFiles = maxOpenFiles ?? Self.defaultMaxOpenFiles(channels: Self.distinct(channels).count)
        var settings = CaptureRun.Settings(
            connection: connection.live(channels, credentials: credentials, backfill: backfill), named: named,
            directory: dir, options: options)
        settings.shard = shard
        settings.quiet = quiet
        settings.status = quiet ? .none : status == .json ? .json : status == .auto && isatty(2) == 1 ? .line : .none
        settings.statusIntervalMs = Seconds.milliseconds(statusInterval ?? 10)
        settings.columns = { TerminalWidth.columns(of: 2, environment: Environment.value) }
        settings.optOut = optOut
        // SIGHUP re-reads --channels-file (CaptureCommand+Reload.swift).
        let reload = channelReloader(channels: channels, shard: shard)
        // systemd (Type=notify): READY=1 once every JOIN has its outcome, WATCHDOG=1 from the loop.
        let service = ServiceManager.notifier(statusIntervalMs: settings.statusIntervalMs)
        let run = CaptureRun(
            settings, console: Diagnostics.console, stop: stop, http: http, service: service, reload: reload)
        let end: CaptureRun.Ending
        switch try run.run() {
        case .stoppedBeforeStart: return
        case .notStarted(let error):
            Diagnostics.error(error.description)
            throw ExitCode(.ioErr)
        case .ended(let ended): end = ended
        }
        ServiceManager.finish(service)
        if let failure = end.failure {
            Diagnostics.error(failure.description)
            throw ExitCode(.ioErr)
        }
        if case .loopFailed = end.ending {
            Diagnostics.error("\(end.ending); stopped after \(end.writer.lineCount) lines")
            throw ExitCode(.software)
        }
        run.report(end)
        let session = end.session
        if let fatal = session.fatal { try ConnectionOptions.exit(failure: session.failure, message: fatal) }
        if !session.everRegistered { try connection.exitUnreached(session.lastFailure) }
        if end.joined.isEmpty { try connection.exitNoneJoined(asked: Self.distinct(channels).count) }
    }

    /// `channels` normalised, each once, in their first order (``ChannelReload/distinct(_:)``).
    static func distinct(_ channels: [String]) -> [String] { ChannelReload.distinct(channels) }

    /// The default `--max-open-files`: a file for every channel joined and one for `_session`, within
    /// half the descriptor limit (the other half is left for sockets and everything else), after
    /// raising the limit to what the system allows (``DescriptorLimit/raise()``). A bound below the
    /// number of channels that chat at once closes and reopens files all the time: at 10,000
    /// interleaved channels, 128 or 4,096 open files cost about twice the CPU per line of 10,001 and
    /// compress 2.8:1 instead of 3.7:1 (docs/capture.md, "Open files").
    static func defaultMaxOpenFiles(channels: Int) -> Int {
        let halfLimit = DescriptorLimit.raise().map { $0 / 2 } ?? CaptureOptions.defaultMaxOpenFiles
        return max(2, min(channels + 1, halfLimit, maxOpenFilesRange.bounds.upperBound))
    }
}
