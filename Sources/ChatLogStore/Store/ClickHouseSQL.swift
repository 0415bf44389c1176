import ChatStore

/// The SQL the ClickHouse store sends (ClickHouse 18.16 and later), built from checked values only:
/// every string is a quoted literal (``quote(_:)``), every number is formatted from an integer, the
/// table a quoted identifier (``identifier(_:)``). Pure: a test reads the text.
///
/// Times follow docs/clickhouse.sql: `time` (DateTime, the shown time: `tmi-sent-ts`, else the receive
/// time) and `time_ms`; `received` and `received_ms` (capture's `time` tag, 0 without one). The table is
/// sorted by `(channel, time, time_ms, key)`, so every selection of a channel's days names a `time`
/// range: a range read of the sort key. A capture file's day is the day a line was received, so the day
/// and the order are of ``receivedAt`` (the receive time, else the shown time): the directory's.
public enum ClickHouseSQL: Sendable {
    /// A string literal: `'…'` with `\` and `'` escaped, and every byte that is not printable ASCII
    /// written as `\xHH`, so the query text is ASCII whatever the value.
    ///
    /// - Complexity: O(bytes). - Allocations: the literal.
    public static func quote(_ value: some Sequence<UInt8>) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = [UInt8(ascii: "'")]
        for b in value {
            switch b {
            case UInt8(ascii: "\\"), UInt8(ascii: "'"): out += [UInt8(ascii: "\\"), b]
            case 0x20..<0x7F: out.append(b)
            default: out += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        out.append(UInt8(ascii: "'"))
        return String(decoding: out, as: UTF8.self)
    }

    /// ``quote(_:)`` of a string's UTF-8.
    public static func quote(_ value: String) -> String { quote(value.utf8) }

    /// A table name (`table` or `database.table`) as quoted identifiers: `` `chat`.`lines` ``, `` ` ``
    /// and `\` escaped, so no name can end the identifier.
    public static func identifier(_ name: String) -> String {
        name.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).map { part in
            "`" + part.replacing("\\", with: "\\\\").replacing("`", with: "\\`") + "`"
        }.joined(separator: ".")
    }

    /// When capture received a row's line (its file's day and order), else its shown time.
    static let receivedAt = "if(toUInt32(received) = 0, time, received)"
    static let receivedAtMs = "if(toUInt32(received) = 0, time_ms, received_ms)"
    /// The directory's order: by receive time (ties by shown time, then key).
    static let lineOrder = "\(receivedAt), \(receivedAtMs), time, time_ms, key"
    /// Rows the API may serve (``StoredLine/isServed``: a `room-id`, not a ROOMSTATE); the service
    /// checks each line again.
    static let served = "room_id != 0 AND type != 'ROOMSTATE'"

    /// `toDateTime(N)` of the second that holds `t` (`roundingUp`: of the first second not before it).
    static func dateTime(_ t: Timestamp, roundingUp: Bool = false) -> String {
        let ms = t.milliseconds
        var s = ms >= 0 ? ms / 1000 : (ms - 999) / 1000
        if roundingUp && s * 1000 < ms { s += 1 }
        return "toDateTime(\(min(max(s, 0), Int64(UInt32.max))))"
    }

    /// The conditions of rows received on `days` (and their shown times, one day either side: the sort
    /// key's range).
    static func on(_ days: ClosedRange<LogDay>) -> [String] {
        let start = days.lowerBound.start
        let end = days.upperBound.start.advanced(byMilliseconds: 86_400_000)
        return [
            "time >= \(dateTime(start.advanced(byMilliseconds: -86_400_000)))",
            "time < \(dateTime(end.advanced(byMilliseconds: 86_400_000)))",
            "\(receivedAt) >= \(dateTime(start))", "\(receivedAt) < \(dateTime(end))",
        ]
    }

    /// The condition of a channel's rows.
    static func channel(_ login: String) -> String { "channel = " + quote(login) }

