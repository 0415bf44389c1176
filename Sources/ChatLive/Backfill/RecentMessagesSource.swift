public import ChatCurl

/// A recent-messages service (the v2 API of `recent-messages.robotty.de` and its self-hosted
/// copies, or `chatcap serve --http-port`) and how long live chat may wait for it after a gap.
public struct RecentMessagesSource: Sendable, Equatable {
    /// The service's base URL, e.g. `https://recent-messages.robotty.de` (no trailing `/`).
    public var baseURL: String
    /// How the service's certificate is checked: as the IRC connection's is.
    public var tls: HTTPClient.TLS
    /// How long a rejoined channel's live lines are held while its backfill is fetched; then they
    /// are released and the gap stays open. Also the HTTP request's whole timeout.
    public var waitMs: Int64
    /// The most lines asked for (`limit`), `nil`: the service's own bound.
    public var limit: Int?
    /// The most live lines (and bytes) one channel holds while waiting; past either the wait ends early.
    public var maxHeldLines: Int
    public var maxHeldBytes: Int
    /// The largest answer read (bytes); a longer one is refused as cut.
    public var maxAnswerBytes: Int
    /// What chatcap calls itself in `User-Agent` (the public service asks clients to name themselves).
    public var userAgent = "chatcap"

    public static let defaultWaitMs: Int64 = 3_000

    public init(
        baseURL: String, tls: HTTPClient.TLS = HTTPClient.TLS(), waitMs: Int64 = RecentMessagesSource.defaultWaitMs,
        limit: Int? = nil, maxHeldLines: Int = 10_000, maxHeldBytes: Int = 4 << 20, maxAnswerBytes: Int = 16 << 20
    ) {
        self.baseURL = Self.base(of: baseURL)
        self.tls = tls
        self.waitMs = waitMs
        self.limit = limit
        self.maxHeldLines = maxHeldLines
        self.maxHeldBytes = maxHeldBytes
        self.maxAnswerBytes = maxAnswerBytes
    }

    /// The service's base from what a user gave: without trailing `/`s, and without the API's own
    /// path (`…/api/v2/recent-messages/`, as the service's documentation writes it), which ``url(for:)``
    /// adds.
    public static func base(of given: String) -> String {
        var base = Substring(given)
        while base.hasSuffix("/") { base.removeLast() }
        let api = "/api/v2/recent-messages"
        if base.lowercased().hasSuffix(api) { base.removeLast(api.count) }
        while base.hasSuffix("/") { base.removeLast() }
        return String(base)
    }

    /// `BASE/api/v2/recent-messages/<login>` with the options chatcap wants: every line, moderation
    /// included and deleted messages kept (a capture stores what Twitch sent), `limit` when set.
    public func url(for channel: String) -> String {
        var url =
            "\(baseURL)/api/v2/recent-messages/\(channel)"
            + "?hide_moderation_messages=false&hide_moderated_messages=false&clearchatToNotice=false"
        if let limit { url += "&limit=\(limit)" }
        return url
    }
}
