public import ChatStore
import IRCWire

/// One captured line as a row of the `chat.lines` table of docs/clickhouse.sql, in ClickHouse's
/// `JSONEachRow` input format: every column, in the table's order, then `raw` (the line byte for byte).
///
/// | column | from |
/// | --- | --- |
/// | `time`, `time_ms` | `tmi-sent-ts` (the server's time, the same on every host), else the capture's `time` tag, else 0 |
/// | `received`, `received_ms` | the capture's `time` tag (receive time), else 0 |
/// | `channel` | the capture directory's channel |
/// | `room_id`, `user_id`, `target_user_id`, `source_room_id` | `room-id`, `user-id`, `target-user-id`, `source-room-id` (0 when absent) |
/// | `type` | the IRC command as sent (`PRIVMSG`, `USERNOTICE`, `CLEARCHAT`, `353` …) |
/// | `msg_id`, `id` | the `msg-id` and `id` tags |
/// | `key` | `id`, else ``hashKey(_:)`` (with the line's end offset when it has no `tmi-sent-ts` either) |
/// | `login` | PRIVMSG, JOIN, PART: the source nick; USERNOTICE: the `login` tag |
/// | `display_name`, `color`, `bits`, `reply_parent_id` | `display-name`, `color`, `bits`, `reply-parent-msg-id` |
/// | `text` | the message text (PRIVMSG without the `/me` wrapper, USERNOTICE, NOTICE, CLEARMSG's deleted text) |
/// | `action` | 1 for a `/me` PRIVMSG |
/// | `target_login`, `ban_duration` | CLEARCHAT: the banned or timed-out login and the timeout's seconds; CLEARMSG: the `login` tag |
/// | `target_msg_id` | CLEARMSG: `target-msg-id` |
/// | `badges`, `badge_info` | `badges`, `badge-info` as `name/version` strings |
/// | `historical` | 1 for a line recovered after a gap from a recent-messages service (`historical=1`), else 0 |
///
/// With ``Times/datetime64`` (docs/clickhouse-current.sql), `time` and `received` are seconds with
/// three decimals (`1763700021.947`, for `DateTime64(3)` columns) and `time_ms`, `received_ms` are not sent.
///
/// Typed columns are unescaped (IRCv3) and their invalid UTF-8 repaired; `raw` keeps every byte,
/// so a row with a non-UTF-8 line is not strict JSON (ClickHouse reads strings as bytes).
public enum ClickHouseRow: Sendable {
    /// How a row carries its times: the columns of docs/clickhouse.sql (ClickHouse 18.16 and later), or
    /// of docs/clickhouse-current.sql (20.1 and later).
    public enum Times: String, Sendable, CaseIterable {
        /// `time` and `received` in whole seconds (`DateTime`), milliseconds in `time_ms` and `received_ms`.
        case datetime
        /// `time` and `received` in seconds with three decimals (`DateTime64(3)`), no `_ms` columns.
        case datetime64

        /// `names` in these times: with ``datetime``, `<name>_ms` follows each of `timeColumns`.
        func columns(_ names: [String], timeColumns: Set<String>) -> [String] {
            guard self == .datetime else { return names }
            return names.flatMap { timeColumns.contains($0) ? [$0, $0 + "_ms"] : [$0] }
        }
    }

    /// The columns a row has, in order (what `load` checks the table for).
    public static func columns(_ times: Times) -> [String] {
        let timed =
            ["time", "received", "channel", "room_id", "type", "msg_id", "id", "key", "user_id", "login"]
            + ["display_name", "color", "text", "action", "bits", "reply_parent_id", "target_user_id"]
            + ["target_login", "target_msg_id", "ban_duration", "badges", "badge_info", "source_room_id"]
            + ["historical", "raw"]
        return times.columns(timed, timeColumns: ["time", "received"])
    }

    /// What encoding a line found out.
    public struct Facts: Sendable, Equatable {
        /// Whether the line parsed as IRC (an unparsed line gets a row with an empty `type`).
        public var parsed: Bool
        /// The capture's receive time (`time` tag), when the line has one.
        public var received: Timestamp?
    }