    /// The rows of user ids `ids` as ``StoredLine/userId`` reads them (`user-id`, else `target-user-id`);
    /// `nil` when an id is not a number the columns can hold (the service's filter then decides alone).
    static func user(_ ids: [[UInt8]]) -> String? {
        var numbers: [String] = []
        for id in ids {
            guard !id.isEmpty, id.count <= 20, id.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }),
                let n = UInt64(String(decoding: id, as: UTF8.self))
            else { return nil }
            numbers.append(String(n))
        }
        guard !numbers.isEmpty else { return nil }
        let list = numbers.joined(separator: ", ")
        return "(user_id IN (\(list)) OR (user_id = 0 AND target_user_id IN (\(list))))"
    }

    /// The rows about `login` (lowercase): its sender's or target's login.
    static func login(_ login: [UInt8]) -> String {
        let quoted = quote(login)
        return "(lower(login) = \(quoted) OR lower(target_login) = \(quoted))"
    }

    /// The rows of `selection` (a superset of the lines it wants: the service filters each line).
    static func conditions(_ selection: LogSelection) -> [String] {
        var conditions: [String] = []
        if let channel = selection.channel { conditions.append(Self.channel(channel)) }
        if let days = selection.days { conditions += on(days) }
        if let window = selection.window {
            conditions.append("time >= \(dateTime(window.lowerBound))")
            conditions.append("time < \(dateTime(window.upperBound, roundingUp: true))")
        }
        if let user = user(selection.userIds) {
            conditions.append(user)
        } else if selection.userIds.isEmpty, let login = selection.login {
            conditions.append(Self.login(login))
        }
        if let needle = selection.search { conditions.append("positionCaseInsensitive(raw, \(quote(needle))) > 0") }
        conditions.append(served)
        return conditions
    }

    /// The `raw` column of `selection`'s rows in the directory's order (every channel's: by channel
    /// first), one row per sorting key (`FINAL`: a line loaded twice is one row), as RowBinary strings.
    /// The conditions are a `PREWHERE`: `raw` is read only for the granules with rows, and `FINAL` merges
    /// only those rows (with a `WHERE` it merged the whole range first: 2.1 s instead of 0.4 s for a
    /// user's month of 3 M rows on 18.16). A line's copies agree on every column but `received`, so
    /// only a line two hosts received on either side of midnight can be in both days.
    public static func lines(_ selection: LogSelection, table: String) -> String {
        "SELECT raw FROM \(identifier(table)) FINAL PREWHERE " + conditions(selection).joined(separator: " AND ")
            + " ORDER BY " + (selection.channel == nil ? "channel, " : "") + lineOrder + " FORMAT RowBinary"
    }

    /// The channels with rows, in byte order.
    static func channels(table: String) -> String {
        "SELECT DISTINCT channel FROM \(identifier(table)) ORDER BY channel FORMAT RowBinary"
    }

    /// One row when `channel` has any (on `days`, when given).
    static func exists(_ channel: String, on days: ClosedRange<LogDay>?, table: String) -> String {
        "SELECT 1 FROM \(identifier(table)) WHERE "
            + ([Self.channel(channel)] + (days.map(on) ?? [])).joined(separator: " AND ") + " LIMIT 1 FORMAT RowBinary"
    }

    /// The days (`Date`) `channel`'s lines were received on, newest first. A line load could not parse
    /// has no time (0): it is on no day.
    static func days(of channel: String, table: String) -> String {
        "SELECT DISTINCT toDate(\(receivedAt)) AS day FROM \(identifier(table)) WHERE \(Self.channel(channel)) "
            + "AND toUInt32(time) != 0 ORDER BY day DESC FORMAT RowBinary"
    }

    /// The `room-id` (a string) of `channel`'s newest served row.
    static func roomId(of channel: String, table: String) -> String {
        "SELECT toString(room_id) FROM \(identifier(table)) WHERE \(Self.channel(channel)) AND \(served) "
            + "ORDER BY time DESC, time_ms DESC LIMIT 1 FORMAT RowBinary"
    }

    /// `raw` of `channel`'s served rows about `login`: those with a user id first, then those on
    /// `preferred` days, then by day newest first, each day in the directory's order (as the directory
    /// store looks for a login's id: the month asked for, then the other files newest first).
    static func namings(
        of login: [UInt8], in channel: String, preferring preferred: ClosedRange<LogDay>?, table: String
    )
        -> String
    {
        let first = preferred.map { days in
            let start = days.lowerBound.start
            let end = days.upperBound.start.advanced(byMilliseconds: 86_400_000)
            return "(\(receivedAt) >= \(dateTime(start)) AND \(receivedAt) < \(dateTime(end))) DESC, "
        }
        return
            "SELECT raw FROM \(identifier(table)) WHERE \(Self.channel(channel)) AND \(Self.login(login)) AND \(served) "
            + "ORDER BY (user_id != 0 OR target_user_id != 0) DESC, \(first ?? "")toDate(\(receivedAt)) DESC, "
            + lineOrder + " LIMIT \(namingsLimit) FORMAT RowBinary"
    }

    /// The most rows ``namings(of:in:preferring:table:)`` reads.
    static let namingsLimit = 16

    /// The months (`Date`, their first day) with served rows of `selector`'s user in `channel`, newest first.
    static func months(of channel: String, with selector: UserSelector, table: String) -> String {
        let who = user(selector.ids) ?? selector.login.map(login) ?? "0"
        return "SELECT DISTINCT toStartOfMonth(toDate(\(receivedAt))) AS month FROM \(identifier(table)) "
            + "WHERE \(Self.channel(channel)) AND \(who) AND \(served) ORDER BY month DESC FORMAT RowBinary"
    }

    /// Fails (ClickHouse's message naming what is missing) unless the table has every column the store reads.
    static func check(table: String) -> String {
        "SELECT raw, channel, time, time_ms, received, received_ms, room_id, type, key, user_id, target_user_id, "
            + "login, target_login FROM \(identifier(table)) LIMIT 0 FORMAT RowBinary"
    }
}
