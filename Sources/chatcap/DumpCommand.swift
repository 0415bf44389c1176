import ArgumentParser
import ChatIO
import ChatStore
import IRCWire

struct DumpCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dump",
        abstract: "Replay everything, then write each channel's final view-model window as NDJSON.",
        discussion: """
            One typed JSON object per line (see docs/ndjson.md), in sequence order per channel, with \
            moderation fields (deleted, timed_out, banned, cleared) on every message.
            """)

    @OptionGroup var input: InputOptions

    @Option(help: "Entries per channel window (the view model's N).")
    var last = 150

    @Flag(help: "Add every tag as \"tags\".")
    var withTags = false

    @Flag(help: "Add the raw line as \"raw\".")
    var withRaw = false

    func validate() throws {
        guard last > 0 else { throw ValidationError("--last must be positive") }
        guard last <= input.capacity else {
            throw ValidationError("--last (\(last)) cannot exceed --capacity (\(input.capacity))")
        }
    }

    func run() throws {
        ignoreBrokenPipes()
        let sink = OutputSink()
        var options = ReplayOptions()
        options.capacity = input.capacity
        options.strict = input.strict
        let reader = try input.makeReader()
        let replay = Replay(options: options, sink: nil) { Diagnostics.write("chatcap: \($0)\n") }
        try finish(strict: input.strict) {
            try replay.run(reader)
            var summary = replay.summary
            summary.written = try writeWindows(replay.store, to: sink)
            return summary
        }
    }

    /// Writes the last `last` entries of every named channel, channels in order of first sight.
    private func writeWindows(_ store: ChatStore, to sink: OutputSink) throws(OutputError) -> Int {
        let reader = store.readers.makeReader()!
        var writer = JSONWriter()
        var written = 0
        var failure: OutputError? = nil
        for c in 0..<store.channelCount {
            guard let log = store.log(at: c), !log.name.isEmpty else { continue }
            let live = log.ring.liveRange
            let lower = max(live.lowerBound, live.upperBound >= UInt64(last) ? live.upperBound - UInt64(last) : 0)
            log.ring.withEntries(in: lower..<live.upperBound, reader: reader) { info, bytes in
                guard failure == nil else { return }
                let message = TwitchMessage(info.parsed, in: bytes)
                let context = LineContext(
                    timestamp: LineTime(of: message, in: bytes).timestamp, tombstone: info.tombstone, isMirror: info.isMirror)
                writer.reset()
                TypedJSONEncoder.encode(bytes, message, context, options: JSONOptions(withTags: withTags, withRaw: withRaw), into: &writer)
                writer.raw(byte: 0x0A)
                do throws(OutputError) {
                    try writer.withBytes { bytes throws(OutputError) in try sink.write(bytes) }
                    try sink.endLine()
                    written += 1
                } catch { failure = error }
            }
            if let failure { throw failure }
        }
        try sink.flush()
        return written
    }
}
