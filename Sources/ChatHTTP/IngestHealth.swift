public import TwitchSession

/// `GET /healthz`'s rule for capture and tail: healthy while every connection is registered and every
/// channel joined on it; otherwise the reason, naming the first ``namedChannels`` channels not joined
/// and why, and how many more.
///
/// A value the ingest thread fills channel by channel (``add(_:status:ready:)``) at each
/// publication and then reads once (``verdict(connections:connectionsUp:lastDisconnect:)``): the
/// rule is tested with made-up channels, no session or socket behind it.
public struct IngestHealth: Sendable, Equatable {
    /// Channels named in a 503's reason (the count says how many more).
    public static let namedChannels = 5

    /// Channels looked at, and those joined on a registered connection.
    public private(set) var channels = 0
    public private(set) var joined = 0
    /// The first ``namedChannels`` channels not joined: `#name (why)`.
    public private(set) var missing: [String] = []

    public init() {}

    /// One channel as the session has it: its JOIN status on its connection, and whether that
    /// connection is registered.
    ///
    /// - Complexity: O(1). - Allocations: a name's text for each of the first ``namedChannels`` not joined.
    public mutating func add(_ channel: String, status: ConnectionMachine.ChannelStatus, ready: Bool) {
        channels += 1
        if ready && status == .joined {
            joined += 1
            return
        }
        guard missing.count < Self.namedChannels else { return }
        let why: String
        switch (ready, status) {
        case (false, _): why = "connection not registered"
        case (true, .refused): why = "JOIN refused"
        case (true, .timedOut): why = "JOIN timed out"
        default: why = "joining"
        }
        missing.append("#\(channel) (\(why))")
    }

    /// The answer: healthy (200) or not (503), and the text `/healthz` says.
    public struct Verdict: Sendable, Equatable {
        public var healthy: Bool
        public var text: String

        public init(healthy: Bool, text: String) {
            self.healthy = healthy
            self.text = text
        }
    }

    /// Healthy when there is a channel, every channel is joined and every connection is up.
    ///
    /// - Parameter lastDisconnect: why the last connection ended (``IngestMetrics/lastDisconnect``),
    ///   said after an unhealthy reason.
    public func verdict(connections: Int, connectionsUp: Int, lastDisconnect: String?) -> Verdict {
        let over = "over \(connectionsUp) of \(connections) connections"
        if channels > 0 && joined == channels && connectionsUp == connections {
            return Verdict(healthy: true, text: "ok: \(joined) of \(channels) channels joined \(over)")
        }
        let more = channels - joined - missing.count
        return Verdict(
            healthy: false,
            text: "unavailable: \(joined) of \(channels) channels joined \(over); not joined: "
                + missing.joined(separator: ", ") + (more > 0 ? " and \(more) more" : "")
                + (lastDisconnect.map { "; last disconnect: \($0)" } ?? ""))
    }
}
