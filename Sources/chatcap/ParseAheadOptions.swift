import ArgumentParser
import ChatInput
import ChatPosix

/// Whether recorded input is parsed ahead on a second thread (``ParseAhead``): `replay`, `dump`, `stats`.
struct ParseAheadOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Read, parse and merge the input on a second thread: auto (where it pays, when the process may run on two CPUs or more), on or off.",
            discussion:
                "auto reads ahead for replay --format json, irc or text and for dump, where writing is most of the work, for replay --format raw of plain (not .gz) files, and for stats of one plain file (or one dated sequence), whose parse both threads share; not for stats of a merge of several files, where reading and parsing are nearly all of the work and the hand-off would cost more than it moves, nor for raw output or stats of .gz files, which are already inflated on a thread of their own. Only regular files (plain or gzip) are read ahead; standard input, pipes and --follow are read on one thread. The output is the same either way.",
            valueName: "mode"))
    var parseAhead: ThreadChoice = .auto

    @Flag(
        help: ArgumentHelp(
            "For tests and benchmarks: at the end, say on standard error whether the input was read ahead, and in how many blocks.",
            visibility: .hidden))
    var parseAheadReport = false

    /// With `--parse-ahead-report`, says whether `stage` ran and how many blocks it handed over:
    /// `parse-ahead: on, 12 blocks (5 parsed by the owner)` or `parse-ahead: off`.
    func report(_ stage: ParseAhead?) {
        guard parseAheadReport else { return }
        guard let stage else {
            Diagnostics.note("parse-ahead: off")
            return
        }
        Diagnostics.note(
            "parse-ahead: on, \(stage.blocksTaken) block\(stage.blocksTaken == 1 ? "" : "s") "
                + "(\(stage.blocksParsedByOwner) parsed by the owner)")
    }

    /// The stage that reads `reader` ahead, or `nil` to read it on the calling thread: off; with
    /// `auto`, on a single CPU (the hand-off would only add work) or when `worthwhile` is false (the
    /// owner's share of the work is too small to balance the reader's: stats, raw output of gzip files); or for
    /// inputs it does not suit. With `renderer` (``OutputPipeline/renderer()``) the stage renders each
    /// line where it parses it.
    func stage(
        for reader: MergeReader, worthwhile: Bool, renderer: (() -> any LineRendering)? = nil
    ) -> ParseAhead? {
        guard parseAhead.wanted, parseAhead == .on || worthwhile else { return nil }
        return ParseAhead.suits(reader) ? ParseAhead(reader, renderer: renderer) : nil
    }
}

/// Whether a second thread takes part: `--parse-ahead`, capture's `--flush-thread`.
enum ThreadChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, on, off

    /// Whether to use the thread: on, off, or with `auto` when the process may run on two CPUs or more.
    var wanted: Bool {
        switch self {
        case .on: true
        case .off: false
        case .auto: Processors.available() >= 2
        }
    }
}
