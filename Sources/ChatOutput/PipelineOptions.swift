public import ChatFormat
public import ChatMemory
public import ChatStore

/// What the ``OutputPipeline`` of `replay`, `dump` and `tail` does with the lines it reads. Not `Sendable` (it holds a
/// `Regex`).
public struct PipelineOptions {  // not Sendable: holds a Regex
    public var format: OutputFormat = .text
    public var color = false
    public var json = JSONOptions()
    /// Pace lines by their timestamps at this many times real time; `nil` for as fast as possible.
    public var speed: Double? = nil
    public var since: Timestamp? = nil
    public var until: Timestamp? = nil
    /// Channel logins (without `#`) to keep; empty keeps all.
    public var channels: Set<String> = []
    /// Sender logins to keep; empty keeps all.
    public var users: Set<String> = []
    /// Output types (`privmsg`, `clearchat`, …) to keep; empty keeps all.
    public var types: Set<String> = []
    /// Keep only lines whose message text matches.
    public var grep: Regex<AnyRegexOutput>? {
        get { grepBox?.regex }
        set { grepBox = newValue.map(GrepBox.init) }
    }
    /// ``grep`` in a box: `Regex` is of a resilient type, and stored here it gave `PipelineOptions`,
    /// and ``OutputPipeline`` which stores them, a layout known only at run time (a metadata lookup on
    /// each access to an option, per line).
    private var grepBox: GrepBox? = nil
    /// Hold each line until later moderation could have marked it, and show its tombstone.
    public var applyModeration = false
    /// Drop shared-chat copies of messages already shown for another channel.
    public var dedupeShared = false
    /// Drop a line whose message id was already seen in its channel within this many milliseconds, and
    /// a line without an id already kept from another input (by its content without receive-time
    /// tags; see ``RepeatFilter``), e.g. two captures of one channel merged; `nil` keeps every line.
    public var dedupeWindowMs: Int64? = nil
    /// Turn malformed input into a failure (exit status 65).
    public var strict = false
    /// Entries kept per channel (a line's look-ahead with `applyModeration` ends when its ring evicts it).
    public var capacity = EntryRing.defaultCapacity
    /// With `applyModeration`: milliseconds of chat time after a line at which its look-ahead ends
    /// even if its ring still holds it (`nil`: only the ring and the end of the input end it).
    public var moderationWindow: Int64? = 300_000
    /// With `applyModeration`: bytes of held lines above which the oldest are released before their
    /// look-ahead ended (counted in ``PipelineSummary/releasedEarly``).
    public var moderationHoldLimit = 256 << 20
    /// The process-wide bound on what the rings reserve (`--memory-budget`), shared with any other
    /// store of the process; `nil`: each ring keeps up to ``capacity`` entries.
    public var budget: MemoryBudget? = nil
    /// How many problems to describe one by one on stderr before only counting them; 0 for all.
    public var reportLimit = 20
    /// The most channels the store holds (``ChatStore/maximumChannels``); lowered only by tests
    /// (`--channel-limit`, hidden). Lines of further channels are written without the store
    /// (``PipelineSummary/untracked``) or, with no output (`dump`), dropped (``PipelineSummary/dropped``).
    package var channelLimit = ChatStore.maximumChannels

    public init() {}
}

/// What an ``OutputPipeline`` saw, for the exit summary and the exit status.
public struct PipelineSummary: Sendable, Equatable {
    public var lines = 0
    public var written = 0
    public var malformed = 0
    public var skipped = 0
    public var damagedInputs = 0
    public var failedInputs = 0
    /// Lines of channels past the store's channel limit written without it: no moderation
    /// (tombstones) and no shared-chat de-duplication for them, else as usual.
    public var untracked = 0
    /// Lines of channels past the store's channel limit that were not kept (`dump`: no window).
    public var dropped = 0
    /// The store's channel limit (for the summary's wording).
    public var channelLimit = ChatStore.maximumChannels
    /// Lines `--apply-moderation` wrote before their look-ahead ended (the hold was full).
    public var releasedEarly = 0
    /// Lines `--dedupe` dropped: their message id was already seen in the channel within the window.
    public var duplicates = 0
    /// Lines without a message id `--dedupe` dropped: the same line (but for receive-time tags) was
    /// kept from another input within the window.
    public var duplicateLines = 0
    /// Inputs with lines that hold CRs no LF follows (lines ended by CR alone run together).
    public var bareCarriageReturnInputs = 0
    /// Partial lines of a live source dropped because the connection closed in the middle of them.
    public var cutOff = 0

    public init() {}

    /// Problems worth a summary line.
    public var hasProblems: Bool {
        malformed + skipped + damagedInputs + failedInputs + untracked + dropped + releasedEarly
            + bareCarriageReturnInputs + cutOff > 0
    }

    /// Whether lines that were read are missing from the output (exit status 65 even without
    /// `--strict`).
    public var losesLines: Bool { dropped > 0 }

    public var description: String {
        var parts = ["\(lines) line\(lines == 1 ? "" : "s") read", "\(written) written"]
        if malformed > 0 { parts.append("\(malformed) malformed") }
        if skipped > 0 { parts.append("\(skipped) over-long skipped") }
        if cutOff > 0 { parts.append("\(cutOff) partial line\(cutOff == 1 ? "" : "s") cut off") }
        if damagedInputs > 0 { parts.append("\(damagedInputs) damaged inputs") }
        if failedInputs > 0 { parts.append("\(failedInputs) unreadable inputs") }
        if untracked > 0 {
            parts.append(
                "\(untracked) untracked (channels past the limit of \(channelLimit): no moderation or de-duplication)")
        }
        if dropped > 0 { parts.append("\(dropped) dropped (channels past the limit of \(channelLimit))") }
        if releasedEarly > 0 { parts.append("\(releasedEarly) released before their moderation look-ahead ended") }
        if duplicates > 0 { parts.append("\(duplicates) repeated message ids dropped (--dedupe)") }
        if duplicateLines > 0 { parts.append("\(duplicateLines) repeated lines without id dropped (--dedupe)") }
        if bareCarriageReturnInputs > 0 {
            parts.append(
                "\(bareCarriageReturnInputs) input\(bareCarriageReturnInputs == 1 ? "" : "s") with bare CR line endings"
            )
        }
        return parts.joined(separator: ", ")
    }
}

@available(*, unavailable)
extension PipelineOptions: Sendable {}

/// A `Regex` behind a reference (``PipelineOptions/grep``).
private final class GrepBox: @unchecked Sendable {  // immutable; `Regex` is not `Sendable`
    let regex: Regex<AnyRegexOutput>
    init(_ regex: Regex<AnyRegexOutput>) { self.regex = regex }
}
