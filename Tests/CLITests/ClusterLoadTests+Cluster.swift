import ChatTestSupport
import Foundation
import Testing

extension ClusterLoadTests {
    /// Scripts/clickhouse_cluster.sh in a folder, on a base port found free.
    struct Cluster {
        let dir: String
        var urls: [String] = []

        init(dir: String) throws {
            self.dir = dir
            for _ in 0..<5 {
                // Below the kernel's ephemeral ports (32768 and up): a client's connection cannot take
                // one between the script's check and a server's bind. A port taken anyway makes the
                // script stop what it started; then another base.
                let base = Int.random(in: 20_000...32_000)
                let run = try CLI.shell("Scripts/clickhouse_cluster.sh start \(dir) \(base)")
                if run.status == 69 || run.stderr.contains("Address already in use") { continue }
                try #require(run.status == 0, "cluster start: \(run.text) \(run.stderr)")
                let lines = run.text.split(separator: "\n").filter { $0.hasPrefix("shard ") }
                #expect(
                    lines.map { $0.split(separator: " ").prefix(4).joined(separator: " ") } == [
                        "shard 1 replica 1", "shard 1 replica 2", "shard 2 replica 1", "shard 2 replica 2",
                    ])
                urls = lines.map { String($0.split(separator: " ")[4]) }
                return
            }
            throw ServeCLIFailure(description: "no free ports for the cluster")
        }

        func run(_ command: String, _ shard: Int, _ replica: Int) throws { try run(command, "\(shard) \(replica)") }

        /// `command` (kill, restart) of `server`: `S R`, or `zookeeper`.
        func run(_ command: String, _ server: String) throws {
            let run = try CLI.shell("Scripts/clickhouse_cluster.sh \(command) \(dir) \(server)")
            try #require(run.status == 0, "\(command) \(server): \(run.stderr)")
        }

        func stop() { _ = try? CLI.shell("Scripts/clickhouse_cluster.sh stop \(dir)") }

        /// The answer of `sql` from one server (``ClickHouseServer/query(_:url:dir:)``).
        func query(_ shard: Int, _ replica: Int, _ sql: String) throws -> String {
            try ClickHouseServer.query(sql, url: urls[2 * (shard - 1) + replica - 1], dir: dir)
        }

        /// Rows of chat.lines over the cluster (the Distributed table, no FINAL).
        func total() throws -> Int { Int(try query(1, 1, "SELECT count() FROM chat.lines_all")) ?? -1 }

        /// Distinct (channel, key) pairs over the cluster.
        func distinctKeys() throws -> Int {
            Int(try query(1, 1, "SELECT uniqExact(channel, time, time_ms, key) FROM chat.lines_all")) ?? -1
        }

        /// After SYSTEM SYNC REPLICA, both replicas of each shard hold the same lines and records. Compared
        /// with FINAL: a merge assigned after the sync (one that collapses a redundant capture's copies)
        /// may have run on one replica and not yet on the other.
        func expectReplicasEqual() throws {
            for shard in 1...2 {
                var answers: [String] = []
                for replica in 1...2 {
                    _ = try query(shard, replica, "SYSTEM SYNC REPLICA chat.lines")
                    _ = try query(shard, replica, "SYSTEM SYNC REPLICA chat.records")
                    answers.append(
                        try query(
                            shard, replica,
                            "SELECT count(), sum(cityHash64(key, raw)), (SELECT count() FROM chat.records FINAL) FROM chat.lines FINAL"
                        ))
                }
                #expect(answers[0] == answers[1], "shard \(shard): \(answers)")
                #expect(!answers[0].hasPrefix("0\t"), "shard \(shard) holds rows")
            }
        }

        /// The single-server table to compare the cluster with: docs/clickhouse.sql as it is (plain
        /// ReplacingMergeTree, neither replicated nor distributed) in database `single` on shard 1's
        /// first server, which also holds a replica: a separate server would cost another start.
        func createSingleServerTables() throws {
            let sql = try String(contentsOfFile: Fixtures.root + "/docs/clickhouse.sql", encoding: .utf8)
            for statement in BackfillLoadCLITests.statements(sql) {
                _ = try query(
                    1, 1, statement.replacingOccurrences(of: #"\bchat\b"#, with: "single", options: .regularExpression))
            }
        }

        /// `load --once` of each capture into the single-server tables (side by side, each its own load).
        func loadSingleServer(_ captures: [String]) throws {
            let loads = try captures.map {
                try ChatcapProcess(
                    ["load", $0, "--clickhouse", urls[0], "--once", "--status", "none"]
                        + ["--table", "single.lines", "--records-table", "single.records"])
            }
            for load in loads { #expect(load.exitStatus(within: 120) == 0, "load into single.lines: \(load.stderr)") }
        }

        /// `sql`, a query of docs/scale.md over chat.lines and chat.records, over the Distributed tables
        /// (`chat.lines_all`, `chat.records_all`) or over the single-server ones (`single.lines`, `single.records`).
        static func onTables(_ sql: String, distributed: Bool) -> String {
            sql.replacingOccurrences(
                of: #"\bchat\.(lines|records)\b"#, with: distributed ? "chat.$1_all" : "single.$1",
                options: .regularExpression)
        }

        /// Every example query of docs/scale.md through the Distributed tables (asked of shard 2's
        /// first server) and on the single-server tables holding the same files: the same answer, rows
        /// in the same order, and not an empty one.
        func expectAnswersAsSingleServer() throws {
            let queries = try ClickHouseLoadTests.documentedQueries()
            #expect(queries.count == 8, "\(queries.keys)")
            for (name, sql) in queries.sorted(by: { $0.key < $1.key }) {
                let distributed = try query(2, 1, Self.onTables(sql, distributed: true) + " FORMAT TSVRaw")
                let single = try query(1, 1, Self.onTables(sql, distributed: false) + " FORMAT TSVRaw")
                #expect(!single.isEmpty, "docs query '\(name)' answers rows on the single server")
                #expect(
                    distributed == single,
                    "docs query '\(name)': through chat.lines_all\n\(distributed.prefix(600))\non one server\n\(single.prefix(600))"
                )
            }
        }
    }
}