    /// Writes one row object (no newline) for `line` (without CR LF) of `channel`'s capture file, where
    /// the line ends at decompressed offset `end` (after its CR LF).
    ///
    /// The key of a line without `id`: with `tmi-sent-ts` (CLEARCHAT, CLEARMSG) its ``hashKey(_:)``,
    /// the same on every host that received it; without (ROOMSTATE, JOIN, PART…), the hash, `:` and
    /// `end`, so that two identical lines received in the same millisecond stay two rows (each host
    /// keeps its own copies of those anyway: their time is its receive time), while a batch sent again
    /// from the same file still collapses.
    ///
    /// - Complexity: O(line length). - Allocations: none once `writer` has grown.
    @discardableResult
    public static func encode(
        _ line: Span<UInt8>, channel: String, end: UInt64, times: Times = .datetime, into writer: inout JSONWriter
    ) -> Facts {
        guard let message = try? TwitchMessage.parse(line) else {
            writer.beginObject()
            writeTimes(nil, nil, times, into: &writer)
            writer.key("channel")
            writer.string(channel)
            writer.key("type")
            writer.string("")
            writer.key("key")
            writer.string(hashKey(line) + ":\(end)")
            writer.key("raw")
            writer.string(verbatim: line, 0..<line.count)
            writer.endObject()
            return Facts(parsed: false, received: nil)
        }
        let tags = message.tags
        let received = tags[.time].flatMap { Timestamp(rfc3339: line.extracting($0.raw.range)) }
        let sent = tags[.tmiSentTs].flatMap { Timestamp(decimalMilliseconds: line.extracting($0.raw.range)) }
        writer.beginObject()
        writeTimes(sent ?? received, received, times, into: &writer)
        writer.key("channel")
        writer.string(channel)
        number("room_id", tags[.roomId], line, &writer)
        writer.key("type")
        writer.string(line, message.line.verbRange)
        string("msg_id", tags[.msgId], line, &writer)
        let id = tags[.id].flatMap { $0.raw.isEmpty ? nil : $0 }
        string("id", id, line, &writer)
        writer.key("key")
        if let id {
            writer.string(line, tag: id)
        } else if sent != nil {
            writer.string(hashKey(line))
        } else {
            writer.string(hashKey(line) + ":\(end)")
        }
        number("user_id", tags[.userId], line, &writer)
        var text: ByteRange? = nil
        var action = false
        var login: ByteRange? = nil
        var loginTag: TagValue? = nil
        var targetLogin: ByteRange? = nil
        var targetLoginTag: TagValue? = nil
        var banSeconds: Int64 = 0
        switch message.command {
        case .privmsg:
            if let privmsg = message.privmsg(in: line) {
                text = privmsg.text
                action = privmsg.isAction
                login = privmsg.login
            }
        case .join, .part, .whisper:
            login = message.senderLogin(in: line)
            text = message.text(in: line)
        case .usernotice:
            loginTag = tags[.login]
            text = message.text(in: line)
        case .clearchat:
            if let clear = message.clearChat(in: line) {
                switch clear.action {
                case .clearAll: break
                case .ban(let who): targetLogin = who
                case .timeout(let who, let seconds):
                    targetLogin = who
                    banSeconds = seconds
                }
            }
        case .clearmsg:
            targetLoginTag = tags[.login]
            text = message.text(in: line)
        default:
            text = message.text(in: line)
        }
        writer.key("login")
        if let login {
            writer.string(line, login)
        } else if let loginTag {
            writer.string(line, tag: loginTag)
        } else {
            writer.string("")
        }
        string("display_name", tags[.displayName], line, &writer)
        string("color", tags[.color], line, &writer)
        writer.key("text")
        if let text { writer.string(line, text) } else { writer.string("") }
        writer.key("action")
        writer.number(action ? 1 : 0)
        number("bits", tags[.bits], line, &writer, maximum: Int64(UInt32.max))
        string("reply_parent_id", tags[.replyParentMsgId], line, &writer)
        number("target_user_id", tags[.targetUserId], line, &writer)
        writer.key("target_login")
        if let targetLogin {
            writer.string(line, targetLogin)
        } else if let targetLoginTag {
            writer.string(line, tag: targetLoginTag)
        } else {
            writer.string("")
        }
        string("target_msg_id", tags[.targetMsgId], line, &writer)
        writer.key("ban_duration")
        writer.number(min(max(banSeconds, 0), Int64(UInt32.max)))
        badges("badges", message.badges, line, &writer)
        badges("badge_info", message.badgeInfo, line, &writer)
        number("source_room_id", tags[.sourceRoomId], line, &writer)
        writer.key("historical")
        writer.number(tags[.historical].map { line.equals("0", at: $0.raw) ? 0 : 1 } ?? 0)
        writer.key("raw")
        writer.string(verbatim: line, 0..<line.count)
        writer.endObject()
        return Facts(parsed: true, received: received)
    }

