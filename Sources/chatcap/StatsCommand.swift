import ArgumentParser
import ChatInput
import ChatOutput
import IRCWire

struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count lines per channel and per command or msg-id, rates, time span and malformed lines.",
        // Written out: the generated one lists every option (stats past 80 columns).
        usage: "chatcap stats [<options>] [<inputs> ...]",
        discussion: """
            Every channel is counted, however many. Problems are listed with input and line under \
            "problems" (the first 100; see --report-limit), and all of them counted. Capture's own \
            records are counted too: runs (and runs that ended without stop), reconnects, join \
            outcomes, back-pressure and gaps with their total length, per channel ("capture" in JSON).
            """)

    @OptionGroup var input: InputOptions

    @Flag(help: "Write one JSON object instead of text.")
    var json = false

    @Option(parsing: .unconditional, help: ReportLimit.help("in the output's problem list"))
    var reportLimit = 100

    @OptionGroup var threads: ParseAheadOptions

    func validate() throws {
        try ReportLimit.validate(reportLimit)
        if input.capacity != nil {
            throw ValidationError("--capacity sizes the rings of replay, dump and watch; stats keeps no entries")
        }
    }

    func run() throws {
        ignoreBrokenPipes()
        let reader = try input.makeReader()
        // Counting reads a line's command, channel and times; the few lines whose other tags it
        // reads (CAPTURE, USERNOTICE, NOTICE) it parses again whole (``StatsCollector``).
        reader.tagScope = .times
        let stats = StatsCollector(listLimit: reportLimit)
        // Read ahead only where the parse is shared (one lane: the reader thread frames, both threads
        // parse) and no input is gzip: reading and parsing are nearly all of stats, so a reader thread
        // that parses every line alone would only add the hand-off, and one that inflates too leaves
        // the owner little to share (0.82 s against 0.67 s on one thread beside a prefetch thread;
        // README, "Parse-ahead on a second core").
        let worthwhile = ParseAhead.sharesParse(reader) && !reader.hasGzipInput
        let stage = threads.stage(for: reader, worthwhile: worthwhile)
        let events: any EventSource = stage ?? reader
        stats.collect(events)
        try InputOptions.exitIfStopped(events.exhaustion)
        threads.report(stage)
        let sink = OutputSink()
        do {
            try sink.write(json ? stats.json() : Array(stats.text().utf8))
            try sink.flush()
        } catch OutputError.closed {
            return
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(.ioErr)
        }
        if stats.lines == 0 && stats.malformed + stats.skipped > 0 {
            Diagnostics.error("no valid IRC line in the input")
            throw ExitCode(.dataErr)
        }
        if input.strict && stats.malformed + stats.skipped + stats.damagedInputs + stats.bareCarriageReturnInputs > 0 {
            throw ExitCode(.dataErr)
        }
    }
}
