public import IRCWire

/// A line from the server that could not be used: reported and counted, never dropped silently.
public enum LiveProblem: Sendable, Equatable, CustomStringConvertible {
    /// The parser rejected line `lineNumber` of the current connection.
    case malformed(lineNumber: Int, LineError)
    /// A line longer than the framer's limit, skipped whole.
    case skipped(FramingError)
    /// The connection closed in the middle of a line (the server closed it, or we did: RECONNECT, no
    /// PONG, a peer that does not read, the end of the run); the partial line's bytes were dropped.
    case cutOff(droppedBytes: Int, reason: DisconnectReason)
    /// The recent-messages service could not fill a gap (down, slow, an error): said for the first
    /// such gap only; the live session's backfill counters count them all, and each gap's record says it.
    case backfillFailed(channel: String, reason: String)
    /// The service dated `lines` of its answer for a gap in `channel` outside that gap (its clock
    /// ahead, or a line dated years away): they were written at the gap's edge, never in a file of
    /// another day. Said for the first such gap; the backfill counters count them all.
    case backfillMisdated(channel: String, lines: Int)

    public var description: String {
        switch self {
        case .malformed(let line, let error): "live:\(line): malformed line: \(error)"
        case .skipped(let error): "a line was too long and was skipped: \(error)"
        case .cutOff(let dropped, .endOfStream):
            "the server closed the connection mid-line: \(dropped) bytes of a partial line dropped"
        case .cutOff(let dropped, let reason):
            "the connection was closed mid-line (\(reason)): \(dropped) bytes of a partial line dropped"
        case .backfillFailed(let channel, let reason):
            "the recent-messages service could not fill the gap in #\(channel): \(reason); live chat goes on, "
                + "gaps stay open (said once; every gap record says it, the summary counts them)"
        case .backfillMisdated(let channel, let lines):
            "the recent-messages service dated \(lines) line\(lines == 1 ? "" : "s") of the gap in #\(channel) "
                + "outside that gap (its clock ahead?); written at the gap's edge (said once; the summary counts them)"
        }
    }
}
