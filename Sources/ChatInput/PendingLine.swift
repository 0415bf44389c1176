import IRCWire

/// A line framed and copied into an ``EventBlock`` whose parse is still to come (``ParseAhead``'s
/// shared parse): where it came from, as in ``LentLine`` but without its message and time, which the
/// parse (``EventBlock/parse()``) and the lending (``EventBlock/lend(from:names:lastTimestamp:lines:events:)``)
/// add.
///
/// Plain bytes, like ``LentLine``.
struct PendingLine {
    /// 1-based number of the line in its input.
    var lineNumber: Int
    /// Byte offset of the line in its (decompressed) input.
    var byteOffset: UInt64
    /// The input's position in the reader's list (``MergeReader/paths``).
    var inputIndex: Int
    /// How the line ended in its input.
    var terminator: LineTerminator
    /// The CRs the line's ``MergeEvent/bareCarriageReturns(_:count:)`` warning tells of, when the line
    /// is its input's first holding CRs that no LF follows (the warning is lent right before it);
    /// 0 for every other line.
    var warning: Int
}
