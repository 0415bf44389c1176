public import ChatLive
public import TwitchSession

/// What a live run connects to and joins, as the command's options made it.
public struct LiveConnection: Sendable {
    /// The channels to join (capture: after `--shard`), as given: normalised by the session.
    public var channels: [String]
    public var credentials: Credentials
    public var endpoint: Endpoint
    public var settings: ConnectionSettings
    /// `--recent-messages`: where gaps are backfilled from.
    public var recentMessages: RecentMessagesSource? = nil
    /// `--duration` in milliseconds, and as the user gave it (`22 s`), for the end-of-run line.
    public var durationMs: Int64? = nil
    public var durationText = ""

    public init(channels: [String], credentials: Credentials, endpoint: Endpoint, settings: ConnectionSettings) {
        self.channels = channels
        self.credentials = credentials
        self.endpoint = endpoint
        self.settings = settings
    }

    /// Where the run ends (monotonic milliseconds) when it starts at `startMs`, `nil` without `--duration`.
    public func deadline(from startMs: Int64) -> Int64? { durationMs.map { startMs + $0 } }

    /// The channels, normalised, each once, in their first order.
    public var distinctChannels: [String] { ChannelReload.distinct(channels) }
}
