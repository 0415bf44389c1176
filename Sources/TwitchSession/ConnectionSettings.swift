import IRCWire

/// The limits and timeouts of one chat connection. The defaults follow Twitch's documented limits.
public struct ConnectionSettings: Sendable, Equatable {
    /// Most channels one connection joins (Twitch recommends staying well below its hard limits).
    public static let maxChannelsPerConnection = 90

    /// Capabilities requested with `CAP REQ` right after connecting.
    public var capabilities: [String] = OutgoingMessage.twitchCapabilities
    /// How long to wait for `CAP ACK`/`NAK` before going on without the capabilities.
    public var capabilityTimeoutMs: Int64 = 5_000
    /// How long to wait for the welcome (`001`) after connecting before giving up on the connection.
    public var registrationTimeoutMs: Int64 = 20_000
    /// How long a JOIN may go unanswered (no echo, no NOTICE) before it is reported as timed out.
    public var joinTimeoutMs: Int64 = 10_000
    /// JOINs allowed per ``joinWindowMs`` (a sliding window). A ``LiveSession`` shares one window
    /// among all its connections; a lone ``ConnectionMachine`` paces its own. Default
    /// ``authenticatedJoinLimit``.
    public var joinLimit = ConnectionSettings.authenticatedJoinLimit
    public var joinWindowMs: Int64 = 10_000
    /// Channels per connection when a session pools many (at most ``maxChannelsPerConnection``).
    public var channelsPerConnection = ConnectionSettings.maxChannelsPerConnection
    /// The pause between the first opens of a session's connections. Twitch documents 20 logins per
    /// 10 s per user; 2 s (5 per 10 s) leaves room for reconnects.
    public var connectSpacingMs: Int64 = 2_000

    /// JOINs per 10 s with an OAuth token: Twitch documents "20 join attempts per 10 seconds per
    /// user" for a normal account (2,000 for a verified bot), counted across all connections.
    public static let authenticatedJoinLimit = 20
    /// JOINs per 10 s for an anonymous (`justinfan`) login. The per-user limit does not hold anonymous
    /// logins back (each connection is its own user), but Twitch also limits JOINs and logins per IP
    /// address (a Twitch developer gave 50 per 10 s, beyond which the connection is dropped): 40 stays
    /// under that and leaves room for the logins of reconnecting connections.
    public static let anonymousJoinLimit = 40

    /// The default ``joinLimit`` for `credentials`.
    public static func defaultJoinLimit(for credentials: Credentials) -> Int {
        credentials.isAnonymous ? anonymousJoinLimit : authenticatedJoinLimit
    }
    /// Silence (no line received) after which we send our own PING.
    public var idleTimeoutMs: Int64 = 60_000
    /// How long our PING may go unanswered (no line at all) before the connection counts as dead.
    public var pongTimeoutMs: Int64 = 10_000
    /// Reconnect delays.
    public var backoff = BackoffPolicy()
    /// Whether a RECONNECT hands over to a replacement connection opened while the old one still
    /// plays (no hole), instead of closing first and reconnecting after a back-off delay.
    public var overlapReconnects = true
    /// How long the retiring connection stays open after the replacement joined every channel when
    /// no line comes on both (quiet channels) to show that nothing is left in flight on it.
    public var handoverSettleMs: Int64 = 2_000
    /// A retiring connection closed without a line seen on both (the settle time passed, or the
    /// replacement was sent RECONNECT in its turn) is first read on while more comes within this
    /// long…
    public var retiredQuietMs: Int64 = 500
    /// …for at most this long in all, or until its end comes (by the ingest loop, beside the other
    /// connections; it waits only when the replacement is sent RECONNECT meanwhile).
    public var retiredDrainMs: Int64 = 3_000
    /// Whether a server certificate that fails verification (``DisconnectReason/certificateRejected(_:)``)
    /// is retried with back-off like any failed connect. By default it ends the session: a
    /// certificate does not become trusted by waiting.
    public var retryCertificateErrors = false

    public init() {}
}

/// Exponential back-off between reconnect attempts: `base · 2^attempt`, capped, with jitter, reset
/// after a connection that stayed up for ``healthyAfterMs``.
public struct BackoffPolicy: Sendable, Equatable {
    /// The ceiling of the first delay.
    public var baseMs: Int64 = 1_000
    /// No delay is longer.
    public var capMs: Int64 = 60_000
    public var jitter: Jitter = .full
    /// A connection that stayed up this long resets the attempt count.
    public var healthyAfterMs: Int64 = 60_000

    public init(baseMs: Int64 = 1_000, capMs: Int64 = 60_000, jitter: Jitter = .full, healthyAfterMs: Int64 = 60_000) {
        precondition(baseMs > 0 && capMs >= baseMs, "back-off needs 0 < base <= cap")
        self.baseMs = baseMs
        self.capMs = capMs
        self.jitter = jitter
        self.healthyAfterMs = healthyAfterMs
    }

    /// The delay ceiling for the `attempt`-th consecutive reconnect (0-based): `min(cap, base · 2^attempt)`.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func ceiling(forAttempt attempt: Int) -> Int64 {
        let shift = min(max(attempt, 0), 40)
        let (value, overflow) = baseMs.multipliedReportingOverflow(by: Int64(1) << shift)
        return overflow ? capMs : min(capMs, value)
    }

    /// How the delay is drawn below its ceiling.
    public enum Jitter: Sendable, Equatable {
        /// Exactly the ceiling.
        case none
        /// Uniform in `0...ceiling` (spreads reconnects best).
        case full
        /// Uniform in `ceiling/2...ceiling` (never reconnects at once).
        case equal
    }
}
