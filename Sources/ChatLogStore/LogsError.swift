/// A request the logs API refuses, with rustlog's status and body (`src/error.rs`: the error's text as
/// `text/plain`; axum's `Query` rejection for a bad query string).
public enum LogsError: Error, Sendable, Equatable {
    /// 404 `Not found`: no such channel, user, day or month, or nothing in it.
    case notFound
    /// 400 `Invalid param: <why>` (`Error::InvalidParam`), e.g. `Invalid date`.
    case invalidParam(String)
    /// 400 `Int parse error: <why>` (`Error::ParseInt`: Rust's `ParseIntError` texts).
    case parseInt(String)
    /// 400 `Failed to deserialize query string: <why>` (axum's `Query` rejection).
    case query(String)
    /// 403 `The requested channel has opted out of being logged` (`Error::ChannelOptedOut`).
    case channelOptedOut
    /// 403 `The requested user has opted out of being logged` (`Error::UserOptedOut`).
    case userOptedOut
    /// 503 `Store unavailable: <why>`: the store cannot be reached (ClickHouse down).
    case storeUnavailable(String)
    /// 500 `Store error: <why>`: the store answered an error (ClickHouse's message).
    case storeFailed(String)
    /// 503 `Server busy: too many connections, try again shortly`: a connection past the listener's
    /// limit, answered at once (ChatHTTP's `HTTPLimits.busyConnections`).
    case busy
    /// 414 `URI too long`: a request line past the connection's memory (ChatHTTP's
    /// `HTTPLimits.memoryPerConnection`; hyper, under rustlog, answers 414 too).
    case uriTooLong
    /// 431 `Request headers too large`: request headers past the connection's memory (hyper: 431).
    case headersTooLarge

    public var status: Int {
        switch self {
        case .notFound: 404
        case .invalidParam, .parseInt, .query: 400
        case .channelOptedOut, .userOptedOut: 403
        case .storeUnavailable, .busy: 503
        case .storeFailed: 500
        case .uriTooLong: 414
        case .headersTooLarge: 431
        }
    }

    public var text: String {
        switch self {
        case .notFound: "Not found"
        case .invalidParam(let why): "Invalid param: \(why)"
        case .parseInt(let why): "Int parse error: \(why)"
        case .query(let why): "Failed to deserialize query string: \(why)"
        case .channelOptedOut: "The requested channel has opted out of being logged"
        case .userOptedOut: "The requested user has opted out of being logged"
        case .storeUnavailable(let why): "Store unavailable: \(why)"
        case .storeFailed(let why): "Store error: \(why)"
        case .busy: "Server busy: too many connections, try again shortly"
        case .uriTooLong: "URI too long"
        case .headersTooLarge: "Request headers too large"
        }
    }
}
