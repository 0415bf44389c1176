public import ChatStore

/// Something worth recording about a session: connections, capability outcomes, JOIN outcomes,
/// gaps in the capture, and fatal errors. Times are wall-clock instants (``Timestamp``); the
/// descriptions write them in RFC 3339.
public enum SessionRecord: Sendable, Equatable, CustomStringConvertible {
    /// A connection is up (`attempt` counts connections made by this machine, from 1).
    case connected(attempt: Int, at: Timestamp)
    /// What became of the capability request.
    case capabilities(CapabilityOutcome, at: Timestamp)
    /// Our own JOIN echo arrived: the channel is captured from now on.
    case joined(channel: String, at: Timestamp)
    /// The channel could not be joined on this connection.
    case joinFailed(channel: String, reason: JoinFailure, at: Timestamp)
    /// The channel was taken off the list (a reloaded `--channels-file`): `PART` sent when it was
    /// joined or being joined, not captured from now on (see ``ConnectionMachine/remove(_:at:)``).
    case parted(channel: String, at: Timestamp)
    /// The channel was not captured during this interval.
    case gap(Gap)
    /// The connection ended.
    case disconnected(DisconnectReason, at: Timestamp)
    /// The next connection attempt opens after `afterMs` (the `attempt`-th in a row since the last
    /// healthy connection).
    case reconnectScheduled(afterMs: Int64, attempt: Int, at: Timestamp)
    /// The session cannot go on; no reconnect will follow.
    case fatal(String, at: Timestamp)

    public var description: String {
        switch self {
        case .connected(let attempt, _): "connected (connection \(attempt))"
        case .capabilities(let outcome, _): outcome.description
        case .joined(let channel, _): "joined #\(channel)"
        case .joinFailed(let channel, let reason, _): "could not join #\(channel): \(reason)"
        case .parted(let channel, _): "parted #\(channel) (removed from the channel list)"
        case .gap(let gap): gap.description
        case .disconnected(let reason, _): "disconnected: \(reason)"
        case .reconnectScheduled(let afterMs, let attempt, _): "reconnecting in \(afterMs) ms (attempt \(attempt))"
        case .fatal(let message, _): "fatal: \(message)"
        }
    }
}

/// An interval in which one channel was not captured: from the moment the connection was lost (for a
/// dead connection: the last line received) to the moment our JOIN echo arrived again (or the
/// session gave up on the channel).
public struct Gap: Sendable, Equatable, CustomStringConvertible {
    public var channel: String
    /// When the channel stopped being captured.
    public var from: Timestamp
    /// When it was captured again (or given up on).
    public var to: Timestamp
    public var reason: DisconnectReason
    /// What a recent-messages service made of the gap, when one was asked (`--recent-messages`).
    public var backfill: BackfillResult?

    public init(
        channel: String, from: Timestamp, to: Timestamp, reason: DisconnectReason, backfill: BackfillResult? = nil
    ) {
        self.channel = channel
        self.from = from
        self.to = to
        self.reason = reason
        self.backfill = backfill
    }

    public var durationMs: Int64 { to.milliseconds - from.milliseconds }

    /// `gap in #c from <RFC 3339> to <RFC 3339> (<n> ms): <reason>`, then `; <backfill>` when a
    /// recent-messages service was asked.
    public var description: String {
        "gap in #\(channel) from \(from.rfc3339) to \(to.rfc3339) (\(durationMs) ms): \(reason)"
            + (backfill.map { "; \($0)" } ?? "")
    }
}

/// Why a JOIN did not succeed.
public enum JoinFailure: Sendable, Equatable, CustomStringConvertible {
    /// The server refused with a NOTICE (`msg_channel_suspended`, `msg_banned`, `tos_ban`,
    /// `msg_room_not_found`, …). Not retried on later connections.
    case refused(msgId: String, text: String)
    /// Neither an echo nor a NOTICE within the timeout. Retried on the next connection.
    case timedOut(afterMs: Int64)

    public var description: String {
        switch self {
        case .refused(let msgId, let text): "\(text) (\(msgId))"
        case .timedOut(let afterMs): "no answer within \(afterMs) ms"
        }
    }
}

/// What became of `CAP REQ`.
public enum CapabilityOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The server granted all requested capabilities.
    case acknowledged([String])
    /// The server granted only some; the rest are missing (tags or membership data may be absent).
    case partial(granted: [String], missing: [String])
    /// The server refused them (`CAP NAK`): going on without; tags and Twitch commands will be missing.
    case rejected([String])
    /// No answer within the timeout: going on without.
    case noAnswer(afterMs: Int64)

    /// Whether the session runs without some of the capabilities it asked for.
    public var isDegraded: Bool {
        if case .acknowledged = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .acknowledged(let caps):
            "capabilities granted: \(caps.joined(separator: " "))"
        case .partial(let granted, let missing):
            "capabilities partly granted (\(granted.joined(separator: " "))); continuing without "
                + "\(missing.joined(separator: " ")): some tags or events will be missing"
        case .rejected(let caps):
            "capabilities refused (CAP NAK \(caps.joined(separator: " "))); continuing without them: "
                + "tags and Twitch-specific events will be missing"
        case .noAnswer(let afterMs):
            "no answer to CAP REQ within \(afterMs) ms; continuing without capabilities: "
                + "tags and Twitch-specific events will be missing"
        }
    }
}
