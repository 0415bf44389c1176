import ChatTestSupport
import Foundation
import Testing

/// What capture directories hold, held against what one replica of each ClickHouse shard holds after
/// a load into the cluster (ClusterLoadTests):
///
/// - **No ghost**: the `raw` column of every row of the shards' local chat.lines (without FINAL) is a
///   line of a capture file, and there are no more rows than the files' lines (a batch re-sent after
///   a failure that had in fact reached a shard is dropped by the replicated table's block
///   deduplication). Not exactly as many: background merges collapse the redundant capture's copies.
/// - **Every message once, by id, after collapsing**: with FINAL (the redundant capture's copies of a
///   message collapse by key), each Twitch message id of the files is in exactly one row, on exactly
///   one shard, and no row carries an id no file holds.
/// - **Every row once, after collapsing**: the rows with FINAL are as many as the files' distinct
///   rows: one per message id, one per line with `tmi-sent-ts` but no id (its key is the line without
///   the capture's time tag, the same on every host), one per line without `tmi-sent-ts` and its
///   receive time and end offset in its file (each host's own observation, keyed as docs/clickhouse.sql
///   says: two redundant hosts that received the same JOIN or ROOMSTATE in the same millisecond, at
///   the same offset of the same file name, hold one row, as a loaded run of the fault test showed).
struct ClusterLineAudit {
    /// Every line of every capture's channel files (with its time tag), and how often.
    private(set) var lines: [String: Int] = [:]
    /// `channel id` of every message.
    private(set) var ids = Set<String>()
    /// The rows the files make once copies of the same key collapse.
    private(set) var distinctRows = 0

    init(captures: [String]) throws {
        var collapsing = Set<String>()
        var observations = Set<String>()
        for capture in captures {
            for file in Self.channelFiles(in: capture) {
                let run = try CLI.shell("zcat \(InputShell.quote(capture + "/" + file))")
                try #require(run.status == 0, "\(capture)/\(file): \(run.stderr)")
                var end = 0
                for line in run.text.split(separator: "\r\n") {
                    end += line.utf8.count + 2
                    lines[String(line), default: 0] += 1
                    let parsed = ServedLog(text: String(line) + "\r\n")
                    if let message = parsed.messages.first {
                        ids.insert("\(message.channel) \(message.tags["id"]!)")
                    } else if line.hasPrefix("@") && line.prefix(while: { $0 != " " }).contains("tmi-sent-ts=") {
                        collapsing.insert(String(Self.withoutTimeTag(line)))
                    } else {
                        // load's key: the channel, the receive time, the line without it, its end offset.
                        let time = line.hasPrefix("@time=") ? line.dropFirst(6).prefix { $0 != ";" && $0 != " " } : ""
                        observations.insert("\(file)\t\(time)\t\(Self.withoutTimeTag(line))\t\(end)")
                    }
                }
            }
        }
        distinctRows = ids.count + collapsing.count + observations.count
    }

    /// `channel/name` of every channel file of a capture directory (not `_session`, `_load`), sorted.
    static func channelFiles(in capture: String) -> [String] {
        let manager = FileManager.default
        let channels = ((try? manager.contentsOfDirectory(atPath: capture)) ?? []).filter {
            !$0.hasPrefix("_") && !$0.hasPrefix(".")
        }
        return channels.sorted().flatMap { channel in
            ((try? manager.contentsOfDirectory(atPath: capture + "/" + channel)) ?? []).filter {
                $0.hasSuffix(".log.gz")
            }
            .sorted().map { channel + "/" + $0 }
        }
    }

    /// The line without capture's leading `time` tag (as load's key leaves it out).
    static func withoutTimeTag(_ line: Substring) -> Substring {
        guard line.hasPrefix("@time=") else { return line }
        guard let end = line.firstIndex(where: { $0 == ";" || $0 == " " }) else { return line }
        return line[end] == ";" ? "@" + line[line.index(after: end)...] : line[line.index(after: end)...]
    }

    var lineCount: Int { lines.values.reduce(0, +) }

    /// Checks replica `replica` of every shard of `cluster` (after SYSTEM SYNC REPLICA).
    func check(_ cluster: ClusterLoadTests.Cluster, replica: Int) throws {
        var rows: [String: Int] = [:]  // raw → rows, without FINAL
        var idCounts: [String: Int] = [:]
        var collapsed = 0
        for shard in 1...2 {
            let raw = try cluster.query(shard, replica, "SELECT raw FROM chat.lines FORMAT TSVRaw")
            for line in raw.split(separator: "\n") { rows[String(line), default: 0] += 1 }
            let answer = try cluster.query(
                shard, replica,
                "SELECT channel, id, count() FROM chat.lines FINAL WHERE id != '' GROUP BY channel, id FORMAT TSV")
            for row in answer.split(separator: "\n") {
                let fields = row.split(separator: "\t")
                idCounts["\(fields[0]) \(fields[1])", default: 0] += Int(fields[2]) ?? 0
            }
            collapsed += Int(try cluster.query(shard, replica, "SELECT count() FROM chat.lines FINAL")) ?? -1
        }
        let name = "replica \(replica) of each shard"
        let ghostLines = rows.keys.filter { lines[$0] == nil }
        #expect(ghostLines.isEmpty, "\(name): \(ghostLines.count) rows no file holds: \(ghostLines.prefix(3))")
        let rowCount = rows.values.reduce(0, +)
        #expect(rowCount >= distinctRows && rowCount <= lineCount, "\(name): \(rowCount) rows without FINAL")

        let missingIds = ids.filter { idCounts[$0] == nil }
        let doubledIds = idCounts.filter { $0.value > 1 }
        let ghostIds = idCounts.keys.filter { !ids.contains($0) }
        #expect(missingIds.isEmpty, "\(name): \(missingIds.count) of \(ids.count) ids missing: \(missingIds.prefix(3))")
        #expect(doubledIds.isEmpty, "\(name): \(doubledIds.count) ids in two rows: \(doubledIds.prefix(3))")
        #expect(ghostIds.isEmpty, "\(name): \(ghostIds.count) ids no file holds: \(ghostIds.prefix(3))")
        #expect(collapsed == distinctRows, "\(name): rows with FINAL")
    }
}
