public import ChatStore
import IRCWire
public import TwitchSession

/// Session records: lines of our own in `DIR/_session/<date>.log.gz`, in the same IRC form as the chat:
///
/// ```
/// @time=<RFC 3339>[;gap-from=<RFC 3339>;gap-to=<RFC 3339>;reason=<text>[;backfill=<state>;recovered=<n>
///   [;missing-from=<RFC 3339>;missing-to=<RFC 3339>][;backfill-error=<text>]]] :chatcap CAPTURE <event> <target> :<text>
/// ```
/// - `event`: `start`, `channels` (the run's channels, when `start` cannot list them all: see
///   ``recordStart(_:channels:at:)``), `stop`, `connected`, `capabilities`, `joined`, `join-failed`,
///   `parted`, `reload` and `reload-failed` (a channel list re-read at run time), `gap`,
///   `disconnected`, `reconnect`, `fatal`; `back-pressure` (the socket was not read while the disk
///   caught up), `skipped` (a line over the length limit), `cut-off` (a partial line at a close) and
///   `ended-without-stop` (the run before this one left no `stop` record: see
///   ``recordPreviousRun(channels:at:)``).
/// - `target`: `#channel` for `joined`, `join-failed`, `parted` and `gap`, else `*`.
/// - `text`: the human-readable description (``SessionRecord/description``), CR and LF replaced by
///   spaces; instants in it are RFC 3339.
/// - `time`: when it happened (for a gap: its end, with its start and end in `gap-from`/`gap-to`, and
///   its reason, IRCv3-escaped, in `reason`; after a backfill (`--recent-messages`) its state
///   `closed`, `partial` or `failed`, the lines recovered, a partial one's interval still missing, a
///   failed one's error).
///
/// Any IRCv3 parser reads them; `replay` writes them as the typed `gap` and `session` records that
/// `tail` writes (`ChatFormat/CaptureRecordLine.swift`), and `stats` counts them.
extension CaptureWriter {
    /// Stores a session record in the session file, counts connections and gaps, and on a
    /// disconnection flushes every file at once: reconnecting may block the ingest loop (and its
    /// ticks) for up to the connect timeout, and the lines before the break should not wait for it.
    ///
    /// - Throws: ``CaptureError`` (sticky).
    /// - Allocations: a few small strings (records are rare).
    public func record(_ record: SessionRecord) throws(CaptureError) {
        let (event, target, at): (String, String, Timestamp)
        switch record {
        case .connected(let attempt, let t):
            if attempt > 1 { reconnects += 1 }
            (event, target, at) = ("connected", "*", t)
        case .capabilities(_, let t): (event, target, at) = ("capabilities", "*", t)
        case .joined(let channel, let t): (event, target, at) = ("joined", "#" + channel, t)
        case .joinFailed(let channel, _, let t): (event, target, at) = ("join-failed", "#" + channel, t)
        case .parted(let channel, let t): (event, target, at) = ("parted", "#" + channel, t)
        case .gap(let gap):
            try recordGap(
                channel: gap.channel, from: gap.from, to: gap.to,
                reason: gap.reason.description, backfill: gap.backfill)
            // Flushed at once, before any line after it reaches the spool (which writes in order): a
            // kill between two files of one flush must not keep the channel's later chat and lose the
            // record (the next run's gap starts after that chat, so this interval would be in no gap).
            try flush(sessionLane)
            return
        case .disconnected(_, let t): (event, target, at) = ("disconnected", "*", t)
        case .reconnectScheduled(_, _, let t): (event, target, at) = ("reconnect", "*", t)
        case .fatal(_, let t): (event, target, at) = ("fatal", "*", t)
        }
        try note(event: event, target: target, text: record.description, at: at)
        if case .disconnected = record { try flushAll() }
    }

    /// Stores a `gap` record: `channel` was not captured from `from` to `to`, for `reason`.
    /// Counted in ``gaps``.
    ///
    /// - Throws: ``CaptureError`` (sticky).
    public func recordGap(
        channel: String, from: Timestamp, to: Timestamp, reason: String, backfill: BackfillResult? = nil
    ) throws(CaptureError) {
        gaps += 1
        // The form of ``Gap/description``, with any reason.
        var text =
            "gap in #\(channel) from \(from.rfc3339) to \(to.rfc3339) (\(to.milliseconds - from.milliseconds) ms): \(reason)"
        var tags = ";gap-from=\(from);gap-to=\(to);reason=\(TagValue.escaping(reason))"
        if let backfill {
            text += "; \(backfill)"
            tags += ";backfill=\(backfill.state);recovered=\(backfill.recoveredCount)"
            switch backfill {
            case .recovered(_, .partial(let missingFrom, let missingTo)):
                tags += ";missing-from=\(missingFrom.rfc3339)"
                tags += ";missing-to=\(missingTo.rfc3339)"
            case .failed(let why): tags += ";backfill-error=\(TagValue.escaping(why))"
            case .recovered(_, .closed): break
            }
        }
        try note(event: "gap", target: "#" + channel, text: text, at: to, extraTags: tags)
    }

