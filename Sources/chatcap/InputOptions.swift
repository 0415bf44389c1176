public import ArgumentParser
import ChatFormat
import ChatInput
import ChatOutput
import ChatStore

#if canImport(Glibc)
    import Glibc
#endif

/// The inputs every reading command takes.
struct InputOptions: ParsableArguments {
    @Argument(
        help: """
            Log files (plain or gzip), capture directories, or - for standard input; any number, at most \
            half of ulimit -n open at once.
            """, completion: .file())
    var inputs: [String] = ["-"]

    @Option(
        name: .customLong("capacity"), parsing: .unconditional,
        help:
            "Entries kept per channel (the moderation look-ahead), \(OptionRanges.capacity.text); memory follows the lines read, not this bound (default: \(EntryRing.defaultCapacity)).",
        transform: { try OptionRanges.capacity.parse($0) })
    var capacity: Int?

    /// `--capacity`, or its default: the entries kept per channel.
    var entriesPerChannel: Int { capacity ?? EntryRing.defaultCapacity }

    @Flag(
        help:
            "Fail with exit status 65 on any problem the summary counts: a malformed line, a damaged input, a line of a channel past the channel limit."
    )
    var strict = false

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one input (or - for standard input)") }
    }

    /// Exits 65 (EX_DATAERR) for an input named on the command line that is binary, not chat (a NUL
    /// byte in its first bytes, and not gzip): `replay /bin/ls` wrote garbage lines and exited 0.
    static func refuseBinary(_ inputs: [String]) throws {
        for input in inputs where input != "-" {
            guard let offset = InputPaths.binaryOffset(of: input) else { continue }
            Diagnostics.error(
                "\(input): not a chat log: binary data (a NUL byte at offset \(offset)); give IRC lines, a "
                    + "capture's .log.gz files or a capture directory")
            throw ExitCode(.dataErr)
        }
    }

    /// Says so when standard input is read and is a terminal (no input was named, or `-`): the
    /// command waits for lines typed or pasted, where a newcomer expected a file to be read.
    static func noteTerminalInput(_ inputs: [String]) {
        guard inputs.contains("-"), isatty(0) == 1 else { return }
        Diagnostics.note(
            "reading chat from standard input (a terminal): type or paste IRC lines, Ctrl-D ends; "
                + "name a log file or capture directory to read it instead")
    }

    /// Exits 66 when the reader stopped because an input could not be opened for want of descriptors
    /// (its ``MergeReader/exhaustion``), naming the input.
    static func exitIfStopped(_ exhaustion: InputError?) throws {
        guard let error = exhaustion else { return }
        Diagnostics.error("\(error)")
        throw ExitCode(.noInput)
    }

    /// Opens the inputs, or exits 66 with a clear message.
    func makeReader(follow: FollowMode? = nil) throws -> MergeReader {
        Self.noteTerminalInput(inputs)
        try Self.refuseBinary(inputs)
        do {
            // One log read at a time: its gzip files are inflated on a thread of their own.
            let reader = try MergeReader(arguments: inputs, follow: follow, prefetchesGzip: true)
            for note in reader.expansionNotes { Diagnostics.note(note) }
            return reader
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(.noInput)
        }
    }
}

/// How lines are written.
struct OutputOptions: ParsableArguments {
    @Option(
        name: .customLong("format"),
        help: "Output format: text, json (typed NDJSON), irc (ircdocs atoms as NDJSON) or raw (default: text).")
    var chosenFormat: OutputFormat?

    @Flag(
        name: .customLong("json"),
        help: ArgumentHelp("The same as --format json (as stats --json says it).", visibility: .hidden))
    var jsonShorthand = false

    /// `--format`, or json with `--json`, else text.
    var format: OutputFormat { chosenFormat ?? (jsonShorthand ? .json : .text) }

    mutating func validate() throws {
        if jsonShorthand, let chosenFormat, chosenFormat != .json {
            throw ValidationError("--json and --format \(chosenFormat) disagree: give one of them")
        }
    }

    @Option(help: "Colour in text output: auto (when stdout is a terminal and NO_COLOR is unset), always or never.")
    var color: ColorChoice = .auto

    @Flag(help: "Add every tag to json output as \"tags\".")
    var withTags = false

    @Flag(help: "Add the raw line to json output as \"raw\".")
    var withRaw = false

    /// Sets the output fields of `options`; `--color auto` decides from `sink`.
    func apply(to options: inout PipelineOptions, sink: OutputSink) {
        options.format = format
        options.color =
            switch color {
            case .always: true
            case .never: false
            case .auto: sink.isTerminal && Environment.value("NO_COLOR").map(\.isEmpty) ?? true
            }
        options.json = JSONOptions(withTags: withTags, withRaw: withRaw)
    }
}

enum ColorChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, always, never
}

extension OutputFormat: ExpressibleByArgument {}
extension ClickHouseRow.Times: ExpressibleByArgument {}
