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
        }
    }
}
