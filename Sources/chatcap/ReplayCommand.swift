import ArgumentParser
import ChatFormat
import ChatInput
import ChatOutput
import ChatPosix
import ChatStore

struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run recorded chat through the live pipeline and write it out.",
        discussion: """
            Inputs are read in time order across files (IRCv3 time tag, else tmi-sent-ts), any number of \
            them: at most half of ulimit -n are open at once, and an input that cannot be opened (also for \
            want of file descriptors) ends the replay with exit status 66. Malformed \
            lines are reported on standard error with file and line number (the first 20; see \
            --report-limit) and all of them counted in the summary. \
            Output is written in large blocks, and never held longer than 0.1 s while input is paced \
            (--speed), followed (--follow) or slow to come; SIGINT or SIGTERM ends the replay after \
            writing out every line so far (exit 0).
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var output: OutputOptions

    @Option(
        parsing: .unconditional,
        help:
            "Pace lines by their timestamps at this many times real time, \(OptionRanges.speed.text), or max for no pacing; time outside --since/--until is skipped (default: max).",
        transform: { try Speed.parse($0) })
    var speed = Speed.max

    @Flag(
        help: ArgumentHelp(
            "Keep reading a growing file, like tail -f, or a capture directory still being written (one input).",
            discussion:
                "A directory is followed file by file without waiting on any quiet one: a line is written once every file has a line waiting or a second has passed since its time (capture flushes every 0.5 s), so within about a second of capture's flush, in time order; new channels' files and rotations join as they appear."
        ))
    var follow = false

    @Option(
        help: ArgumentHelp(
            "Only lines at or after this time (RFC 3339, or YYYY-MM-DD for the start of that day, UTC).",
            discussion:
                "A line without a time of its own (JOIN, PART, NOTICE, HOSTTARGET, …) has the time of the line before it in its input; lines before the input's first timed line are left out (--until keeps them)."
        ))
    var since: String?

    @Option(
        help:
            "Only lines before this time (RFC 3339), or up to the end of this day (YYYY-MM-DD, UTC: the day is included)."
    )
    var until: String?

    @OptionGroup var filters: FilterOptions

    @Option(parsing: .unconditional, help: ReportLimit.help("on standard error"))
    var reportLimit = 20

    @OptionGroup var limits: ChannelLimitOptions

    @OptionGroup var threads: ParseAheadOptions

    @Flag(
        help: ArgumentHelp(
            "For benchmarks: at the end, say on standard error what the rings hold and what they reserve.",
            visibility: .hidden))
    var memoryReport = false

    func validate() throws {
        try NoOpChecks.output(output, filters)
        try ReportLimit.validate(reportLimit)
        if let since, Timestamp.interval(parsingArgument: since) == nil {
            throw ValidationError("--since: cannot read '\(since)' as a time (use RFC 3339 or YYYY-MM-DD)")
        }
        if let until, Timestamp.interval(parsingArgument: until) == nil {
            throw ValidationError("--until: cannot read '\(until)' as a time (use RFC 3339 or YYYY-MM-DD)")
        }
        if let since, let until, let from = Timestamp.interval(parsingArgument: since)?.lowerBound,
            let to = Self.untilBound(until), from >= to
        {
            throw ValidationError("--since (\(since)) must be earlier than --until (\(until)): no line could pass")
        }
        if follow && input.inputs.count != 1 { throw ValidationError("--follow reads exactly one input") }
    }

    /// The exclusive end `--until` names: a bare date means up to the end of that day.
    static func untilBound(_ until: String) -> Timestamp? {
        Timestamp.interval(parsingArgument: until).map { until.count == 10 ? $0.upperBound : $0.lowerBound }
    }

    func run() throws {
        ignoreBrokenPipes()
        let sink = OutputSink()
        var options = PipelineOptions()
        output.apply(to: &options, sink: sink)
        options.speed = speed.factor
        options.since = since.flatMap { Timestamp.interval(parsingArgument: $0)?.lowerBound }
        options.until = until.flatMap(Self.untilBound)
        try filters.apply(to: &options)
        options.strict = input.strict
        options.capacity = input.entriesPerChannel
        options.reportLimit = reportLimit
        options.channelLimit = limits.channelLimit
        let replay = OutputPipeline(options: options, sink: sink, diagnose: Diagnostics.note)
        // SIGINT/SIGTERM end the replay: every line written so far is flushed, and the exit is 0.
        let stop = StopFlag()
        replay.stop = stop
        Interrupts.install(stop)
        // Waits for input (a followed file's end, a quiet pipe) flush output that is due.
        let reader = try input.makeReader(follow: FollowMode(stop: stop, followsFiles: follow, idle: { replay.idle() }))
        // Regular files, not followed: read ahead on a second thread (the follow mode's idle is never
        // called for them, so it cannot run there). Raw output only from plain files: from a gzip file
        // the stage's reader thread would inflate and frame while raw's owner has little to do, and
        // one thread beside a prefetch thread is as fast (README, "Parse-ahead on a second core").
        let worthwhile = output.format != .raw || !reader.hasGzipInput
        // The stage renders the lines as it parses them, where the output allows it (not raw, not
        // moderated): the encoding then runs beside the owner's appends instead of after them.
        let stage = follow ? nil : threads.stage(for: reader, worthwhile: worthwhile, renderer: replay.renderer())
        let events: any EventSource = stage ?? reader
        try finish(strict: input.strict) {
            try replay.run(events)
            try InputOptions.exitIfStopped(events.exhaustion)
            threads.report(stage)
            if memoryReport { Diagnostics.note("memory: \(replay.store.memory.description)") }
            return replay.summary
        }
    }
}

/// Runs `body`, maps output errors to exit statuses, prints the summary when something went wrong,
/// and applies `--strict`: exit 65 when lines were lost (``PipelineSummary/losesLines``: lines of
/// channels past the store's limit in `dump`), or with `--strict` on any problem the summary counts.
///
/// - Parameter warnsWhenEmpty: say "the input holds no lines" when nothing was read (inputs; a live
///   command says what happened to its connection instead).
func finish(strict: Bool, warnsWhenEmpty: Bool = true, _ body: () throws -> PipelineSummary) throws {
    let summary: PipelineSummary
    do {
        summary = try body()
    } catch OutputError.closed {
        return  // the reader of our output went away: not a failure
    } catch let error as OutputError {
        Diagnostics.error("\(error)")
        throw ExitCode(.ioErr)
    }
    if summary.hasProblems || summary.duplicates + summary.duplicateLines > 0 {
        Diagnostics.note("summary: \(summary.description)")
    }
    if summary.lines == 0 && summary.malformed + summary.skipped > 0 {
        Diagnostics.error("no valid IRC line in the input")
        throw ExitCode(.dataErr)
    }
    if warnsWhenEmpty && summary.lines == 0 && !summary.hasProblems {
        Diagnostics.warning("the input holds no lines")
    }
    if summary.losesLines {
        Diagnostics.error("\(summary.dropped) lines were not kept (see the summary)")
        throw ExitCode(.dataErr)
    }
    if strict && summary.hasProblems { throw ExitCode(.dataErr) }
}
