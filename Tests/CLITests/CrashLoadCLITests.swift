import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `load` following a capture that is killed with `kill -9` again and again: every row ClickHouse
/// holds is a line some capture file holds, and every line of the files is a row. Capture writes
/// compressed output whenever its buffer fills, so its files hold lines past their last flush point,
/// which the restarted capture's repair drops; a loader that shipped them left ghosts in ClickHouse
/// (issue 23: 188 rows no file held). Debian's ClickHouse server, started on free ports of 127.0.0.1.
@Suite(.serialized, .timeLimit(.minutes(6))) struct CrashLoadCLITests {
    static let channels = ["pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns", "ottertech", "mossyforge"]

    @Test("kill -9 of capture while load follows it: ClickHouse holds exactly the files' lines, no ghost")
    func noGhostRows() throws {
        let dir = try LiveServeTests.tempDir("crash-load")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let feed = "\(dir)/feed.irc"
        let generated = try CLI.shell(
            "python3 Scripts/generate_fixtures.py --lines 60000 --channels 6 --out \(InputShell.quote(feed))")
        try #require(generated.status == 0, "\(generated.stderr)")
        let server = try ClickHouseServer(dir: dir + "/clickhouse")
        defer { server.stop() }
        try server.waitUntilUp()
        let schema = try CLI.shell("Scripts/clickhouse_schema.sh \(server.url)")
        try #require(schema.status == 0, "schema: \(schema.stderr) \(schema.text)")

        // About 3,300 lines/s over six channels: each capture run leaves unflushed bytes in every file.
        let serve = try ServeProcess([feed, "--port", "0", "--speed", "10"])
        defer { _ = serve.stop(with: SIGKILL) }
        let capture =
            ["capture"] + Self.channels + [
                "--dir", "\(dir)/cap", "--host", "127.0.0.1", "--port", "\(serve.port)", "--plain", "--status", "none",
            ]
        var runs = [try ChatcapProcess(capture)]
        // load needs the capture directory: it exists once the first run has started.
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: "\(dir)/cap/_session") && Date() < deadline { usleep(20_000) }
        let loader = try ChatcapProcess([
            "load", "\(dir)/cap", "--clickhouse", server.url, "--batch-delay", "0.2", "--status", "none",
        ])
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5 {
            usleep(UInt32.random(in: 1_200_000...2_000_000, using: &generator))
            _ = runs.last!.stop(with: SIGKILL)
            runs.append(try ChatcapProcess(capture))
        }
        usleep(1_500_000)
        #expect(runs.last!.stop(with: SIGINT) == 0, "the last run stops cleanly: \(runs.last!.stderr)")
        let repairs = runs.filter { $0.stderr.contains("finished the gzip member an earlier run left open") }.count
        #expect(repairs > 0, "no restart repaired a file: the test proves nothing")

        // The ids of the chat the files hold, then the loader catches up with them.
        let text = try CLI.shell("zcat \(dir)/cap/[a-z]*/*.log.gz").text
        let stored = Set(ServedLog(text: text).messages.map { "\($0.channel) \($0.tags["id"]!)" })
        try #require(stored.count > 1_000, "only \(stored.count) messages stored")
        let distinct = "SELECT count() FROM (SELECT DISTINCT channel, id FROM chat.lines WHERE id != '')"
        _ = try? server.poll(until: { Int($0) ?? 0 >= stored.count }, distinct)
        #expect(loader.stop(with: SIGTERM) == 0, "load: \(loader.stderr)")
        let once = try CLI.run(["load", "\(dir)/cap", "--clickhouse", server.url, "--once", "--status", "none"])
        #expect(once.status == 0, "load --once: \(once.stderr)")

        let rows = try server.query("SELECT DISTINCT channel, id FROM chat.lines FINAL WHERE id != '' FORMAT TSV")
        let loaded = Set(rows.split(separator: "\n").map { $0.replacingOccurrences(of: "\t", with: " ") })
        let ghosts = loaded.subtracting(stored)
        let missing = stored.subtracting(loaded)
        #expect(ghosts.isEmpty, "\(ghosts.count) rows no capture file holds: \(ghosts.prefix(5))")
        #expect(missing.isEmpty, "\(missing.count) stored messages not loaded: \(missing.prefix(5))")
    }
}
