import ArgumentParser
import ChatCurl
import ChatLive

/// `--recent-messages URL` and its bounds, shared by `capture`, `tail` and `watch`: after a gap,
/// the rejoined channel's missing lines are asked of a recent-messages service (docs/capture.md).
struct RecentMessagesOptions: ParsableArguments {
    static let waitRange = NumberRange(0.1...60.0, unit: "seconds")
    /// At most 20,000 lines: an answer is read whole, up to ``answerBytes(limit:)``.
    static let limitRange = NumberRange(1...20_000)

    /// The largest answer read: 16 MiB, or 2 KiB a line asked for when more (a Twitch line with its
    /// tags is 300 to 600 bytes, rarely past 2 KiB), so an answer the limit allows is never cut.
    static func answerBytes(limit: Int?) -> Int { max(16 << 20, (limit ?? 0) * 2_048) }

    @Option(
        help: ArgumentHelp(
            "After each gap, fetch the rejoined channel's missing lines from this recent-messages (v2 API) service, "
                + "e.g. https://recent-messages.robotty.de or http://127.0.0.1:PORT (chatcap serve --http-port).",
            valueName: "URL"))
    var recentMessages: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Longest wait for the service, \(RecentMessagesOptions.waitRange.text), while the channel's live lines are held; then they go on and the gap stays open (default: 3).",
            valueName: "seconds"),
        transform: { try RecentMessagesOptions.waitRange.parse($0) })
    var recentMessagesWait: Double = Double(RecentMessagesSource.defaultWaitMs) / 1_000

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Most lines to ask the service for, \(RecentMessagesOptions.limitRange.text) (default: the service's own bound); an answer is read whole, up to 16 MiB or 2 KiB a line.",
            valueName: "n"),
        transform: { try RecentMessagesOptions.limitRange.parse($0) })
    var recentMessagesLimit: Int?

    func validate() throws {
        if let url = recentMessages {
            let lower = url.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), url.count > 8 else {
                throw ValidationError("--recent-messages must be an http:// or https:// URL (got '\(url)')")
            }
        } else if recentMessagesLimit != nil {
            throw ValidationError("--recent-messages-limit needs --recent-messages")
        }
    }

    /// The service, verified as the IRC connection is (`--ca-file`, `--insecure`); `nil` without the option.
    func source(_ connection: ConnectionOptions) -> RecentMessagesSource? {
        recentMessages.map {
            var source = RecentMessagesSource(
                baseURL: $0,
                tls: HTTPClient.TLS(caFile: connection.plain ? nil : connection.caFile, insecure: connection.insecure),
                waitMs: Int64((recentMessagesWait * 1_000).rounded()), limit: recentMessagesLimit,
                maxAnswerBytes: Self.answerBytes(limit: recentMessagesLimit))
            source.userAgent = "chatcap/\(ChatcapVersion.string)"
            return source
        }
    }
}
