import ChatPosix
public import ChatStore
public import IRCWire

/// Where a merged line came from and the time it was ordered by.
public struct MergedLine: Sendable {
    /// How ``MergedLine/timestamp`` was found.
    public enum TimeSource: UInt8, Sendable {
        /// The line's IRCv3 `time` tag.
        case timeTag
        /// The line's `tmi-sent-ts` tag.
        case tmiSentTs
        /// The line had no usable time; it takes the previous line's of the same input.
        case inherited
        /// Neither the line nor any earlier line of its input had a time; it sorts first.
        case none
        /// A live line without a time tag: the time we received it.
        case received

        /// Where a recorded line's own time came from: ``timeTag`` or ``tmiSentTs``, ``none`` when
        /// it has none (it then takes an earlier line's: ``inheriting(_:)``).
        @inline(__always)
        static func own(_ time: LineTime) -> TimeSource {
            switch time.origin {
            case .timeTag: .timeTag
            case .tmiSentTs: .tmiSentTs
            case .none: .none
            }
        }

        /// The source of a time taken from an earlier line of the input: ``inherited`` when there
        /// was one (`last`), ``none`` when no line before had a time.
        @inline(__always)
        static func inheriting(_ last: Timestamp?) -> TimeSource { last == nil ? .none : .inherited }
    }

    /// The input's name (its path, or `(standard input)`).
    public var inputName: String
    /// The input's position in the list the reader was given; ties in time go to the lower one.
    public var inputIndex: Int
    /// 1-based number of the line in its input.
    public var lineNumber: Int
    /// Byte offset of the line in its (decompressed) input.
    public var byteOffset: UInt64
    /// The time the line is ordered by; see ``timeSource``.
    public var timestamp: Timestamp?
    public var timeSource: TimeSource
    /// How the line ended in its input (`raw` output writes it back unchanged).
    public var terminator: LineTerminator = .crlf

    public init(
        inputName: String, inputIndex: Int, lineNumber: Int, byteOffset: UInt64, timestamp: Timestamp?,
        timeSource: TimeSource, terminator: LineTerminator = .crlf
    ) {
        self.inputName = inputName
        self.inputIndex = inputIndex
        self.lineNumber = lineNumber
        self.byteOffset = byteOffset
        self.timestamp = timestamp
        self.timeSource = timeSource
        self.terminator = terminator
    }
}

/// One thing a ``MergeReader`` hands out, in merged order.
///
/// Lines come with their bytes (lent as a `Span` next to the event); problems come as events of their
/// own at the place in the input where they happened, so that nothing is dropped silently.
public enum MergeEvent: Sendable {
    /// A line that parsed; its bytes are lent alongside.
    case line(MergedLine, TwitchMessage)
    /// A line the parser rejected; its raw bytes are lent alongside.
    case malformed(MergedLine, LineError)
    /// A line longer than the framer's limit, skipped whole (no bytes are lent).
    case skipped(MergedLine, FramingError)
    /// An input that could not be opened or read to its end: a truncated or corrupt gzip stream
    /// (``InputError/isDamage``), a read error, or a file that vanished since it was listed. Lines
    /// before the damage were delivered; `droppedByteCount` bytes of a partial line after the last
    /// complete one were not. No bytes are lent. The reader goes on with the next input, except after
    /// an input that could not be opened for want of descriptors (``InputError/isDescriptorExhaustion``):
    /// then the merge stops (``MergeReader/exhaustion``).
    case inputFailed(MergedLine, InputError, droppedByteCount: Int)
    /// A warning, once per input: the line at this location (a line, a malformed line or an
    /// over-long one, whose own event follows at once) holds `count` CRs that no LF follows. Lines
    /// end at LF or CRLF only, so an input whose lines end in CR alone is read as one line (or as
    /// over-long lines, skipped). Every such line is counted in
    /// ``MergeStatistics/bareCarriageReturnLines``. No bytes are lent.
    case bareCarriageReturns(MergedLine, count: Int)

    /// Where the event happened.
    public var location: MergedLine {
        switch self {
        case .line(let at, _), .malformed(let at, _), .skipped(let at, _), .inputFailed(let at, _, _),
            .bareCarriageReturns(let at, _):
            at
        }
    }

    /// The event as a line for people (stderr, `watch`'s footer): where it happened, and for a
    /// problem what went wrong (`a.log:7: malformed line: … — skipped`).
    public var diagnostic: String {
        switch self {
        case .line(let at, _): "\(at.inputName):\(at.lineNumber)"
        case .malformed(let at, let error): "\(at.inputName):\(at.lineNumber): malformed line: \(error) — skipped"
        case .skipped(let at, let error): "\(at.inputName):\(at.lineNumber): \(error)"
        case .inputFailed(_, let error, let dropped):
            "\(error)" + (dropped > 0 ? " (\(dropped) bytes of a partial last line dropped)" : "")
        case .bareCarriageReturns(let at, let count):
            "\(at.inputName):\(at.lineNumber): " + Self.bareCarriageReturnsText(count: count)
        }
    }

    /// What ``bareCarriageReturns(_:count:)`` says, without the position.
    public static func bareCarriageReturnsText(count: Int) -> String {
        "bare CR line endings: this line holds \(count) CR\(count == 1 ? "" : "s") that no LF follows; chatcap "
            + "ends lines at LF and CRLF only, so lines ended by CR alone run together (said once per input)"
    }
}

/// Counts of what a ``MergeReader`` handed out so far.
public struct MergeStatistics: Sendable, Equatable {
    /// Lines that parsed.
    public var lines = 0
    /// Lines the parser rejected.
    public var malformedLines = 0
    /// Over-long lines skipped by the framer.
    public var skippedLines = 0
    /// Inputs that ended in damage or an error.
    public var failedInputs = 0
    /// Lines (parsed or not) without a usable time of their own.
    public var untimedLines = 0
    /// Lines whose `time` or `tmi-sent-ts` tag was present but unreadable.
    public var unreadableTimeTags = 0
    /// Lines (parsed, malformed or over-long) holding a CR that no LF follows.
    public var bareCarriageReturnLines = 0
    /// Inputs with such a line (each got one ``MergeEvent/bareCarriageReturns(_:count:)``).
    public var bareCarriageReturnInputs = 0

    public init() {}

    /// Counts a line that parsed, with the time it carries (untimed when it has none of its own,
    /// whatever it inherits), and whether a time tag of it was unreadable.
    @inline(__always)
    mutating func countParsed(_ time: LineTime) {
        lines += 1
        if time.timestamp == nil { untimedLines += 1 }
        if time.hasUnreadableTag { unreadableTimeTags += 1 }
    }

    /// Counts a line the parser rejected (it has no time of its own).
    @inline(__always)
    mutating func countMalformed() {
        malformedLines += 1
        untimedLines += 1
    }

    /// Adds the counts of `other` (e.g. of another lane).
    public mutating func add(_ other: MergeStatistics) {
        lines += other.lines
        malformedLines += other.malformedLines
        skippedLines += other.skippedLines
        failedInputs += other.failedInputs
        untimedLines += other.untimedLines
        unreadableTimeTags += other.unreadableTimeTags
        bareCarriageReturnLines += other.bareCarriageReturnLines
        bareCarriageReturnInputs += other.bareCarriageReturnInputs
    }
}