    /// The deduplication key of a line without an `id` tag: `h` and 16 lower-case hex digits of the
    /// 64-bit FNV-1a hash of the line's bytes without the capture's `time` tag (``withoutTimeTag(_:)``).
    /// The same line captured twice at different times gets the same key.
    ///
    /// - Complexity: O(line length). - Allocations: the 17-byte string.
    public static func hashKey(_ line: Span<UInt8>) -> String {
        let (head, rest) = withoutTimeTag(line)
        var fnv = FNV1a64()
        fnv.add(line, head)
        fnv.add(line, rest)
        let digits = String(fnv.value, radix: 16)
        return "h" + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The line without a leading `time` tag, as two index ranges to concatenate: `@time=T;rest` is
    /// `@` + `rest`, `@time=T rest` is `rest`; any other line is itself (and an empty second range).
    public static func withoutTimeTag(_ line: Span<UInt8>) -> (Range<Int>, Range<Int>) {
        let prefix: StaticString = "@time="
        let n = prefix.utf8CodeUnitCount
        guard line.count > n, line.equals(prefix, at: ByteRange(0, UInt16(clamping: n))) else {
            return (0..<line.count, line.count..<line.count)
        }
        var i = n
        while i < line.count && line[i] != UInt8(ascii: ";") && line[i] != UInt8(ascii: " ") { i += 1 }
        guard i < line.count else { return (0..<line.count, line.count..<line.count) }
        return line[i] == UInt8(ascii: ";") ? (0..<1, (i + 1)..<line.count) : ((i + 1)..<line.count, 0..<0)
    }

    /// `time`, `time_ms`, `received`, `received_ms`: seconds (clamped to DateTime's 1970…2106) and
    /// milliseconds; with ``Times/datetime64``, `time` and `received` as seconds with three decimals.
    private static func writeTimes(
        _ event: Timestamp?, _ received: Timestamp?, _ times: Times, into writer: inout JSONWriter
    ) {
        writeTime("time", "time_ms", event, times, into: &writer)
        writeTime("received", "received_ms", received, times, into: &writer)
    }

    /// One time column `name` of `instant` (0 when `nil`): with ``Times/datetime``, whole seconds
    /// (clamped to DateTime's 1970…2106) and the milliseconds in column `msName`; with
    /// ``Times/datetime64``, seconds with three decimals and no `msName` column.
    static func writeTime(
        _ name: StaticString, _ msName: StaticString, _ instant: Timestamp?, _ times: Times,
        into writer: inout JSONWriter
    ) {
        let ms = min(max(instant?.milliseconds ?? 0, 0), Int64(UInt32.max) * 1000 + 999)
        writer.key(name)
        switch times {
        case .datetime:
            writer.number(ms / 1000)
            writer.key(msName)
            writer.number(ms % 1000)
        case .datetime64:
            seconds(ms, into: &writer)
        }
    }

    /// `ms` (not negative) as seconds with three decimals, `1763700021.047`: a JSON number that
    /// ClickHouse reads into a `DateTime64(3)` whatever its `date_time_input_format`.
    private static func seconds(_ ms: Int64, into writer: inout JSONWriter) {
        writer.number(ms / 1000)
        writer.raw(byte: UInt8(ascii: "."))
        let fraction = ms % 1000
        writer.raw(byte: UInt8(ascii: "0") + UInt8(fraction / 100))
        writer.raw(byte: UInt8(ascii: "0") + UInt8(fraction / 10 % 10))
        writer.raw(byte: UInt8(ascii: "0") + UInt8(fraction % 10))
    }

    /// A string column from a tag (IRCv3-unescaped), `""` when absent.
    static func string(
        _ name: StaticString, _ value: TagValue?, _ line: Span<UInt8>, _ writer: inout JSONWriter
    ) {
        writer.key(name)
        if let value { writer.string(line, tag: value) } else { writer.string("") }
    }

    /// An unsigned number column from a tag: 0 when absent, negative or not a number; at most `maximum`.
    private static func number(
        _ name: StaticString, _ value: TagValue?, _ line: Span<UInt8>, _ writer: inout JSONWriter,
        maximum: Int64 = .max
    ) {
        writer.key(name)
        writer.number(min(max(value?.integer(in: line) ?? 0, 0), maximum))
    }

    /// An array column of `name/version` strings (tag-unescaped).
    private static func badges(
        _ name: StaticString, _ cursor: BadgeCursor, _ line: Span<UInt8>, _ writer: inout JSONWriter
    ) {
        writer.key(name)
        writer.beginArray()
        var badges = cursor
        while let badge = badges.next(in: line) {
            let upper = badge.version.isEmpty ? badge.name.upper : badge.version.upper
            writer.string(line, tag: TagValue(raw: ByteRange(badge.name.lower, upper)))
        }
        writer.endArray()
    }
}
