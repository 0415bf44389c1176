import ChatStore
public import TwitchSession

/// Session records: lines of our own in `DIR/_session/<date>.log.gz`, in the same IRC form as the chat:
///
/// ```
/// @time=<RFC 3339>[;gap-from=<RFC 3339>;gap-to=<RFC 3339>] :chatcap CAPTURE <event> <target> :<text>
/// ```
/// - `event`: `start`, `stop`, `connected`, `capabilities`, `joined`, `join-failed`, `gap`,
///   `disconnected`, `reconnect`, `fatal`; `back-pressure` (the socket was not read while the disk
///   caught up), `skipped` (a line over the length limit) and `cut-off` (a partial line at a close).
/// - `target`: `#channel` for `joined`, `join-failed` and `gap`, else `*`.
/// - `text`: the human-readable description (``SessionRecord/description``), CR and LF replaced by spaces.
/// - `time`: when it happened (for a gap: its end, with its start and end in `gap-from`/`gap-to`).
///
/// Any IRCv3 parser reads them; replay shows them as ordinary lines with the command `CAPTURE`.
extension CaptureWriter {
    /// Stores a session record in the session file, counts connections and gaps, and on a
    /// disconnection flushes every file at once: reconnecting may block the ingest loop (and its
    /// ticks) for up to the connect timeout, and the lines before the break should not wait for it.
    ///
    /// - Throws: ``CaptureError`` (sticky).
    /// - Allocations: a few small strings (records are rare).
    public func record(_ record: SessionRecord) throws(CaptureError) {
        let (event, target, at): (String, String, Int64)
        var extra = ""
        switch record {
        case .connected(let attempt, let t):
            if attempt > 1 { reconnects += 1 }
            (event, target, at) = ("connected", "*", t)
        case .capabilities(_, let t): (event, target, at) = ("capabilities", "*", t)
        case .joined(let channel, let t): (event, target, at) = ("joined", "#" + channel, t)
        case .joinFailed(let channel, _, let t): (event, target, at) = ("join-failed", "#" + channel, t)
        case .gap(let gap):
            gaps += 1
            (event, target, at) = ("gap", "#" + gap.channel, gap.toWallMs)
            extra =
                ";gap-from=\(Timestamp(milliseconds: gap.fromWallMs).rfc3339);gap-to=\(Timestamp(milliseconds: gap.toWallMs).rfc3339)"
        case .disconnected(_, let t): (event, target, at) = ("disconnected", "*", t)
        case .reconnectScheduled(_, _, let t): (event, target, at) = ("reconnect", "*", t)
        case .fatal(_, let t): (event, target, at) = ("fatal", "*", t)
        }
        try note(event: event, target: target, text: record.description, atWallMs: at, extraTags: extra)
        if case .disconnected = record { try flushAll() }
    }

    /// Stores a record of our own (e.g. `start`, `stop`) in the session file.
    public func note(event: String, target: String = "*", text: String, atWallMs at: Int64, extraTags: String = "")
        throws(CaptureError)
    {
        try checkUsable()
        var bytes = Array(
            "@time=\(Timestamp(milliseconds: at).rfc3339)\(extraTags) :chatcap CAPTURE \(event) \(target) :".utf8)
        for b in text.utf8 { bytes.append(b == 13 || b == 10 ? 32 : b) }
        bytes.append(13)
        bytes.append(10)
        try write(bytes.span, to: sessionLane, wallMs: at)
    }
}
