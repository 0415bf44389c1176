import ChatLogStore

extension LogsRoute {
    /// Which route a request is, without its arguments: what the API's table (``LogsAPI``) describes
    /// and installs, one entry or more per kind.
    public enum Kind: String, Sendable, CaseIterable {
        case channels, capabilities, list, channelLatest, channelDay, userLatest, userMonth, channelRandom
        case userRandom, userSearch, nameHistory, channelStats, userStats
    }

    /// The route's kind.
    public var kind: Kind {
        switch self {
        case .channels: .channels
        case .capabilities: .capabilities
        case .list: .list
        case .channelLatest: .channelLatest
        case .channelDay: .channelDay
        case .userLatest: .userLatest
        case .userMonth: .userMonth
        case .channelRandom: .channelRandom
        case .userRandom: .userRandom
        case .userSearch: .userSearch
        case .nameHistory: .nameHistory
        case .channelStats: .channelStats
        case .userStats: .userStats
        }
    }
}
