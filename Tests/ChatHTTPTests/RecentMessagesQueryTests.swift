import ChatFormat
import Testing

@Suite struct RecentMessagesQueryTests {
    /// A query from `pairs`; a `nil` value stands for an option given without `=value`.
    static func query(_ pairs: [String: String?]) throws(RecentMessagesQuery.Invalid) -> RecentMessagesQuery {
        try RecentMessagesQuery { key in pairs[key] }
    }

    @Test("defaults: nothing hidden, no notice, the service's bound")
    func defaults() throws {
        #expect(try Self.query([:]) == RecentMessagesQuery())
        #expect(try Self.query(["unknown": "x"]) == RecentMessagesQuery())
    }

    @Test("reads each option by its snake_case name and its camelCase alias")
    func names() throws {
        #expect(
            try Self.query([
                "hide_moderation_messages": "true", "hide_moderated_messages": "true",
                "clearchat_to_notice": "true", "limit": "20",
            ])
                == RecentMessagesQuery(
                    hideModerationMessages: true, hideModeratedMessages: true, clearchatToNotice: true, limit: 20))
        #expect(
            try Self.query([
                "hideModerationMessages": "true", "hideModeratedMessages": "false",
                "clearchatToNotice": "true",
            ])
                == RecentMessagesQuery(hideModerationMessages: true, clearchatToNotice: true))
        #expect(try Self.query(["limit": "0"]).limit == 0)
    }

    @Test(
        "refuses a value the service refuses",
        arguments: [
            ("clearchatToNotice", "1"), ("clearchatToNotice", "yes"), ("clearchatToNotice", "True"),
            ("clearchatToNotice", ""), ("hide_moderated_messages", "on"), ("limit", "-1"), ("limit", "abc"),
            ("limit", ""), ("limit", "1e3"), ("limit", "99999999999999999999"),
        ])
    func invalid(option: String, value: String) {
        #expect(throws: RecentMessagesQuery.Invalid(option: option)) { try Self.query([option: value]) }
    }

    @Test("refuses a flag or a limit given without a value")
    func withoutValue() {
        #expect(throws: RecentMessagesQuery.Invalid(option: "clearchatToNotice")) {
            try Self.query(["clearchatToNotice": String?.none])
        }
        #expect(throws: RecentMessagesQuery.Invalid(option: "limit")) { try Self.query(["limit": String?.none]) }
    }
}
