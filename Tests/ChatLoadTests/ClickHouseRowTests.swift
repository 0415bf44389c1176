import ChatFormat
import ChatTestSupport
import Foundation
import Testing

@Suite struct ClickHouseRowTests {
    /// The row of `line` as a JSON object.
    static func row(_ line: String, channel: String = "chan", end: UInt64 = 1000) throws -> [String: Any] {
        let bytes = Array(line.utf8)
        var writer = JSONWriter()
        ClickHouseRow.encode(bytes.span, channel: channel, end: end, into: &writer)
        let object = try JSONSerialization.jsonObject(with: Data(writer.bytes))
        return try #require(object as? [String: Any])
    }

    static let privmsg =
        "@time=2026-11-21T13:26:03.373Z;badge-info=subscriber/14;badges=subscriber/12,premium/1;color=#FF0000;"
        + "display-name=Some\\sOne;id=3f1c-aa;reply-parent-msg-id=parent-1;room-id=12345;tmi-sent-ts=1763700000123;"
        + "user-id=678;bits=100 :someone!someone@someone.tmi.twitch.tv PRIVMSG #chan :\u{1}ACTION waves\u{1}"

    @Test("a PRIVMSG: times, ids, sender, text without /me, badges, raw byte for byte, every column once")
    func privmsg() throws {
        let r = try Self.row(Self.privmsg)
        #expect(r["time"] as? Int == 1_763_700_000)
        #expect(r["time_ms"] as? Int == 123)
        #expect(r["received"] as? Int == 1_795_267_563)
        #expect(r["received_ms"] as? Int == 373)
        #expect(r["channel"] as? String == "chan")
        #expect(r["room_id"] as? Int == 12345)
        #expect(r["type"] as? String == "PRIVMSG")
        #expect(r["id"] as? String == "3f1c-aa")
        #expect(r["key"] as? String == "3f1c-aa")
        #expect(r["user_id"] as? Int == 678)
        #expect(r["login"] as? String == "someone")
        #expect(r["display_name"] as? String == "Some One")
        #expect(r["color"] as? String == "#FF0000")
        #expect(r["text"] as? String == "waves")
        #expect(r["action"] as? Int == 1)
        #expect(r["bits"] as? Int == 100)
        #expect(r["reply_parent_id"] as? String == "parent-1")
        #expect(r["badges"] as? [String] == ["subscriber/12", "premium/1"])
        #expect(r["badge_info"] as? [String] == ["subscriber/14"])
        #expect(r["raw"] as? String == Self.privmsg)
        // The columns of docs/clickhouse.sql and docs/clickhouse-current.sql, no more and no fewer, in order.
        let columns = try Self.tableColumns("docs/clickhouse.sql", "chat.lines")
        #expect(columns.count == 27)
        #expect(columns == ClickHouseRow.columns(.datetime))
        #expect(Set(r.keys) == Set(columns))
        #expect(
            try Self.tableColumns("docs/clickhouse-current.sql", "chat.lines") == ClickHouseRow.columns(.datetime64))
        #expect(r["historical"] as? Int == 0)
    }

    /// The column names of `CREATE TABLE IF NOT EXISTS <table>` in `file` (relative to the package).
    static func tableColumns(_ file: String, _ table: String) throws -> [String] {
        let sql = try String(contentsOfFile: Fixtures.root + "/" + file, encoding: .utf8)
        let body = try #require(
            sql.components(separatedBy: "CREATE TABLE IF NOT EXISTS \(table)\n(\n").dropFirst().first)
        return body.components(separatedBy: "\n)")[0].split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            guard words.count >= 2, !words[0].hasPrefix("--") else { return nil }
            return String(words[0])
        }
    }

    @Test("a line recovered by a backfill (historical=1) is marked; historical=0 or none is not")
    func historical() throws {
        let recovered = try Self.row("@historical=1;id=a;rm-received-ts=1;tmi-sent-ts=1 :u!u@u PRIVMSG #chan :hi")
        #expect(recovered["historical"] as? Int == 1)
        #expect(try Self.row("@historical=0;id=a;tmi-sent-ts=1 :u!u@u PRIVMSG #chan :hi")["historical"] as? Int == 0)
        #expect(try Self.row("@id=a;tmi-sent-ts=1 :u!u@u PRIVMSG #chan :hi")["historical"] as? Int == 0)
    }

    @Test("moderation: CLEARCHAT timeout and ban, CLEARMSG, USERNOTICE login and msg-id")
    func moderation() throws {
        let timeout = try Self.row(
            "@time=2026-11-21T13:26:03.373Z;ban-duration=600;room-id=1;target-user-id=42;tmi-sent-ts=1763700000000 "
                + ":tmi.twitch.tv CLEARCHAT #chan :baduser")
        #expect(timeout["type"] as? String == "CLEARCHAT")
        #expect(timeout["target_login"] as? String == "baduser")
        #expect(timeout["target_user_id"] as? Int == 42)
        #expect(timeout["ban_duration"] as? Int == 600)
        #expect((timeout["key"] as? String)?.hasPrefix("h") == true)
        let ban = try Self.row("@room-id=1;target-user-id=42;tmi-sent-ts=1 :tmi.twitch.tv CLEARCHAT #chan :baduser")
        #expect(ban["ban_duration"] as? Int == 0)
        #expect(ban["target_login"] as? String == "baduser")
        let clearmsg = try Self.row(
            "@login=someone;room-id=;target-msg-id=abc-1;tmi-sent-ts=1763700000001 :tmi.twitch.tv CLEARMSG #chan :oops")
        #expect(clearmsg["target_msg_id"] as? String == "abc-1")
        #expect(clearmsg["target_login"] as? String == "someone")
        #expect(clearmsg["login"] as? String == "")
        #expect(clearmsg["text"] as? String == "oops")
        let sub = try Self.row(
            "@id=u-1;login=subber;msg-id=resub;system-msg=x;tmi-sent-ts=1763700000002;user-id=9 "
                + ":tmi.twitch.tv USERNOTICE #chan :great stream")
        #expect(sub["login"] as? String == "subber")
        #expect(sub["msg_id"] as? String == "resub")
        #expect(sub["text"] as? String == "great stream")
    }

    @Test("lines without an id: a hash of the line without the capture's time tag, plus its offset without tmi-sent-ts")
    func hashKey() throws {
        // With tmi-sent-ts (moderation): the hash alone, so two hosts' copies collapse.
        let a = try Self.row(
            "@time=2026-11-21T13:26:03.373Z;room-id=1;tmi-sent-ts=5 :tmi.twitch.tv CLEARCHAT #chan :u", end: 100)
        let b = try Self.row(
            "@time=2026-11-21T13:26:04.999Z;room-id=1;tmi-sent-ts=5 :tmi.twitch.tv CLEARCHAT #chan :u", end: 900)
        let c = try Self.row(
            "@time=2026-11-21T13:26:04.999Z;room-id=1;tmi-sent-ts=6 :tmi.twitch.tv CLEARCHAT #chan :u", end: 900)
        #expect(a["key"] as? String == b["key"] as? String)
        #expect(a["key"] as? String != c["key"] as? String)
        // FNV-1a 64 of the line without its time tag (docs/scale.md's Python gives the same).
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in "@room-id=1;tmi-sent-ts=5 :tmi.twitch.tv CLEARCHAT #chan :u".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        #expect(a["key"] as? String == "h" + String(hash, radix: 16).leftPadded(16))
        // Without tmi-sent-ts: the time is the receive time and the key ends with the line's offset, so
        // that identical lines in one millisecond stay apart, and a re-sent line (same offset) does not.
        let r1 = try Self.row(
            "@time=2026-11-21T13:26:03.373Z;emote-only=0;room-id=1 :tmi.twitch.tv ROOMSTATE #chan", end: 10)
        let r2 = try Self.row(
            "@time=2026-11-21T13:26:03.373Z;emote-only=0;room-id=1 :tmi.twitch.tv ROOMSTATE #chan", end: 95)
        #expect((r1["key"] as? String)?.hasSuffix(":10") == true)
        #expect(r1["key"] as? String != r2["key"] as? String)
        #expect(r1["time"] as? Int == r1["received"] as? Int)
        #expect(r1["time_ms"] as? Int == 373)
        // A time tag that is the only tag: the rest of the line.
        let join = try Self.row("@time=2026-11-21T13:26:03.373Z :u!u@u.tmi.twitch.tv JOIN #chan", end: 3)
        let plainJoin = try Self.row(":u!u@u.tmi.twitch.tv JOIN #chan", end: 3)
        #expect(join["key"] as? String == plainJoin["key"] as? String)
        #expect(join["login"] as? String == "u")
    }

    @Test(
        "--times datetime64: time and received as seconds with three decimals, no _ms columns; the rest as with datetime"
    )
    func datetime64() throws {
        var writer = JSONWriter()
        ClickHouseRow.encode(
            Array(Self.privmsg.utf8).span, channel: "chan", end: 1000, times: .datetime64, into: &writer)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"time":1763700000.123,"received":1795267563.373,"channel":"chan","#), "\(text)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any])
        #expect(object["time_ms"] == nil && object["received_ms"] == nil)
        var split = try Self.row(Self.privmsg)
        split["time"] = nil
        split["time_ms"] = nil
        split["received"] = nil
        split["received_ms"] = nil
        #expect(Set(object.keys).subtracting(["time", "received"]) == Set(split.keys))
        // Milliseconds below 100 keep their zeros; a line without times is 0.000 (1970).
        writer.reset()
        ClickHouseRow.encode(
            Array("@time=2026-11-21T13:26:03.007Z :tmi.twitch.tv ROOMSTATE #chan".utf8).span, channel: "chan", end: 7,
            times: .datetime64, into: &writer)
        #expect(
            String(decoding: writer.bytes, as: UTF8.self).hasPrefix(
                #"{"time":1795267563.007,"received":1795267563.007,"#))
        writer.reset()
        ClickHouseRow.encode(
            Array("@a=b :src N@T!".utf8).span, channel: "chan", end: 7, times: .datetime64, into: &writer)
        #expect(String(decoding: writer.bytes, as: UTF8.self).hasPrefix(#"{"time":0.000,"received":0.000,"channel""#))
    }

    @Test("raw keeps bytes that are not UTF-8; typed columns get U+FFFD; a line that is not IRC still gets a row")
    func bytes() throws {
        let line: [UInt8] =
            Array("@id=x;tmi-sent-ts=5 :a!a@a PRIVMSG #chan :bad ".utf8) + [0xFF, 0xFE] + Array(" \"q\"".utf8)
        var writer = JSONWriter()
        ClickHouseRow.encode(line.span, channel: "chan", end: 1, into: &writer)
        let out = writer.bytes
        #expect(out.windowContains([0x62, 0x61, 0x64, 0x20, 0xFF, 0xFE]), "raw holds the bytes as they are")
        #expect(String(decoding: out, as: UTF8.self).contains("\"text\":\"bad \u{FFFD}\u{FFFD} \\\"q\\\"\""))
        writer.reset()
        let facts = ClickHouseRow.encode(Array("@a=b :src N@T!".utf8).span, channel: "chan", end: 7, into: &writer)
        #expect(!facts.parsed)
        let r = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String: Any]
        #expect(r?["type"] as? String == "")
        #expect(r?["raw"] as? String == "@a=b :src N@T!")
    }

    @Test("withoutTimeTag cuts only a leading time tag")
    func withoutTimeTag() {
        func cut(_ s: String) -> String {
            let bytes = Array(s.utf8)
            let (a, b) = ClickHouseRow.withoutTimeTag(bytes.span)
            return String(decoding: bytes[a] + bytes[b], as: UTF8.self)
        }
        #expect(cut("@time=1;a=b :x PING") == "@a=b :x PING")
        #expect(cut("@time=1 :x PING") == ":x PING")
        #expect(cut("@a=b;time=1 :x PING") == "@a=b;time=1 :x PING")
        #expect(cut(":x PING") == ":x PING")
        #expect(cut("@time=1") == "@time=1")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

extension Array where Element == UInt8 {
    func windowContains(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}
