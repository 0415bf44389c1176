import ArgumentParser
import ChatArchive
import ChatInput
import ChatMemory
import ChatNet
import ChatPosix
import ChatStore
import ChatWatch
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Show live or replayed chat full-screen, with scrollback, a filter and one view per channel.",
        discussion: """
            Replays the inputs through the live pipeline and shows each channel's latest messages: \
            time (UTC), badges (B broadcaster, M moderator, V VIP, S subscriber), the name in its \
            colour, emotes highlighted, and deleted, timed-out or banned messages struck through with \
            the reason. The header shows the room settings (slow, followers, sub-only, emote-only), \
            messages per second and the feed's state. The view stays open when the replay ends.

            Keys: q quit · k/j or Up/Down one message · PgUp/PgDn (b/space) one page · g/Home oldest \
            · G/End back to live · / filter by login or text (Enter applies, Esc clears) · Tab and \
            Shift-Tab next and previous channel · Ctrl-L redraw. With several channels (repeat \
            --channel, or inputs that hold several), Tab switches between them. Scrolling pauses the \
            live tail; the footer counts the new messages below.

            The keyboard and screen are the terminal (/dev/tty), so chat can come from standard input.

            \(ConnectionOptions.exitStatusHelp); 65 a problem in the inputs with --strict, 74 no \
            terminal.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var backfill: RecentMessagesOptions
    @OptionGroup var memory: MemoryBudgetOptions

    @Option(
        parsing: .unconditional,
        help:
            "Pace lines by their timestamps at this many times real time, \(OptionRanges.speed.text), or max for no pacing (default: 1).",
        transform: { try Speed.parse($0) })
    var speed = Speed(factor: 1)

    @Flag(
        help:
            "Keep reading the inputs as they grow: a file like tail -f, or a capture directory still being written (its new channels and files too); lines are shown as they come, unpaced."
    )
    var follow = false

    @Option(
        name: .customLong("channel"), help: "Show this channel (login, with or without #); repeatable, Tab switches.")
    var channels: [String] = []

    @Flag(help: "On exit, print redraws, redraws/s and terminal bytes/s to stderr (also CHATCAP_WATCH_STATS=1).")
    var stats = false

    @Option(parsing: .unconditional, help: ReportLimit.help("on standard error on exit"))
    var reportLimit = 20

    func validate() throws {
        try NoOpChecks.login(connection)
        if liveArguments.isEmpty && connection.channelsFile == nil {
            if connection.duration != nil {
                throw ValidationError("--duration limits watching live; a replay of files ends with its input")
            }
            let ignored = NoOpChecks.liveOnly(connection)
            if !ignored.isEmpty {
                throw ValidationError(
                    "\(ignored.joined(separator: ", ")) \(ignored.count == 1 ? "applies" : "apply") only to watching live, not to a replay of files"
                )
            }
        }
        try ReportLimit.validate(reportLimit)
        if follow && (!liveArguments.isEmpty || connection.channelsFile != nil) {
            throw ValidationError(
                "--follow reads log files and directories as they grow; live channels need no --follow")
        }
        for c in channels where !Login.isValid(Login.normalize(c)) {
            throw ValidationError("--channel: '\(c)' is not a channel login (\(Login.whyInvalid(Login.normalize(c))))")
        }
        let live = liveArguments
        if connection.channelsFile != nil && live.count != input.inputs.count && input.inputs != ["-"] {
            throw ValidationError("--channels-file watches live: give no log files with it")
        }
        if !live.isEmpty && live.count != input.inputs.count {
            throw ValidationError("give either log files and directories, or channels to watch live, not both")
        }
        for c in live where !Login.isValid(Login.normalize(c)) {
            if connection.namesServer {
                throw ValidationError("'\(c)' is not a channel login (--host, --port or --plain mean watching live)")
            }
            throw ValidationError("'\(c)' is neither a file or directory nor a channel login")
        }
    }

    /// The inputs to watch live: all of them when an option names a server (connection options mean
    /// live), else those that name no file, directory or `-`.
    private var liveArguments: [String] {
        if connection.namesServer { return input.inputs == ["-"] ? [] : input.inputs }
        return input.inputs.filter { $0 != "-" && access($0, F_OK) != 0 }
    }

    /// Channels to watch live (arguments, then `--channels-file`), or `nil` to replay the inputs.
    private func liveChannels() throws -> [String]? {
        let names = try connection.channels(liveArguments)
        return names.isEmpty ? nil : names.map(Login.normalize)
    }

    func run() throws {
        ignoreBrokenPipes()
        var options = WatchSession.Options()
        options.channels = channels.map(Login.normalize)
        options.capacity = input.entriesPerChannel
        options.reportLimit = reportLimit
        let budget = memory.make()
        options.budget = budget
        let liveChannels = try liveChannels()
        if let live = liveChannels, options.channels.isEmpty { options.channels = live }
        let session = WatchSession(options: options)
        let feed: any WatchFeed
        if let live = liveChannels {
            if connection.insecure { Diagnostics.warning(TLSConfiguration.insecureWarning) }
            let credentials = try connection.credentials()
            feed = LiveFeed(
                channels: live, credentials: credentials, endpoint: connection.endpoint,
                settings: connection.settings(for: credentials), seconds: connection.duration,
                recentMessages: backfill.source(connection))
        } else if follow {
            // The reader's waits tick the screen and end when the session stops (q, SIGINT).
            weak var following: RecordingFeed? = nil
            let mode = FollowMode(stop: session.stop, idle: { following?.idle() })
            let recording = RecordingFeed(reader: try input.makeReader(follow: mode), speed: nil)
            following = recording
            feed = recording
        } else {
            feed = RecordingFeed(reader: try input.makeReader(), speed: speed.factor)
        }
        let report: WatchSession.Report
        do {
            report = try session.run(feed)
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(.ioErr)
        }
        for problem in report.problems { Diagnostics.note(problem) }
        if budget.trimmedEntries > 0 { Diagnostics.note(budget.summary) }
        if let error = (feed as? RecordingFeed)?.exhaustion {
            Diagnostics.error("\(error)")
            throw ExitCode(.noInput)
        }
        if let failure = (feed as? LiveFeed)?.failure {
            try ConnectionOptions.exit(failure: failure.reason, message: failure.message)
        }
        if let unreached = (feed as? LiveFeed)?.unreached { try connection.exitUnreached(unreached) }
        if report.problemCount > report.problems.count {
            Diagnostics.note("(\(report.problemCount - report.problems.count) further input problems)")
        }
        if stats || Environment.value("CHATCAP_WATCH_STATS").map({ !$0.isEmpty && $0 != "0" }) == true {
            Diagnostics.note(report.stats.summary)
        }
        if input.strict && report.problemCount > 0 { throw ExitCode(.dataErr) }
    }
}
