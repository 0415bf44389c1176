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

    /// The `msg-param-*` tags ``write(_:_:into:)`` gathers on the stack; a line with more is written
    /// by ``writeUngathered(_:_:into:)`` once the gathering finds the one too many (a USERNOTICE has
    /// a handful).
    static let gatheredCapacity = 32

    /// Writes `"params": {…}`.
    ///
    /// The params are gathered in one walk of the tags, then each is compared with the later ones
    /// only: two keys of lowercase letters, digits, `-` and `_` alone (``isPlain(_:_:)``, what
    /// Twitch sends) are the same key when their bytes are, `-` and `_` alike, without forming
    /// their snake_case; any other pair is compared as ``SnakeCase/equalAfterRepair(_:_:_:)`` does.
    ///
    /// - Complexity: O(t + p² + p·k) for t tags, p params and k known keys.
    /// - Allocations: none once the writer's buffer has grown.
    static func write(_ bytes: Span<UInt8>, _ tags: TwitchTags, into out: inout JSONWriter) {
        var keys = InlineArray<32, ByteRange>(repeating: ByteRange(0, 0))
        var values = InlineArray<32, TagValue>(repeating: TagValue(raw: ByteRange(0, 0)))
        var plain: UInt32 = 0
        var n = 0
        var overflow = false
        tags.forEachMsgParam(in: bytes) { tag in
            guard n < gatheredCapacity else {
                overflow = true
                return
            }
            let key = ByteRange(tag.key.lower + 10, tag.key.upper)
            keys[n] = key
            values[n] = tag.value
            if isPlain(bytes, key) { plain |= 1 << UInt32(n) }
            n += 1
        }
        if overflow { return writeUngathered(bytes, tags, into: &out) }
        out.key("params")
        out.beginObject()
        for i in 0..<n {
            let key = keys[i]
            let isPlainKey = plain & (1 << UInt32(i)) != 0
            var last = true
            var j = i + 1
            while j < n {
                let same =
                    isPlainKey && plain & (1 << UInt32(j)) != 0
                    ? plainEquals(bytes, key, keys[j]) : SnakeCase.equalAfterRepair(bytes, key, keys[j])
                if same {
                    last = false
                    break
                }
                j += 1
            }
            guard last else { continue }
            out.key(snakeCase: bytes, key)
            value(values[i], key: key, plain: isPlainKey, bytes, into: &out)
        }
        out.endObject()
    }

    /// ``write(_:_:into:)`` for a line of more than ``gatheredCapacity`` params: each param looks
    /// for a later one with its key in another walk of the tags.
    ///
    /// - Complexity: O(p·t + p·k). - Allocations: none once the writer's buffer has grown.
    static func writeUngathered(_ bytes: Span<UInt8>, _ tags: TwitchTags, into out: inout JSONWriter) {
        out.key("params")
        out.beginObject()
        tags.forEachMsgParam(in: bytes) { tag in
            let key = ByteRange(tag.key.lower + 10, tag.key.upper)
            guard isLast(key, bytes, tags) else { return }
            out.key(snakeCase: bytes, key)
            value(tag.value, key: key, plain: isPlain(bytes, key), bytes, into: &out)
        }
        out.endObject()
    }

    /// Whether `bytes[key]` is lowercase ASCII letters, digits, `-` and `_` only: its snake_case form
    /// is itself with `-` as `_`, the same length, valid UTF-8.
    ///
    /// - Complexity: O(`key.count`). - Allocations: none.
    static func isPlain(_ bytes: Span<UInt8>, _ key: ByteRange) -> Bool {
        for i in Int(key.lower)..<Int(key.upper) {
            let b = bytes[i]
            guard
                b &- UInt8(ascii: "a") < 26 || b &- UInt8(ascii: "0") < 10 || b == UInt8(ascii: "-")
                    || b == UInt8(ascii: "_")
            else { return false }
        }
        return true
    }

    /// Whether two plain keys (``isPlain(_:_:)``) have the same snake_case form: the same bytes, `-`
    /// and `_` alike.
    private static func plainEquals(_ bytes: Span<UInt8>, _ a: ByteRange, _ b: ByteRange) -> Bool {
        guard a.count == b.count else { return false }
        var i = Int(a.lower)
        var j = Int(b.lower)
        while i < Int(a.upper) {
            guard snake(bytes[i]) == snake(bytes[j]) else { return false }
            i += 1
            j += 1
        }
        return true
    }

    /// A plain key's byte in snake_case: `-` as `_`, any other as it is.
    @inline(__always)
    private static func snake(_ b: UInt8) -> UInt8 { b == UInt8(ascii: "-") ? UInt8(ascii: "_") : b }

    /// Whether plain `bytes[key]` (``isPlain(_:_:)``) in snake_case is `literal`: a length check,
    /// then the bytes, `-` read as `_`.
    private static func plainEquals(_ bytes: Span<UInt8>, _ key: ByteRange, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard key.count == count else { return false }
        var k = 0
        while k < count {
            guard unsafe snake(bytes[Int(key.lower) + k]) == literal.utf8Start[k] else { return false }
            k += 1
        }
        return true
    }

    /// - Parameter plain: whether `key` is plain (``isPlain(_:_:)``), compared with the known keys
    ///   as bytes then.
    private static func value(
        _ v: TagValue, key: ByteRange, plain: Bool, _ bytes: Span<UInt8>, into out: inout JSONWriter
    ) {
        func isKnown(_ literal: StaticString) -> Bool {
            plain ? plainEquals(bytes, key, literal) : SnakeCase.equals(bytes, key, literal)
        }
        if integerKeys.contains(where: isKnown), let n = v.integer(in: bytes) {
            out.number(n)
            return
        }
        if booleanKeys.contains(where: isKnown) {
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
