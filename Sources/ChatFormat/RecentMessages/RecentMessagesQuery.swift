/// The query options of `GET /api/v2/recent-messages/<login>`, read as the recent-messages v2
/// service reads them:
///
/// | option | aliases | meaning |
/// | --- | --- | --- |
/// | `hide_moderation_messages` | `hideModerationMessages` | leave out CLEARCHAT and CLEARMSG lines |
/// | `hide_moderated_messages` | `hideModeratedMessages` | leave out lines a CLEARCHAT or CLEARMSG hit |
/// | `clearchat_to_notice` | `clearchatToNotice` | write CLEARCHAT as a NOTICE (see ``HistoricalLine``) |
/// | `limit` | | at most this many of the newest lines (before the two filters) |
///
/// Flags are `true` or `false` and nothing else; `limit` is a non-negative decimal. Any other value
/// (also a flag given without one) makes the request a 400 `invalid_query`, as with the service.
/// Unknown options are ignored.
public struct RecentMessagesQuery: Sendable, Equatable {
    public var hideModerationMessages = false
    public var hideModeratedMessages = false
    public var clearchatToNotice = false
    /// At most this many lines; `nil`: the service's own bound.
    public var limit: Int?

    public init(
        hideModerationMessages: Bool = false, hideModeratedMessages: Bool = false, clearchatToNotice: Bool = false,
        limit: Int? = nil
    ) {
        self.hideModerationMessages = hideModerationMessages
        self.hideModeratedMessages = hideModeratedMessages
        self.clearchatToNotice = clearchatToNotice
        self.limit = limit
    }

    /// A query option that is not as the service takes it.
    public struct Invalid: Error, Sendable, Equatable {
        /// The option's name as given.
        public var option: String

        public init(option: String) { self.option = option }
    }

    /// Reads the options through `value`, which answers an option's value, `.some(nil)` for an
    /// option given without `=value`, and `nil` for one not given.
    ///
    /// - Complexity: O(1) lookups. - Allocations: the strings the lookups make.
    public init(value: (String) -> String??) throws(Invalid) {
        hideModerationMessages = try Self.flag(value, "hide_moderation_messages", "hideModerationMessages")
        hideModeratedMessages = try Self.flag(value, "hide_moderated_messages", "hideModeratedMessages")
        clearchatToNotice = try Self.flag(value, "clearchat_to_notice", "clearchatToNotice")
        if let given = value("limit") {
            guard let text = given, !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 &- 48 < 10 }),
                let number = Int(text)
            else { throw Invalid(option: "limit") }
            limit = number
        }
    }

    private static func flag(_ value: (String) -> String??, _ name: String, _ alias: String) throws(Invalid) -> Bool {
        for key in [name, alias] {
            guard let given = value(key) else { continue }
            switch given {
            case "true"?: return true
            case "false"?: return false
            default: throw Invalid(option: key)
            }
        }
        return false
    }
}
