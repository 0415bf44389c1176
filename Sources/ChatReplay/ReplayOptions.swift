public import ChatFormat
public import ChatStore

/// What `replay` (and `dump`, `stats`) do with the lines they read. Not `Sendable` (it holds a `Regex`).
public struct ReplayOptions {  // not Sendable: holds a Regex
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
    public var grep: Regex<AnyRegexOutput>? = nil
    /// Hold each line until later moderation could have marked it, and show its tombstone.
    public var applyModeration = false
    /// Drop shared-chat copies of messages already shown for another channel.
    public var dedupeShared = false
    /// Turn malformed input into a failure (exit status 65).
    public var strict = false
    /// Entries kept per channel (the moderation look-ahead with `applyModeration`).
    public var capacity = 2_500
    /// How many problems to describe one by one on stderr before only counting them.
    public var reportLimit = 20

    public init() {}
}

/// What a replay saw, for the exit summary and the exit status.
public struct ReplaySummary: Sendable, Equatable {
    public var lines = 0
    public var written = 0
    public var malformed = 0
    public var skipped = 0
    public var damagedInputs = 0
    public var failedInputs = 0
    /// Inputs with lines that hold CRs no LF follows (lines ended by CR alone run together).
    public var bareCarriageReturnInputs = 0

    public init() {}

    /// Problems worth a summary line.
    public var hasProblems: Bool { malformed + skipped + damagedInputs + failedInputs + bareCarriageReturnInputs > 0 }

    public var description: String {
        var parts = ["\(lines) lines read", "\(written) written"]
        if malformed > 0 { parts.append("\(malformed) malformed") }
        if skipped > 0 { parts.append("\(skipped) over-long skipped") }
        if damagedInputs > 0 { parts.append("\(damagedInputs) damaged inputs") }
        if failedInputs > 0 { parts.append("\(failedInputs) unreadable inputs") }
        if bareCarriageReturnInputs > 0 {
            parts.append(
                "\(bareCarriageReturnInputs) input\(bareCarriageReturnInputs == 1 ? "" : "s") with bare CR line endings"
            )
        }
        return parts.joined(separator: ", ")
    }
}

@available(*, unavailable)
extension ReplayOptions: Sendable {}