    /// Looks at the run before this one in the directory (``CapturePreviousRun``) and stores what the
    /// restart left: after a run that ended without `stop`, an `ended-without-stop` record. The gaps of
    /// its channels (``CapturePreviousRun/channels``, from ``CapturePreviousRun/lastLine``, for
    /// ``CapturePreviousRun/gapReason``) are the session's to record: they end when each channel is
    /// joined, since nothing said before the JOIN is received. Call it once, before anything else is written.
    ///
    /// Without a stop to heed (capture itself examines the directory with one and calls
    /// ``recordPreviousRun(_:at:)``): the store's tests.
    ///
    /// - Returns: what was found, or `nil` when the directory holds no earlier run.
    /// - Throws: ``CaptureError`` (sticky).
    @discardableResult
    package func recordPreviousRun(channels: [String], at now: Timestamp) throws(CaptureError) -> CapturePreviousRun? {
        // Never interrupted: nothing asks it to stop.
        guard let previous = try? CapturePreviousRun.examine(directory: directory, channels: channels) else {
            return nil
        }
        try recordPreviousRun(previous, at: now)
        return previous
    }

    /// Stores what ``CapturePreviousRun/examine(directory:channels:shouldStop:)`` found (see
    /// ``recordPreviousRun(channels:at:)``), for a caller that examined the directory itself, e.g. so
    /// that a stop signal can end the examination.
    public func recordPreviousRun(_ previous: CapturePreviousRun, at now: Timestamp) throws(CaptureError) {
        if !previous.endedWithStop {
            try note(
                event: "ended-without-stop",
                text: "the previous capture run ended without a stop record (killed, crashed or lost power); "
                    + "its last stored line is from \(previous.lastLine.rfc3339)",
                at: now)
        }
    }

    /// The most bytes of channel names one `start` or `channels` record lists: with its tags and
    /// words the record stays far below the readers' line limit (16 KiB) at any channel count.
    public static let channelListBytes = 8_000

    /// Stores the `start` record of a run over `channels`: `<what> of a b c started` when the names
    /// fit in ``channelListBytes``; otherwise `<what> of N channels started (listed in the K channels
    /// records that follow)`, then K `channels` records `channels 1-700 of N: a b …`, each listing at
    /// most ``channelListBytes`` of names (a name longer than that alone), all at `at`.
    ///
    /// - Parameter what: the run's description, e.g. `capture` or `capture (shard 1/2)`.
    /// - Throws: ``CaptureError`` (sticky).
    /// - Complexity: O(total bytes of the names).
    /// - Allocations: the records' strings (once per run).
    public func recordStart(_ what: String, channels: [String], at: Timestamp) throws(CaptureError) {
        let listed = channels.joined(separator: " ")
        guard listed.utf8.count > Self.channelListBytes else {
            try note(event: "start", text: "\(what) of \(listed) started", at: at)
            return
        }
        var chunks: [ArraySlice<String>] = []
        var first = 0
        var bytes = 0
        for (i, name) in channels.enumerated() {
            let more = name.utf8.count + (i > first ? 1 : 0)
            if i > first && bytes + more > Self.channelListBytes {
                chunks.append(channels[first..<i])
                first = i
                bytes = name.utf8.count
            } else {
                bytes += more
            }
        }
        chunks.append(channels[first...])
        try note(
            event: "start",
            text:
                "\(what) of \(channels.count) channels started (listed in the \(chunks.count) channels records that follow)",
            at: at)
        for chunk in chunks {
            try note(
                event: "channels",
                text: "channels \(chunk.startIndex + 1)-\(chunk.endIndex) of \(channels.count): "
                    + chunk.joined(separator: " "),
                at: at)
        }
    }

    /// Stores a record of our own (e.g. `start`, `stop`) in the session file.
    public func note(event: String, target: String = "*", text: String, at: Timestamp, extraTags: String = "")
        throws(CaptureError)
    {
        try checkUsable()
        var bytes = Array(
            "@time=\(at.rfc3339)\(extraTags) :chatcap CAPTURE \(event) \(target) :".utf8)
        for b in text.utf8 { bytes.append(b == 13 || b == 10 ? 32 : b) }
        bytes.append(13)
        bytes.append(10)
        try write(bytes.span, to: sessionLane, wallMs: at.milliseconds)
    }
}
