public import ChatStore
public import IRCWire

/// A parsed line as the per-line path takes it (``EventSource/next(lines:events:)``): its message and
/// where it came from, as in ``MergedLine`` but without the input's name, which is looked up by
/// ``inputIndex`` only where a diagnostic needs it (``EventSource/inputName(at:)``).
///
/// Plain bytes (no reference counted field): a ``ParseAhead`` block keeps one per line and lends it
/// in place, so lending a line touches no reference count and copies nothing.
public struct LentLine: Sendable {
    public var message: TwitchMessage
    /// The time the line is ordered by; see ``timeSource``.
    public var timestamp: Timestamp?
    /// 1-based number of the line in its input.
    public var lineNumber: Int
    /// Byte offset of the line in its (decompressed) input.
    public var byteOffset: UInt64
    /// The input's position in the reader's list (``MergeReader/paths``).
    public var inputIndex: Int
    public var timeSource: MergedLine.TimeSource
    /// How the line ended in its input.
    public var terminator: LineTerminator

    /// The line of a ``MergeEvent/line(_:_:)`` event.
    @inline(__always)
    public init(_ at: MergedLine, _ message: TwitchMessage) {
        self.message = message
        timestamp = at.timestamp
        lineNumber = at.lineNumber
        byteOffset = at.byteOffset
        inputIndex = at.inputIndex
        timeSource = at.timeSource
        terminator = at.terminator
    }

    @inline(__always)
    init(
        message: TwitchMessage, timestamp: Timestamp?, lineNumber: Int, byteOffset: UInt64, inputIndex: Int,
        timeSource: MergedLine.TimeSource, terminator: LineTerminator
    ) {
        self.message = message
        self.timestamp = timestamp
        self.lineNumber = lineNumber
        self.byteOffset = byteOffset
        self.inputIndex = inputIndex
        self.timeSource = timeSource
        self.terminator = terminator
    }

    /// A line not parsed yet, to parse into in place (``TwitchMessage/reparse(_:tags:)``): its message
    /// holds no line, it has no time and ends with an LF until set.
    @inline(__always)
    init(unparsedAt lineNumber: Int, byteOffset: UInt64, inputIndex: Int) {
        self.init(
            message: TwitchMessage(), timestamp: nil, lineNumber: lineNumber, byteOffset: byteOffset,
            inputIndex: inputIndex, timeSource: .none, terminator: .lf)
    }

    /// Where the line came from, with `name` as its input's name.
    public func location(named name: String) -> MergedLine {
        MergedLine(
            inputName: name, inputIndex: inputIndex, lineNumber: lineNumber, byteOffset: byteOffset,
            timestamp: timestamp, timeSource: timeSource, terminator: terminator)
    }
}
