import ArgumentParser
import ChatFormat
import ChatInput
import ChatOutput
import ChatStore

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Replay everything, then write each channel's final view-model window as NDJSON.",
        // Written out: the generated one lists every option (dump past 80 columns).
        usage: "chatcap dump [<options>] [<inputs> ...]",
        discussion: """
            One typed JSON object per line (see docs/ndjson.md), in sequence order per channel, with \
            moderation fields (deleted, timed_out, banned, cleared) on every message. Malformed lines \
            are reported on standard error with file and line number (the first 20; see \
            --report-limit) and all of them counted in the summary.
            """)

    @OptionGroup var input: InputOptions

    @Option(
        parsing: .unconditional,
        help:
            "Entries per channel window (the view model's N), \(OptionRanges.capacity.text) and at most --capacity (default: 150).",
        transform: { try OptionRanges.capacity.parse($0) })
    var last = 150

    @Flag(help: "Add every tag as \"tags\".")
    var withTags = false

    @Flag(help: "Add the raw line as \"raw\".")
    var withRaw = false

    @Option(parsing: .unconditional, help: ReportLimit.help("on standard error"))
    var reportLimit = 20

    @OptionGroup var limits: ChannelLimitOptions

    @OptionGroup var threads: ParseAheadOptions

    func validate() throws {
        try ReportLimit.validate(reportLimit)
        guard last <= input.entriesPerChannel else {
            throw ValidationError("--last (\(last)) cannot exceed --capacity (\(input.entriesPerChannel))")
        }
    }

    func run() throws {
        ignoreBrokenPipes()
        let sink = OutputSink()
        var options = PipelineOptions()
        options.format = .json
        options.json = JSONOptions(withTags: withTags, withRaw: withRaw)
        options.capacity = input.entriesPerChannel
        options.strict = input.strict
        options.reportLimit = reportLimit
        options.channelLimit = limits.channelLimit
        let reader = try input.makeReader()
        let pipeline = OutputPipeline(options: options, sink: nil, diagnose: Diagnostics.note)
        let stage = threads.stage(for: reader, worthwhile: true)
        let events: any EventSource = stage ?? reader
        try finish(strict: input.strict) {
            try pipeline.run(events)
            try InputOptions.exitIfStopped(events.exhaustion)
            threads.report(stage)
            try pipeline.writeWindows(last: last, to: sink)
            return pipeline.summary
        }
    }
}
