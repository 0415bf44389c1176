/// Which channels one connection joins and when it opens: the result of splitting a channel list
/// over several connections.
public struct ConnectionPlan: Sendable, Equatable {
    /// 0-based position of the connection.
    public var index: Int
    /// Channel logins, normalised (lower case, no `#`), at most ``ConnectionSettings/maxChannelsPerConnection``.
    public var channels: [String]
    /// Delay of the first connect, counted from the start of the session.
    public var openAfterMs: Int64

    public init(index: Int, channels: [String], openAfterMs: Int64) {
        self.index = index
        self.channels = channels
        self.openAfterMs = openAfterMs
    }

    /// Splits `channels` into groups of at most `maxPerConnection`, keeping their order and dropping
    /// duplicates, and spaces the connections' first opens `spacingMs` apart.
    ///
    /// - Returns: no plan for an empty list.
    /// - Complexity: O(`channels.count`). - Allocations: the plans.
    public static func split(
        channels: [String], maxPerConnection: Int = ConnectionSettings.maxChannelsPerConnection,
        spacingMs: Int64 = 2_000
    ) -> [ConnectionPlan] {
        precondition(maxPerConnection > 0, "maxPerConnection must be positive")
        precondition(spacingMs >= 0, "spacingMs must not be negative")
        let unique = normalizeAll(channels)
        return stride(from: 0, to: unique.count, by: maxPerConnection).enumerated().map { index, start in
            ConnectionPlan(
                index: index, channels: Array(unique[start..<min(start + maxPerConnection, unique.count)]),
                openAfterMs: Int64(index) * spacingMs)
        }
    }

    /// `channels` normalised, without empty names and duplicates, in their first order.
    static func normalizeAll(_ channels: [String]) -> [String] {
        var seen = Set<String>()
        return channels.map(Login.normalize).filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
