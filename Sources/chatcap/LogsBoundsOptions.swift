import ArgumentParser
import ChatHTTP
import ChatLogStore
import ChatLogs

/// `--max-connections`, `--request-timeout`, `--max-range-days`, `--max-limit`: what one logs API
/// listener allows (docs/logs.md, Safety), the same options for `chatcap logs` and for `capture
/// --http-port` (which answers the same routes over its `--dir`).
struct LogsBoundsOptions: ParsableArguments {
    static let connectionsRange = NumberRange(1...10_000)
    static let requestTimeoutRange = NumberRange(1...3_600, unit: "seconds")
    static let rangeDaysRange = NumberRange(1...36_600, unit: "days")
    static let limitRange = NumberRange(1...100_000_000)
    static let defaultConnections = 256
    static let defaultRequestTimeout = 10

    @Option(
        name: .customLong("max-connections"), parsing: .unconditional,
        help: ArgumentHelp(
            "Connections answered at once (\(Self.connectionsRange.text); default: \(Self.defaultConnections)). The next as many are "
                + "answered at once with 503 'Server busy: …' (text/plain, as the API's errors) and closed; past "
                + "twice this many a connection is closed at once. capture: at most an eighth of its descriptor "
                + "limit; without it, a quarter of that limit (at most 512) and closed at once past it.",
            valueName: "n"),
        transform: { try Self.connectionsRange.parse($0) })
    var maxConnections: Int?

    @Option(
        name: .customLong("request-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "Seconds a connection has to send a whole request (line and headers) once it connects, however "
                + "slowly it sends, and the longest it may send or read nothing "
                + "(\(Self.requestTimeoutRange.text); default: \(Self.defaultRequestTimeout); capture: without it, \(HTTPLimits().idleTimeoutSeconds) s of silence only); "
                + "past it the connection is closed.",
            valueName: "seconds"),
        transform: { try Self.requestTimeoutRange.parse($0) })
    var requestTimeout: Int?

    @Option(
        name: .customLong("max-range-days"), parsing: .unconditional,
        help: ArgumentHelp(
            "The longest ?from=&to= range the logs API answers (\(Self.rangeDaysRange.text) days; default: \(LogsBounds().maxRangeDays)); "
                + "a longer one is 400 'Invalid param: range longer than N days'.",
            valueName: "days"),
        transform: { try Self.rangeDaysRange.parse($0) })
    var maxRangeDays: Int?

    @Option(
        name: .customLong("max-limit"), parsing: .unconditional,
        help: ArgumentHelp(
            "The largest ?limit= and ?offset= the logs API answers (\(Self.limitRange.text); default: \(LogsBounds().maxLimit)); "
                + "past it the answer is 400 'Invalid param: limit above N'.",
            valueName: "lines"),
        transform: { try Self.limitRange.parse($0) })
    var maxLimit: Int?

    /// Whether any of these options was given (capture takes them only with `--http-port`).
    var isGiven: Bool { maxConnections != nil || requestTimeout != nil || maxRangeDays != nil || maxLimit != nil }

    /// The range and limit bounds of the logs API.
    var bounds: LogsBounds {
        let defaults = LogsBounds()
        return LogsBounds(
            maxRangeDays: maxRangeDays ?? defaults.maxRangeDays, maxLimit: maxLimit ?? defaults.maxLimit)
    }

    /// `chatcap logs`' listener: `--max-connections` N answered, the next N answered busy, 2N from one
    /// address, `--request-timeout` both to send a request and of silence. capture applies the two
    /// options given to its own limits (``LiveHTTPService/Settings``).
    var limits: HTTPLimits {
        HTTPLimits().answering(maxConnections ?? Self.defaultConnections)
            .timed(requestTimeout ?? Self.defaultRequestTimeout)
    }
}
