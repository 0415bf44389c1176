import ChatTestSupport
import Foundation
import Glibc
import Testing

/// Holes and backfills reach ClickHouse (issue #37): a capture with gaps (serve `--drop-after`, its own
/// recent-messages API as the service, so most gaps are closed with recovered lines; then a second run
/// without a service, which leaves the gap between the runs open) is loaded into Debian's ClickHouse
/// 18.16 started by Scripts/clickhouse_test_server.sh. The table first has the older form (no
/// `historical`, no chat.records): `load` stops (78) with the ALTER to run and acknowledges nothing of
/// what it could not send. After the documented migration, the documented query of docs/scale.md
/// answers what `replay --format json --type gap` says of the files, and the recovered rows are the
/// files' `historical=1` lines; loading everything again doubles nothing.
@Suite(.serialized, .timeLimit(.minutes(20))) struct BackfillLoadCLITests {
    @Test("gaps, session records and recovered lines in ClickHouse: the documented query answers as replay does")
    func holesAndBackfills() throws {
        let dir = try CLITempDirectory.make("backfill-load")
        defer { CLITempDirectory.remove(dir) }
        let capture = dir + "/cap"
        try makeCapture(capture, fixture: BackfillCLITests.fixture(in: dir))

        let server = try ClickHouseServer(dir: dir + "/clickhouse")
        defer { server.stop() }
        try server.waitUntilUp()
        let progress = "\(capture)/_load/127.0.0.1_\(server.httpPort)_chat.lines.progress"
        func load() throws -> CLIRun {
            try CLI.run(["load", capture, "--clickhouse", server.url, "--once", "--status", "none"])
        }

        // The older form of chat.lines (no historical) and no chat.records: load says what to run.
        let sql = try String(contentsOfFile: Fixtures.root + "/docs/clickhouse.sql", encoding: .utf8)
        let old = Self.statements(sql).filter { !$0.contains("chat.records") }.map {
            $0.replacingOccurrences(of: #"\n\s*historical\s[^\n]*"#, with: "", options: .regularExpression)
        }
        for statement in old { _ = try server.query(statement) }
        let refused = try load()
        #expect(refused.status == 78, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("chat.lines lacks the column historical")
                && refused.stderr.contains("ALTER TABLE chat.lines ADD COLUMN historical UInt8 DEFAULT 0"),
            "\(refused.stderr)")
        #expect(try Self.progressLines(progress).isEmpty, "nothing acknowledged, nothing recorded as loaded")

        // The documented migration: the ALTERs of docs/clickhouse.sql; chat.records still missing.
        let alters = sql.split(separator: "\n").filter { $0.hasPrefix("--   ALTER ") }.map {
            String($0.dropFirst("--   ".count).dropLast())
        }
        #expect(alters.count == 2, "\(alters)")
        for alter in alters { _ = try server.query(alter) }
        let noRecords = try load()
        #expect(noRecords.status == 78, "\(noRecords.stderr)")
        #expect(
            noRecords.stderr.contains("chat.records does not exist")
                && noRecords.stderr.contains("--records-table none"),
            "\(noRecords.stderr)")
        #expect(
            !(try Self.progressLines(progress)).contains { $0.hasPrefix("_session/") },
            "the session file's progress does not move without its INSERT acknowledged")

        // The whole schema file again: it creates chat.records and leaves chat.lines as it is.
        let schema = try CLI.shell("Scripts/clickhouse_schema.sh \(server.url)")
        try #require(schema.status == 0, "\(schema.stderr) \(schema.text)")
        let loaded = try load()
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(try Self.progressLines(progress).contains { $0.hasPrefix("_session/") })

        try checkAnswers(server, capture)
        // Everything sent again (progress gone): every answer the same after FINAL.
        try FileManager.default.removeItem(atPath: capture + "/_load")
        let again = try load()
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("of them capture records"), "\(again.stderr)")
        try checkAnswers(server, capture)
        _ = try server.query("OPTIMIZE TABLE chat.records FINAL")
        let rows = try server.query("SELECT count() FROM chat.records")
        let records = try CLI.run(["replay", capture, "--format", "json", "--type", "gap", "--type", "session"])
        #expect(Int(rows) == records.text.split(separator: "\n").count, "one row per record after the merge")
    }

    /// A capture with gaps: 6 s behind serve `--drop-after 400` with its recent-messages API as the
    /// service (closed gaps with recovered lines; the last ones cut short by the stop), then 2 s without
    /// a service (the gap between the two runs, and its drops' gaps, stay open).
    func makeCapture(_ capture: String, fixture: String) throws {
        let (serve, base) = try ServeRecentMessagesCLITests.serve([fixture, "--loop", "--drop-after", "400"])
        defer { serve.kill() }
        let common =
            ["--dir", capture] + BackfillCLITests.channels + [
                "--host", "127.0.0.1", "--port", "\(serve.port)", "--plain", "--status", "none",
                "--reconnect-base", "0.05", "--reconnect-max", "0.1", "--join-rate", "1000",
            ]
        let first = try ChatcapProcess(["capture", "--recent-messages", base, "--duration", "6"] + common)
        #expect(first.exitStatus(within: 30) == 0, "\(first.stderr)")
        let second = try ChatcapProcess(["capture", "--duration", "2"] + common)
        #expect(second.exitStatus(within: 30) == 0, "\(second.stderr)")
    }

    /// The documented queries against what replay says of the files.
    func checkAnswers(_ server: ClickHouseServer, _ capture: String) throws {
        let gaps = try Self.checkHolesAndBackfills([capture]) { try server.query($0) }
        #expect(gaps.contains { $0["backfill"] == nil }, "the gap between the runs was not backfilled")

        // The session records: as many starts, stops and joins as replay shows.
        let sessions = try CLI.run(["replay", capture, "--format", "json", "--type", "session"]).text
        for event in ["start", "stop", "joined"] {
            let files = sessions.split(separator: "\n").count { $0.contains(#""event":"\#(event)""#) }
            let rows = try server.query("SELECT count() FROM chat.records FINAL WHERE event = '\(event)'")
            #expect(Int(rows) == files, "\(event) records")
            #expect(files >= 2)
        }
    }

    /// The two documented queries of holes and backfills (docs/scale.md), asked through `ask` (a query
    /// over chat.lines and chat.records → its TSV answer), against what `replay` says of the files of
    /// `captures` (each host's gaps are its own rows): every gap of `replay --format json --type gap`
    /// with what is still missing, and per channel the recovered rows, which are the files'
    /// `historical=1` lines, as many as the gaps say they recovered (none recovered fails). Returns the gaps.
    static func checkHolesAndBackfills(_ captures: [String], _ ask: (String) throws -> String) throws -> [[String: Any]]
    {
        let queries = try ClickHouseLoadTests.documentedQueries()
        let gaps = try captures.flatMap { try BackfillCLITests.gaps($0) }
        #expect(gaps.contains { $0["backfill"] as? String == "closed" && ($0["recovered"] as? Int ?? 0) > 0 })
        let holes = try ask(
            try #require(queries["where the archive is incomplete, and what was recovered"]) + " FORMAT TSVRaw")
        let expected = gaps.map { gap -> String in
            let backfill = gap["backfill"] as? String ?? ""
            let from = Self.seconds(gap["from"])
            let to = Self.seconds(gap["to"])
            let missing =
                backfill == "closed"
                ? ""
                : backfill == "partial"
                    ? "\(Self.seconds(gap["missing_from"])) to \(Self.seconds(gap["missing_to"]))" : "\(from) to \(to)"
            return [
                gap["channel"] as? String ?? "", from, to, gap["reason"] as? String ?? "", backfill,
                "\(gap["recovered"] as? Int ?? 0)", missing,
            ].joined(separator: "\t")
        }
        let answered = holes.split(separator: "\n").map(String.init)
        #expect(answered.count == gaps.count)
        #expect(answered.sorted() == expected.sorted(), "the documented query answers as replay --type gap")

        // The recovered lines: the files' historical=1 lines, per channel, and as many as the gaps say.
        var historical: [String: Int] = [:]
        for capture in captures {
            let raw = try CLI.run(["replay", capture, "--format", "raw"])
            for line in raw.text.split(separator: "\r\n") where LineTags.value("historical", in: line) == "1" {
                let channel = line.split(separator: " ", maxSplits: 4).dropFirst().first { $0.hasPrefix("#") }
                historical[String(channel?.dropFirst() ?? ""), default: 0] += 1
            }
        }
        let recovered = try ask(
            try #require(queries["lines recovered by backfill, per channel"]) + " FORMAT TSVRaw")
        let perChannel = Dictionary(
            uniqueKeysWithValues: recovered.split(separator: "\n").map {
                let f = $0.split(separator: "\t")
                return (String(f[0]), Int(f[1])!)
            })
        #expect(perChannel == historical)
        #expect(historical.values.reduce(0, +) == gaps.reduce(0) { $0 + ($1["recovered"] as? Int ?? 0) })
        #expect(historical.values.reduce(0, +) > 0)
        return gaps
    }

    /// An RFC 3339 instant of replay's JSON as ClickHouse shows a DateTime('UTC'): `2026-11-21 13:26:03`.
    static func seconds(_ value: Any?) -> String {
        let text = value as? String ?? ""
        return String(text.prefix(19)).replacingOccurrences(of: "T", with: " ")
    }

    /// The statements of an SQL file, comments dropped (as Scripts/clickhouse_schema.sh splits them).
    static func statements(_ sql: String) -> [String] {
        sql.split(separator: "\n").map { $0.split(separator: "--", maxSplits: 1, omittingEmptySubsequences: false)[0] }
            .joined(separator: "\n").split(separator: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
    }

    /// The file lines of a progress file (none when it does not exist).
    static func progressLines(_ path: String) throws -> [Substring] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }
    }
}
