/// Where the chat of a `watch` comes from and whether it still flows, as the header shows it.
public enum FeedStatus: Sendable, Equatable {
    case starting
    /// A replay is feeding the store.
    case replaying
    /// The replay reached the end of its input; the view stays open.
    case replayEnded
    /// A live source: connecting, connected, or waiting to reconnect (with the reason).
    case connecting
    case connected
    case reconnecting(String)
    /// The source stopped for good (with the reason).
    case failed(String)

    /// The header's label.
    public var label: String {
        switch self {
        case .starting: "starting"
        case .replaying: "replay"
        case .replayEnded: "replay ended"
        case .connecting: "connecting"
        case .connected: "live"
        case .reconnecting(let why): "reconnecting (\(why))"
        case .failed(let why): "stopped (\(why))"
        }
    }

    /// Whether no more chat will come.
    public var isFinal: Bool {
        switch self {
        case .replayEnded, .failed: true
        default: false
        }
    }
}
