import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `load` into a replicated, sharded ClickHouse (issue #37): Scripts/clickhouse_cluster.sh starts
/// ZooKeeper and four clickhouse-server 18.16 (2 shards × 2 replicas) on 127.0.0.1. A replica is
/// killed (SIGKILL) while `load` sends small batches with `insert_quorum=2`, and started again 3 s
/// later: the INSERTs fail meanwhile and are retried, and in the end every line of every capture file
/// is in the cluster exactly once (without FINAL: re-sent blocks are deduplicated by the replicated
/// tables), with the same rows on both replicas of each shard. Both ways of docs/scale.md: through the
/// Distributed table (`insert_distributed_sync=1`), and straight to the local table of the shard that
/// owns a capture shard. Then a replica of each shard and ZooKeeper killed during a load of three
/// captures, one of them redundant and one with gaps closed by backfill; after it the docs' queries
/// through the Distributed tables answer as on one server's plain tables holding the same files, and
/// the holes and backfills as `replay` says. Minutes on a shared 2-core machine: its own target,
/// `make test-cluster`, which CI runs after `make test` (.ci/run); `make test` leaves it out by name
/// (Scripts/run_tests.sh, `SEPARATE_SUITES`), so it never passes there without running.
@Suite(.serialized, .timeLimit(.minutes(20))) struct ClusterLoadTests {
    /// Both ways, each on a fresh cluster.
    @Test("a replica killed during load (insert_quorum=2): nothing lost, nothing doubled, replicas equal")
    func replicaKilledDuringLoad() throws {
        let dir = try CLITempDirectory.make("cluster-load")
        defer { CLITempDirectory.remove(dir) }
        let captures = try makeCaptures(dir)

        // 1. Through the Distributed table: a capture of each shard (every channel once), shard 2's
        // second replica killed.
        var cluster = try Cluster(dir: dir + "/cluster1")
        defer { cluster.stop() }
        let settings = "insert_quorum=2&insert_quorum_timeout=5000"
        try loadDuringKill(
            cluster, [captures["a"]!, captures["b"]!], url: cluster.urls[0] + "?insert_distributed_sync=1&" + settings,
            tables: ["--table", "chat.lines_all", "--records-table", "chat.records_all"], kill: (2, 2))
        let lines = try Self.lineCount(captures["a"]!) + Self.lineCount(captures["b"]!)
        try cluster.expectReplicasEqual()
        #expect(try cluster.total() == lines, "every line once through the Distributed table, without FINAL")
        #expect(try cluster.distinctKeys() == lines)
        cluster.stop()

        // 2. Straight to each shard's local table: capture shard K into ClickHouse shard K.
        cluster = try Cluster(dir: dir + "/cluster2")
        try loadDuringKill(cluster, [captures["a"]!], url: cluster.urls[0] + "?" + settings, tables: [], kill: (1, 2))
        let b = try ChatcapProcess([
            "load", captures["b"]!, "--clickhouse", cluster.urls[3] + "?" + settings, "--once", "--status", "none",
        ])
        #expect(b.exitStatus(within: 120) == 0, "\(b.stderr)")
        try cluster.expectReplicasEqual()
        #expect(try cluster.total() == lines, "every line once, each shard's straight from its capture")
        #expect(try cluster.distinctKeys() == lines)
        let shard1 = try cluster.query(1, 1, "SELECT count() FROM chat.lines")
        #expect(Int(shard1) == (try Self.lineCount(captures["a"]!)))
    }

    /// Issue #37's fault run: the three captures (``makeCaptures(_:)``: capture shard 1/2 twice, the
    /// second copy redundant, and shard 2/2 with gaps and backfills) each loaded by its own `load`
    /// through the Distributed table with
    /// `insert_quorum=2`. Once rows arrive: kill -9 of the second replica of each shard, then of
    /// ZooKeeper; 10 s later ZooKeeper and both replicas are started again. Meanwhile every INSERT
    /// fails or hangs until `load`'s `--timeout` (a quorum not reached, then ZooKeeper errors), `load`
    /// retries and its progress files stand still; afterwards both replicas of each shard hold every
    /// line of every capture file exactly once (``ClusterLineAudit``). Then the documented query of
    /// holes and backfills through `chat.records_all` and `chat.lines_all` answers what `replay` says of
    /// the files, and every example query of docs/scale.md through the Distributed tables answers as on
    /// plain tables of docs/clickhouse.sql on one server into which the same files were loaded. Counted with FINAL: 18.16's
    /// `OPTIMIZE … FINAL` does not merge a partition's last part written with `insert_quorum` (and, with
    /// nothing to merge, fails with "Unknown log entry type: 0", ClickHouse issue #3611).
    @Test("a replica of each shard and ZooKeeper killed during load: every line once, on both replicas")
    func replicasAndZooKeeperKilledDuringLoad() throws {
        let dir = try CLITempDirectory.make("cluster-zookeeper")
        defer { CLITempDirectory.remove(dir) }
        let captures = try makeCaptures(dir)
        let cluster = try Cluster(dir: dir + "/cluster")
        defer { cluster.stop() }
        let settings = "?insert_distributed_sync=1&insert_quorum=2&insert_quorum_timeout=5000"
        let names = ["a", "a2", "b"]
        // Through the first replica of shard 1 and of shard 2 (they stay up).
        let loads = try names.enumerated().map { index, name in
            try ChatcapProcess(
                ["load", captures[name]!, "--clickhouse", cluster.urls[2 * (index % 2)] + settings, "--once"]
                    + ["--status", "json", "--status-interval", "1", "--batch-rows", "50", "--batch-delay", "0.05"]
                    + ["--retry-max", "0.5", "--give-up-after", "120", "--timeout", "20"]
                    + ["--table", "chat.lines_all", "--records-table", "chat.records_all"])
        }
        let started = Date()
        while Date().timeIntervalSince(started) < 30, (try? cluster.total()) ?? 0 == 0 { usleep(50_000) }
        try cluster.run("kill", 1, 2)
        try cluster.run("kill", 2, 2)
        try cluster.run("kill", "zookeeper")
        let runningAtKill = loads.map(\.isRunning)
        #expect(runningAtKill == [true, true, true], "killed during the load: \(loads.map(\.stderr))")
        // What an INSERT answered in flight is saved within 2 s; from then on nothing can be acknowledged.
        usleep(2_000_000)
        let progress = try Self.progressFiles(captures, names)
        let acknowledged = loads.map { ClickHouseLoadTests.acknowledgedRows($0.stderr) }
        usleep(8_000_000)
        let runningAtRestart = loads.map(\.isRunning)
        #expect(runningAtRestart == [true, true, true], "load retries while ZooKeeper is down: \(loads.map(\.stderr))")
        #expect(try Self.progressFiles(captures, names) == progress, "no progress saved without an acknowledgement")
        #expect(loads.map { ClickHouseLoadTests.acknowledgedRows($0.stderr) } == acknowledged)
        try cluster.run("restart", "zookeeper")
        try cluster.run("restart", 1, 2)
        try cluster.run("restart", 2, 2)
        for (name, load) in zip(names, loads) {
            #expect(load.exitStatus(within: 180) == 0, "load \(name): \(load.stderr)")
            #expect(load.stderr.contains("ClickHouse answers again after"), "load \(name): \(load.stderr)")
            #expect(ClickHouseLoadTests.acknowledgedRows(load.stderr) > acknowledged.max()!)
        }
        // The status said why INSERTs failed without ZooKeeper: 242 (TABLE_IS_READ_ONLY), 225
        // (NO_ZOOKEEPER: "ZooKeeper session has been expired"), 999 (KEEPER_EXCEPTION); all retried.
        let errors = loads.flatMap { $0.stderr.split(separator: "\n").filter { $0.contains("refused the INSERT") } }
        #expect(
            errors.contains { $0.contains("code 242") || $0.contains("code 225") || $0.contains("code 999") },
            "a keeper error among \(errors)")

        try cluster.expectReplicasEqual()
        let audit = try ClusterLineAudit(captures: names.map { captures[$0]! })
        try #require(audit.ids.count > 1_000, "\(audit.ids.count) messages in the files")
        for replica in 1...2 { try audit.check(cluster, replica: replica) }

        // The holes and backfills of the files through the documented queries, over the Distributed
        // tables (asked of shard 2's first server): what replay says of the three captures.
        _ = try BackfillLoadCLITests.checkHolesAndBackfills(names.map { captures[$0]! }) {
            try cluster.query(2, 1, Cluster.onTables($0, distributed: true))
        }
        // The same files in one plain table: the docs' queries through the Distributed tables answer alike.
        try cluster.createSingleServerTables()
        try cluster.loadSingleServer(names.map { captures[$0]! })
        try cluster.expectAnswersAsSingleServer()
    }

    /// The progress files of `load` in each capture (`_load/*.progress`), by path.
    static func progressFiles(_ captures: [String: String], _ names: [String]) throws -> [String: String] {
        var result: [String: String] = [:]
        for name in names {
            let folder = captures[name]! + "/_load"
            for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".progress") {
                result["\(name)/\(file)"] = try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8)
            }
        }
        return result
    }

    /// `load --once` of each of `captures` (a process each) with small batches; once the first rows
    /// are in, kill -9 of one replica, started again 3 s later. Each `load` retries meanwhile and exits 0.
    func loadDuringKill(_ cluster: Cluster, _ captures: [String], url: String, tables: [String], kill: (Int, Int))
        throws
    {
        let loads = try captures.map {
            try ChatcapProcess(
                ["load", $0, "--clickhouse", url, "--once", "--status", "none", "--batch-rows", "100"]
                    + ["--batch-delay", "0.05", "--retry-max", "0.5", "--give-up-after", "120", "--timeout", "20"]
                    + tables)
        }
        let started = Date()
        while Date().timeIntervalSince(started) < 30, (try? cluster.total()) ?? 0 == 0 { usleep(50_000) }
        try cluster.run("kill", kill.0, kill.1)
        usleep(3_000_000)
        for load in loads { #expect(load.isRunning, "load still retrying while a replica is down: \(load.stderr)") }
        try cluster.run("restart", kill.0, kill.1)
        for load in loads {
            #expect(load.exitStatus(within: 150) == 0, "\(load.stderr)")
            #expect(load.stderr.contains("retrying"), "INSERTs failed while the replica was down: \(load.stderr)")
        }
    }

    /// Three captures of one generated log, the layout of issue #37: `a` and `a2` capture shard 1/2 (a
    /// redundant pair) from a serve that gives each client the whole log with its recorded times (the
    /// same bytes on both); `b` captures shard 2/2, with `--recent-messages`, from a serve that drops
    /// the connection every 500 lines and answers as the recent-messages service, so its files hold
    /// gaps, closed by the backfill, and the lines it recovered (`historical=1`). Only `b` holds shard
    /// 2's channels: a recovered line is then the one copy of its message (beside a copy received live
    /// by another host, FINAL would keep either, whichever was inserted last).
    func makeCaptures(_ dir: String) throws -> [String: String] {
        let log = dir + "/served.irc"
        let generated = try CLI.shell("python3 Scripts/generate_fixtures.py --lines 3000 --channels 6 --out \(log)")
        try #require(generated.status == 0, "\(generated.stderr)")
        let serve = try ServeProcess([log, "--port", "0", "--speed", "3", "--from-start", "--keep-time"])
        defer { _ = serve.stop(with: SIGKILL) }
        let (dropping, service) = try ServeRecentMessagesCLITests.serve([
            log, "--loop", "--speed", "2", "--drop-after", "500",
        ])
        defer { _ = dropping.stop(with: SIGKILL) }
        let common =
            ClickHouseLoadTests.channels + ["--host", "127.0.0.1", "--plain", "--duration", "6", "--status", "none"]
        var result: [String: String] = [:]
        var processes: [ChatcapProcess] = []
        for (name, shard) in [("a", "1/2"), ("a2", "1/2")] {
            result[name] = "\(dir)/\(name)"
            processes.append(
                try ChatcapProcess(
                    ["capture"] + common + ["--shard", shard, "--dir", result[name]!, "--port", "\(serve.port)"]))
        }
        result["b"] = "\(dir)/b"
        processes.append(
            try ChatcapProcess(
                ["capture"] + common + ["--shard", "2/2", "--dir", result["b"]!, "--port", "\(dropping.port)"]
                    + [
                        "--recent-messages", service, "--reconnect-base", "0.05", "--reconnect-max", "0.1",
                        "--join-rate", "1000",
                    ]))
        for p in processes { #expect(p.exitStatus(within: 30) == 0, "\(p.stderr)") }
        return result
    }

    /// The lines of a capture's channel files.
    static func lineCount(_ capture: String) throws -> Int {
        let run = try CLI.shell("zcat \(capture)/[a-z]*/*.log.gz | wc -l")
        return Int(run.text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
