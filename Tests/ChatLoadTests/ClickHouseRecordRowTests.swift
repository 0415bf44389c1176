import ChatFormat
import ChatTestSupport
import Foundation
import Testing

@Suite struct ClickHouseRecordRowTests {
    /// The row of `line` as a JSON object, `nil` when the line is not a record.
    static func row(_ line: String, end: UInt64 = 500, times: ClickHouseRow.Times = .datetime) throws
        -> [String: Any]?
    {
        var writer = JSONWriter()
        guard ClickHouseRecordRow.encode(Array(line.utf8).span, end: end, times: times, into: &writer) else {
            #expect(writer.count == 0, "nothing written for a line that is not a record")
            return nil
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
    }

    static let partialGap =
        "@time=2026-11-21T13:26:05.500Z;gap-from=2026-11-21T13:26:03.250Z;gap-to=2026-11-21T13:26:05.500Z;"
        + "reason=the\\sserver\\sclosed\\sthe\\sconnection;backfill=partial;recovered=7;"
        + "missing-from=2026-11-21T13:26:03.250Z;missing-to=2026-11-21T13:26:04.001Z "
        + ":chatcap CAPTURE gap #chan :gap in #chan from … (2250 ms): the server closed the connection; backfill partial"

    @Test("a gap with a partial backfill: its interval, reason, state, lines recovered, what is still missing")
    func partialGap() throws {
        let r = try #require(try Self.row(Self.partialGap))
        #expect(r["time"] as? Int == 1_795_267_565)
        #expect(r["time_ms"] as? Int == 500)
        #expect(r["channel"] as? String == "chan")
        #expect(r["event"] as? String == "gap")
        #expect(r["gap_from"] as? Int == 1_795_267_563)
        #expect(r["gap_from_ms"] as? Int == 250)
        #expect(r["gap_to_ms"] as? Int == 500)
        #expect(r["reason"] as? String == "the server closed the connection")
        #expect(r["backfill"] as? String == "partial")
        #expect(r["recovered"] as? Int == 7)
        #expect(r["missing_from"] as? Int == 1_795_267_563)
        #expect(r["missing_to_ms"] as? Int == 1)
        #expect(r["backfill_error"] as? String == "")
        #expect((r["key"] as? String)?.hasSuffix(":500") == true)
        #expect(r["raw"] as? String == Self.partialGap)
        // The columns of chat.records in docs/clickhouse.sql, in order.
        let columns = try ClickHouseRowTests.tableColumns("docs/clickhouse.sql", "chat.records")
        #expect(columns == ClickHouseRecordRow.columns(.datetime))
        #expect(Set(r.keys) == Set(columns))
    }

    @Test("session records: start of the whole capture (channel ''), joined; other _session lines are no rows")
    func sessionRecords() throws {
        let start = try #require(
            try Self.row("@time=2026-11-21T13:26:00.000Z :chatcap CAPTURE start * :capture of a b started"))
        #expect(start["event"] as? String == "start")
        #expect(start["channel"] as? String == "")
        #expect(start["text"] as? String == "capture of a b started")
        #expect(start["gap_from"] as? Int == 0 && start["backfill"] as? String == "" && start["recovered"] as? Int == 0)
        let joined = try #require(
            try Self.row("@time=2026-11-21T13:26:00.100Z :chatcap CAPTURE joined #chan :joined #chan"))
        #expect(joined["event"] as? String == "joined" && joined["channel"] as? String == "chan")
        #expect(try Self.row("@time=2026-11-21T13:26:00.000Z PING :tmi.twitch.tv") == nil)
        #expect(try Self.row(":tmi.twitch.tv 001 justinfan1 :Welcome, GLHF!") == nil)
        #expect(try Self.row("not irc at all \u{1}") == nil)
    }

    @Test(
        "--times datetime64: times with three decimals, no _ms columns, as docs/clickhouse-current.sql's chat.records")
    func datetime64() throws {
        let r = try #require(try Self.row(Self.partialGap, times: .datetime64))
        #expect((r["gap_from"] as? Double).map { abs($0 - 1_795_267_563.25) < 0.0005 } == true)
        let columns = try ClickHouseRowTests.tableColumns("docs/clickhouse-current.sql", "chat.records")
        #expect(columns == ClickHouseRecordRow.columns(.datetime64))
        #expect(Set(r.keys) == Set(columns))
    }
}
