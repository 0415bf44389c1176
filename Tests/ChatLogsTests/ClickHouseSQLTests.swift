import ChatStore
import Testing

@testable import ChatLogStore
@testable import ChatLogs

/// The SQL of the ClickHouse store: every value quoted, every selection a range of the sort key, the
/// directory's order. (That ClickHouse reads it so is the differential test's, CLITests'
/// LogsClickHouseCLITests.)
@Suite struct ClickHouseSQLTests {
    static let nov20 = LogDay(year: 2025, month: 11, day: 20)!

    @Test("a string literal escapes quote and backslash and writes every other byte outside printable ASCII as \\xHH")
    func quoting() {
        #expect(ClickHouseSQL.quote("alpha") == "'alpha'")
        #expect(ClickHouseSQL.quote("it's") == #"'it\'s'"#)
        #expect(ClickHouseSQL.quote(#"a\'b"#) == #"'a\\\'b'"#)
        #expect(ClickHouseSQL.quote("'; DROP TABLE chat.lines; --") == #"'\'; DROP TABLE chat.lines; --'"#)
        #expect(ClickHouseSQL.quote("a\u{0}b\nc\t") == #"'a\x00b\x0Ac\x09'"#)
        #expect(ClickHouseSQL.quote("Ä🎉") == #"'\xC3\x84\xF0\x9F\x8E\x89'"#)
        #expect(ClickHouseSQL.quote([0xFF, 0x27, 0x5C]) == #"'\xFF\'\\'"#)
        // Whatever the value, the literal is one token: ASCII, its quotes all escaped but the two ends.
        for hostile in ["\\", "'", "\\'", "''", "\u{7F}", "a'b\\'c"] {
            let literal = Array(ClickHouseSQL.quote(hostile).utf8)
            #expect(literal.allSatisfy { $0 >= 0x20 && $0 < 0x7F })
            var i = 1
            var closedAt: Int? = nil
            while i < literal.count {
                if literal[i] == UInt8(ascii: "\\") {
                    i += 2
                    continue
                }
                if literal[i] == UInt8(ascii: "'") {
                    closedAt = i
                    break
                }
                i += 1
            }
            #expect(closedAt == literal.count - 1, "\(hostile)")
        }
    }

    @Test("a table name is quoted identifiers: a backtick or backslash in it cannot end one")
    func identifiers() {
        #expect(ClickHouseSQL.identifier("chat.lines") == "`chat`.`lines`")
        #expect(ClickHouseSQL.identifier("lines") == "`lines`")
        #expect(ClickHouseSQL.identifier("a`b.c\\d") == #"`a\`b`.`c\\d`"#)
    }

    @Test("a channel's day is a range of the sort key (channel, time) and the day it was received, in receive order")
    func day() {
        let sql = ClickHouseSQL.lines(
            LogSelection(channel: "alpha", days: Self.nov20...Self.nov20), table: "chat.lines")
        let day: Int64 = 1_763_596_800  // 2025-11-20T00:00:00Z
        #expect(
            sql == "SELECT raw FROM `chat`.`lines` FINAL PREWHERE channel = 'alpha' "
                + "AND time >= toDateTime(\(day - 86_400)) AND time < toDateTime(\(day + 2 * 86_400)) "
                + "AND if(toUInt32(received) = 0, time, received) >= toDateTime(\(day)) "
                + "AND if(toUInt32(received) = 0, time, received) < toDateTime(\(day + 86_400)) "
                + "AND room_id != 0 AND type != 'ROOMSTATE' "
                + "ORDER BY if(toUInt32(received) = 0, time, received), if(toUInt32(received) = 0, time_ms, received_ms), "
                + "time, time_ms, key FORMAT RowBinary")
    }

    @Test("a user's selection adds their ids (user-id, else target-user-id); a window, a login and a search narrow too")
    func hints() {
        let window = Timestamp(milliseconds: 1_763_632_800_250)..<Timestamp(milliseconds: 1_763_636_400_001)
        let user = ClickHouseSQL.conditions(
            LogSelection(channel: "alpha", window: window, userIds: [Array("2001".utf8), Array("2002".utf8)]))
        #expect(user.contains("(user_id IN (2001, 2002) OR (user_id = 0 AND target_user_id IN (2001, 2002)))"))
        #expect(user.contains("time >= toDateTime(1763632800)") && user.contains("time < toDateTime(1763636401)"))
        // An id that is no number the column holds is left to the service's filter, never put in the text.
        let odd = ClickHouseSQL.conditions(LogSelection(channel: "alpha", userIds: [Array("1) OR (1=1".utf8)]))
        #expect(odd == ["channel = 'alpha'", ClickHouseSQL.served])
        #expect(ClickHouseSQL.user([Array("18446744073709551616".utf8)]) == nil)
        let login = ClickHouseSQL.conditions(LogSelection(channel: "alpha", login: Array("bob".utf8)))
        #expect(login.contains("(lower(login) = 'bob' OR lower(target_login) = 'bob')"))
        let search = ClickHouseSQL.conditions(LogSelection(channel: "alpha", search: Array("it's \\".utf8)))
        #expect(search.contains(#"positionCaseInsensitive(raw, 'it\'s \\') > 0"#))
        // Every channel's lines (a name history) are ordered by channel first.
        let all = ClickHouseSQL.lines(LogSelection(channel: nil, userIds: [Array("2003".utf8)]), table: "t")
        #expect(all.contains(" ORDER BY channel, if(") && !all.contains("channel ="))
    }

    @Test("a login's id: rows with an id first, the month asked for next, then the other days newest first")
    func namings() {
        let sql = ClickHouseSQL.namings(
            of: Array("o'neil".utf8), in: "alpha", preferring: Self.nov20...Self.nov20, table: "chat.lines")
        #expect(sql.contains(#"(lower(login) = 'o\'neil' OR lower(target_login) = 'o\'neil')"#))
        #expect(sql.contains("ORDER BY (user_id != 0 OR target_user_id != 0) DESC, (if("))
        #expect(sql.contains("toDate(if(toUInt32(received) = 0, time, received)) DESC, if("))
        #expect(sql.hasSuffix("LIMIT 16 FORMAT RowBinary"))
    }

    @Test("a time is the second that holds it, before 1970 and after 2106 clamped")
    func times() {
        #expect(ClickHouseSQL.dateTime(Timestamp(milliseconds: 1_999)) == "toDateTime(1)")
        #expect(ClickHouseSQL.dateTime(Timestamp(milliseconds: 1_001), roundingUp: true) == "toDateTime(2)")
        #expect(ClickHouseSQL.dateTime(Timestamp(milliseconds: 2_000), roundingUp: true) == "toDateTime(2)")
        #expect(ClickHouseSQL.dateTime(Timestamp(milliseconds: -1)) == "toDateTime(0)")
        #expect(ClickHouseSQL.dateTime(Timestamp(milliseconds: 5_000_000_000_000)) == "toDateTime(4294967295)")
    }

    @Test("the days around a range: those it touches and one either side")
    func daysAround() {
        let from = Timestamp(milliseconds: 1_763_596_800_000)  // Nov 20 00:00
        let range = LogSelection.daysAround(from..<from.advanced(byMilliseconds: 86_400_000))
        #expect(range.lowerBound == LogDay(year: 2025, month: 11, day: 19))
        #expect(range.upperBound == LogDay(year: 2025, month: 11, day: 21))
        let empty = LogSelection.daysAround(from..<from)
        #expect(empty == LogDay(year: 2025, month: 11, day: 19)!...LogDay(year: 2025, month: 11, day: 20)!)
    }
}
