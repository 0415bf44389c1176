import IRCWire

/// The `params` object of a typed `usernotice`: every `msg-param-*` tag, keyed in snake_case
/// without the prefix (``SnakeCase``), with the values of known keys typed.
///
/// - integers (``integerKeys``): a JSON number when the value is a decimal integer, else the string;
/// - booleans (``booleanKeys``): `true` for `1`/`true`, `false` for `0`/`false`, else the string;
/// - every other key (ids, names, plans such as `Prime`/`1000`, keys Twitch adds later): the
///   unescaped string.
///
/// Each key once, with its last value: two tags whose keys have the same snake_case form
/// (`viewerCount`, `viewer-count`) give one member, where the last of them stands.
enum UserNoticeParams {
    /// Counts and amounts Twitch documents (or sends) for USERNOTICE, in snake_case.
    static let integerKeys: [StaticString] = [
        "bits_spent", "copo_reward", "cumulative_months", "donation_amount", "exponent", "gift_month_being_redeemed",
        "gift_months", "goal_current_contributions", "goal_target_contributions", "goal_user_contributions",
        "mass_gift_count", "months", "multimonth_duration", "multimonth_tenure", "promo_gift_total",
        "selected_count", "sender_count", "streak_months", "sub_benefit_end_month", "threshold",
        "total_reward_count", "trigger_amount", "value", "viewer_count",
    ]
    /// Flags Twitch documents (or sends) for USERNOTICE, in snake_case.
    static let booleanKeys: [StaticString] = [
        "anon_gift", "prior_gifter_anonymous", "should_share_streak", "was_gifted",
    ]

    /// Writes `"params": {…}`.
    ///
    /// - Complexity: O(p² + p·k) for p params and k known keys (a USERNOTICE has a handful).
    /// - Allocations: none once the writer's buffer has grown.
    static func write(_ bytes: Span<UInt8>, _ tags: TwitchTags, into out: inout JSONWriter) {
        out.key("params")
        out.beginObject()
        tags.forEachMsgParam(in: bytes) { tag in
            let key = ByteRange(tag.key.lower + 10, tag.key.upper)
            guard isLast(key, bytes, tags) else { return }
            out.key(snakeCase: bytes, key)
            value(tag.value, key: key, bytes, into: &out)
        }
        out.endObject()
    }

    private static func value(_ v: TagValue, key: ByteRange, _ bytes: Span<UInt8>, into out: inout JSONWriter) {
        if integerKeys.contains(where: { SnakeCase.equals(bytes, key, $0) }), let n = v.integer(in: bytes) {
            out.number(n)
            return
        }
        if booleanKeys.contains(where: { SnakeCase.equals(bytes, key, $0) }) {
            let raw = bytes.extracting(v.raw.range)
            if raw.equals("1") || raw.equals("true") {
                out.bool(true)
                return
            }
            if raw.equals("0") || raw.equals("false") {
                out.bool(false)
                return
            }
        }
        out.string(bytes, tag: v)
    }

    /// Whether no later `msg-param-*` tag has a key with the same snake_case form (after UTF-8 repair).
    private static func isLast(_ key: ByteRange, _ bytes: Span<UInt8>, _ tags: TwitchTags) -> Bool {
        var last = true
        tags.forEachMsgParam(in: bytes) { other in
            guard last, other.key.lower > key.lower else { return }
            if SnakeCase.equalAfterRepair(bytes, key, ByteRange(other.key.lower + 10, other.key.upper)) { last = false }
        }
        return last
    }
}
