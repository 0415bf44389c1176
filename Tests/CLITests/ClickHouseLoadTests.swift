import ChatTestSupport
import Foundation
import Glibc
import Testing

/// The whole archive recipe against the real engine: Debian's ClickHouse server (18.16, started on
/// free ports of 127.0.0.1 with its files in a temporary folder), `serve` of a generated 6-channel
/// log, three captures (`--shard 1/2`, `--shard 2/2` and a redundant `--shard 1/2`), a `load` following
/// each capture directory; one loader is killed (SIGKILL) and restarted, ClickHouse is stopped and
/// started again meanwhile. Then every served message is in the table exactly once (after FINAL and
/// after OPTIMIZE … FINAL), byte for byte, and the example queries of docs/scale.md give what the log holds.
@Suite(.serialized, .timeLimit(.minutes(20))) struct ClickHouseLoadTests {
    static let channels = ["pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns", "ottertech", "mossyforge"]

    @Test("two shards and a redundant copy, a killed loader, a ClickHouse outage: every message once, queries right")
    func shardsRedundancyAndOutages() throws {
        let dir = try CLITempDirectory.make("clickhouse")
        defer { CLITempDirectory.remove(dir) }
        let log = dir + "/served.irc"
        // serve starts a client's replay at its first JOIN and passes over the lines of channels not
        // joined when it reads them (its JOINs may still be on their way). So the log starts with a
        // line of a channel nobody joins, 3 s before the chat (the replay's time origin), then a line
        // per channel 1.5 s before the chat: the replay waits at the first one of a joined channel
        // until it is due (1 s at 1.5×), and by then each capture has joined all of its channels.
        let leadIn =
            "printf '@room-id=1;tmi-sent-ts=%s :tmi.twitch.tv ROOMSTATE #leadin\\r\\n' $((first - 3000)); "
            + Self.channels.map {
                "printf '@room-id=1;tmi-sent-ts=%s :tmi.twitch.tv ROOMSTATE #\($0)\\r\\n' $((first - 1500))"
            }.joined(separator: "; ")
        let generated = try CLI.shell(
            "python3 Scripts/generate_fixtures.py --lines 4000 --channels 6 --out \(log).gen && "
                + "first=$(grep -o -m1 'tmi-sent-ts=[0-9]*' \(log).gen | cut -d= -f2) && "
                + "{ \(leadIn); cat \(log).gen; } > \(log)")
        try #require(generated.status == 0, "\(generated.stderr)")
        let served = try ServedLog(path: log)

        let server = try ClickHouseServer.withSchema(dir: dir + "/clickhouse")
        defer { server.stop() }

        // serve paces the log by its timestamps: 11 s of chat at 1.5× take about 7.5 s. Each client
        // gets the log from its start (--from-start: the capture restarted below gets it again) with
        // the recorded times (--keep-time), so that every host stores the same bytes.
        let serve = try ServeProcess([log, "--port", "0", "--speed", "1.5", "--from-start", "--keep-time"])
        defer { _ = serve.stop(with: SIGKILL) }
        let captures: [(name: String, shard: String)] = [("a", "1/2"), ("b", "2/2"), ("a2", "1/2")]
        func capture(_ c: (name: String, shard: String)) throws -> ChatcapProcess {
            try ChatcapProcess(
                ["capture"] + Self.channels + [
                    "--shard", c.shard, "--dir", "\(dir)/\(c.name)", "--host", "127.0.0.1", "--port",
                    "\(serve.port)", "--plain", "--duration", "11", "--status", "none",
                ])
        }
        var capturers = try captures.map(capture)
        func loader(_ name: String) throws -> ChatcapProcess {
            try ChatcapProcess([
                "load", "\(dir)/\(name)", "--clickhouse", server.url, "--batch-delay", "0.2", "--retry-max", "0.5",
                "--status", "json", "--status-interval", "1",
            ])
        }
        // load needs the directory: wait for each capture to make it (0.5 s of sleep was not always
        // enough beside three builds: "not a readable directory", exit 66).
        let made = Date().addingTimeInterval(30)
        while Date() < made && !captures.allSatisfy({ FileManager.default.fileExists(atPath: "\(dir)/\($0.name)") }) {
            usleep(50_000)
        }
        var loaders = try captures.map { try loader($0.name) }
        // A loader killed mid-stream and started again resumes from its acknowledged progress: killed
        // once it has some (its status says so; a busy machine may take longer than the usual second).
        let ackDeadline = Date().addingTimeInterval(60)
        repeat {
            usleep(200_000)
        } while Date() < ackDeadline && loaders[0].isRunning
            && ClickHouseLoadTests.acknowledgedRows(loaders[0].stderr) == 0
        usleep(300_000)
        #expect(loaders[0].isRunning, "\(loaders[0].stderr)")
        #expect(ClickHouseLoadTests.acknowledgedRows(loaders[0].stderr) > 0, "\(loaders[0].stderr)")
        _ = loaders[0].stop(with: SIGKILL)
        let killedStderr = loaders[0].stderr
        loaders[0] = try loader("a")
        // A capture killed mid-stream and started again: it finishes the files it was writing at
        // their last flush point (a loader that read past it reads them again) and, a new client of
        // serve, gets the log again from its start; the table collapses the second copy.
        usleep(500_000)
        _ = capturers[1].stop(with: SIGKILL)
        capturers[1] = try capture(captures[1])
        // ClickHouse goes down (killed: a graceful stop keeps serving the loaders' keep-alive
        // connections for seconds) and comes back 2 s later; the loaders retry the same batch meanwhile.
        usleep(500_000)
        server.kill()
        usleep(2_000_000)
        try server.start()
        try server.waitUntilUp()
        for (i, capture) in capturers.enumerated() {
            let status = capture.exitStatus(within: 15)
            #expect(status == 0, "capture \(captures[i].name): \(capture.stderr)")
        }
        #expect(capturers[0].stderr.contains("shard 1/2 keeps 2 of 6 channels"), "\(capturers[0].stderr)")
        // Each capture holds every message of its shard's channels (else a miss below is capture's).
        for c in captures {
            let got = Set(ServedLog.messageKeys(try CLI.shell("zcat \(dir)/\(c.name)/[a-z]*/*.log.gz").stdout))
            let shard = Int(c.shard.prefix(1))!
            let want = Set(
                served.messages.filter { Self.shard($0.channel) == shard }.map { "\($0.channel) \($0.tags["id"]!)" })
            let missed = served.messages.filter { want.subtracting(got).contains("\($0.channel) \($0.tags["id"]!)") }
            #expect(
                got == want,
                "capture \(c.name) missed \(missed.map { "\($0.channel) \($0.sentMs - 1_763_700_000_000) ms" }) (\(got.count) of \(want.count)), extra \(got.subtracting(want)), missing \(want.subtracting(got))"
            )
        }
        #expect(capturers[1].stderr.contains("shard 2/2 keeps 4 of 6 channels"), "\(capturers[1].stderr)")

        // The following loaders catch up, then stop on SIGTERM (exit 0).
        _ = try server.poll(
            until: { Int($0) ?? 0 >= served.messages.count },
            "SELECT count() FROM (SELECT DISTINCT channel, id FROM chat.lines WHERE id != '')")
        var followed: [String] = []
        for (i, l) in loaders.enumerated() {
            #expect(l.stop(with: SIGTERM) == 0, "load \(captures[i].name): \(l.stderr)")
            followed.append(l.stderr)
        }
        #expect(followed.contains { $0.contains("unreachable") }, "a loader saw ClickHouse down: \(followed)")
        #expect(followed.contains { $0.contains("ClickHouse answers again after") }, "\(followed)")
        #expect(followed[0].contains("resuming "), "the restarted loader resumed: \(followed[0]) / \(killedStderr)")
        // Whatever was not loaded yet is loaded by --once; it exits 0 when all is acknowledged.
        for c in captures {
            let once = try CLI.run([
                "load", "\(dir)/\(c.name)", "--clickhouse", server.url, "--once", "--status", "none",
            ])
            #expect(once.status == 0, "load --once \(c.name): \(once.stderr)")
            #expect(
                FileManager.default.fileExists(
                    atPath: "\(dir)/\(c.name)/_load/127.0.0.1_\(server.httpPort)_chat.lines.progress"))
        }

        // Both copies of shard 1 were loaded in full (their progress counts the same lines), so the table
        // did have two of each of their messages to collapse.
        let acknowledged = try ["a", "a2"].map { name in
            try String(
                contentsOfFile: "\(dir)/\(name)/_load/127.0.0.1_\(server.httpPort)_chat.lines.progress", encoding: .utf8
            )
            .split(separator: "\n").filter { !$0.hasPrefix("#") }
            .reduce(0) { $0 + Int($1.split(separator: "\t")[2])! }
        }
        #expect(
            acknowledged[0] == acknowledged[1]
                && acknowledged[0] > served.messages.filter { Self.shard($0.channel) == 1 }.count)
        // Every served message exactly once per channel: with FINAL, and after the merge without it.
        let expected = Dictionary(grouping: served.messages, by: \.channel).mapValues(\.count)
        for final in [" FINAL", ""] {
            if final.isEmpty { _ = try server.query("OPTIMIZE TABLE chat.lines FINAL") }
            let counts = try server.query(
                "SELECT channel, count(), uniqExact(id) FROM chat.lines\(final) WHERE id != '' GROUP BY channel ORDER BY channel"
            )
            let got = Dictionary(
                uniqueKeysWithValues: counts.split(separator: "\n").map { row in
                    let f = row.split(separator: "\t")
                    return (String(f[0]), [Int(f[1])!, Int(f[2])!])
                })
            #expect(got == expected.mapValues { [$0, $0] }, "rows per channel\(final)")
        }
        // Byte for byte: each row's raw line without the capture's time tag is the served line.
        let raws = try server.query("SELECT raw FROM chat.lines WHERE id != '' FORMAT TSVRaw")
        let loaded = Set(raws.split(separator: "\n").map { CaptureCLITests.stripTime(String($0)) })
        #expect(loaded == Set(served.messages.map(\.line)), "the loaded lines are the served lines")

        try checkDocumentedQueries(server, served)
    }

    /// Runs the example queries of docs/scale.md and compares them with the log.
    func checkDocumentedQueries(_ server: ClickHouseServer, _ log: ServedLog) throws {
        let queries = try Self.documentedQueries()
        #expect(queries.count == 8, "\(queries.keys)")
        let privmsgs = log.messages.filter { $0.command == "PRIVMSG" }

        let perChannel = try server.query(try #require(queries["messages per channel"]) + " FORMAT TSVRaw")
        let expectedPerChannel = Dictionary(grouping: privmsgs, by: \.channel).sorted { $0.key < $1.key }
            .map { "\($0.key)\t\($0.value.count)" }
        #expect(perChannel.split(separator: "\n").map(String.init) == expectedPerChannel)

        let top = try server.query(
            try #require(queries["top chatters of a channel on its latest day of chat"]) + " FORMAT TSVRaw")
        let byLogin: [String: [ServedLog.Line]] = Dictionary(
            grouping: privmsgs.filter { $0.channel == "pixelharbor" }, by: \.login)
        let counts: [(login: String, count: Int)] = byLogin.map { (login: $0.key, count: $0.value.count) }
        let ranked = counts.sorted { a, b in a.count != b.count ? a.count > b.count : a.login < b.login }
        let expectedTop: [String] = ranked.prefix(10).map { "\($0.login)\t\($0.count)" }
        #expect(top.split(separator: "\n").map(String.init) == expectedTop)

        let user = try server.query(
            try #require(queries["every message of one user in every channel"]) + " FORMAT TSVRaw")
        let mine = privmsgs.filter { $0.login == "frost_pilot" }.sorted {
            $0.sentMs != $1.sentMs ? $0.sentMs < $1.sentMs : $0.channel < $1.channel
        }
        #expect(mine.count >= 6)
        let rows = user.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        #expect(rows.map { String($0[2]) } == mine.map(\.channel))
        #expect(rows.map { Int64($0[1])! } == mine.map { $0.sentMs % 1000 })

        let bans = try server.query(try #require(queries["timeouts and bans"]) + " FORMAT TSVRaw")
        let moderation = log.moderation.sorted {
            $0.sentMs != $1.sentMs ? $0.sentMs < $1.sentMs : $0.channel < $1.channel
        }
        let clearchats = moderation.filter { $0.command == "CLEARCHAT" && !$0.text.isEmpty }
        #expect(clearchats.count >= 2)
        #expect(
            bans.split(separator: "\n").map { $0.split(separator: "\t").dropFirst().joined(separator: "\t") }
                == clearchats.map { "\($0.channel)\t\($0.text)\t\($0.tags["ban-duration"] ?? "0")" })

        let deleted = try server.query(
            try #require(queries["deleted messages and who had sent them"]) + " FORMAT TSVRaw")
        let clearmsgs = moderation.filter { $0.command == "CLEARMSG" }
        #expect(clearmsgs.count >= 2)
        let senders = Dictionary(privmsgs.map { ("\($0.channel) \($0.tags["id"]!)", $0.tags["user-id"] ?? "0") }) {
            a, _ in a
        }
        #expect(
            deleted.split(separator: "\n").map {
                $0.split(separator: "\t", omittingEmptySubsequences: false).dropFirst().joined(separator: "\t")
            }
                == clearmsgs.map { m in
                    "\(m.channel)\t\(m.tags["login"] ?? "")\t\(m.text)\t"
                        + (senders["\(m.channel) \(m.tags["target-msg-id"] ?? "")"] ?? "0")
                })
    }

    /// The `sql` blocks of docs/scale.md, by the name in their first line (`-- query: name`).
    static func documentedQueries() throws -> [String: String] {
        let text = try String(contentsOfFile: Fixtures.root + "/docs/scale.md", encoding: .utf8)
        var queries: [String: String] = [:]
        for block in text.components(separatedBy: "```sql\n").dropFirst() {
            let body = block.components(separatedBy: "\n```")[0]
            guard body.hasPrefix("-- query: ") else { continue }
            let name = String(body.prefix { $0 != "\n" }.dropFirst("-- query: ".count))
            queries[name] = body.split(separator: "\n").dropFirst().joined(separator: "\n")
        }
        return queries
    }

    /// The shard (1 or 2 of 2) of a channel, as docs/scale.md computes it.
    static func shard(_ channel: String) -> Int {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in channel.utf8 {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return Int(~crc % 2) + 1
    }

    /// The largest `rows_acknowledged` in `load --status json`'s lines so far.
    static func acknowledgedRows(_ stderr: String) -> Int {
        stderr.split(separator: "\n").compactMap { line -> Int? in
            guard let range = line.range(of: "\"rows_acknowledged\":") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }.max() ?? 0
    }
}

/// The lines of a generated log that carry a channel, parsed just enough for the checks.
struct ServedLog {
    struct Line {
        var line: String
        var tags: [String: String]
        var login: String
        var command: String
        var channel: String
        var text: String
        var sentMs: Int64 { Int64(tags["tmi-sent-ts"] ?? "0") ?? 0 }
    }
    /// Lines with an `id` tag (chat messages, USERNOTICEs).
    var messages: [Line] = []
    /// CLEARCHAT and CLEARMSG lines.
    var moderation: [Line] = []

    init(path: String) throws {
        self.init(text: try String(contentsOfFile: path, encoding: .utf8))
    }

    init(text: String) {
        for raw in text.split(separator: "\r\n") {
            var rest = Substring(raw)
            var tags: [String: String] = [:]
            if rest.hasPrefix("@") {
                let end = rest.firstIndex(of: " ")!
                for pair in rest[rest.index(after: rest.startIndex)..<end].split(separator: ";") {
                    let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    tags[String(kv[0])] = kv.count > 1 ? String(kv[1]) : ""
                }
                rest = rest[rest.index(after: end)...]
            }
            var login = ""
            if rest.hasPrefix(":") {
                let end = rest.firstIndex(of: " ")!
                login = String(rest[rest.index(after: rest.startIndex)..<end].prefix { $0 != "!" })
                rest = rest[rest.index(after: end)...]
            }
            let parts = rest.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, parts[1].hasPrefix("#") else { continue }
            let trailing = rest.firstRange(of: " :").map { String(rest[$0.upperBound...]) } ?? ""
            let line = Line(
                line: String(raw), tags: tags, login: login, command: String(parts[0]),
                channel: String(parts[1].dropFirst()), text: trailing)
            if let id = tags["id"], !id.isEmpty { messages.append(line) }
            if line.command == "CLEARCHAT" || line.command == "CLEARMSG" { moderation.append(line) }
        }
    }
}

extension ServedLog {
    /// `channel id` of each line of `text` (split as ``init(text:)`` splits it) with a non-empty `id` tag
    /// and a channel: the keys of ``messages`` (`"\($0.channel) \($0.tags["id"]!)"`) without the rest of
    /// the parse. Searched with libc (``ByteSearch``): the whole parse of every stored line, a dictionary
    /// of its tags each, was most of CrashLoadCLITests' own CPU in a debug build.
    static func messageKeys(_ text: [UInt8]) -> [String] {
        var keys: [String] = []
        text.withUnsafeBufferPointer { bytes in
            ByteSearch.forEachLine(in: bytes, keepingCut: true) { line in
                if let key = messageKey(line) { keys.append(key) }
            }
        }
        return keys
    }

    /// `channel id` of one line, or `nil` (no id, an empty one, or no channel).
    private static func messageKey(_ line: UnsafeBufferPointer<UInt8>) -> String? {
        let n = line.count
        func next(_ byte: UInt8, from: Int) -> Int { ByteSearch.first(byte, in: line, from: from, to: n) }
        var at = 0
        var id: Range<Int>? = nil
        if at < n && line[at] == UInt8(ascii: "@") {
            let space = next(UInt8(ascii: " "), from: at)
            guard space < n else { return nil }
            var tag = at + 1
            while tag < space {
                let end = ByteSearch.first(UInt8(ascii: ";"), in: line, from: tag, to: space)
                if ByteSearch.equals(line, tag..<min(tag + 3, end), idKey) { id = (tag + 3)..<end }
                tag = end + 1
            }
            at = space + 1
        }
        guard let id, !id.isEmpty else { return nil }
        if at < n && line[at] == UInt8(ascii: ":") {
            let space = next(UInt8(ascii: " "), from: at)
            guard space < n else { return nil }
            at = space + 1
        }
        // The second word (spaces between words skipped, as `split` skips them): the channel.
        while at < n && line[at] == UInt8(ascii: " ") { at += 1 }
        at = next(UInt8(ascii: " "), from: at)
        while at < n && line[at] == UInt8(ascii: " ") { at += 1 }
        guard at < n && line[at] == UInt8(ascii: "#") else { return nil }
        return ByteSearch.string(line, (at + 1)..<next(UInt8(ascii: " "), from: at)) + " " + ByteSearch.string(line, id)
    }

    private static let idKey = Array("id=".utf8)
}

/// Debian's clickhouse-server run by Scripts/clickhouse_test_server.sh on two free ports, stopped by PID.
final class ClickHouseServer {
    let dir: String
    let httpPort: UInt16
    let tcpPort: UInt16
    private var process: Process?
    var url: String { "http://127.0.0.1:\(httpPort)/" }

    init(dir: String) throws {
        self.dir = dir
        httpPort = try SocketLoopbackListener.freePort()
        tcpPort = try SocketLoopbackListener.freePort()
        try start()
    }

    deinit { stop() }

    /// A server with docs/clickhouse.sql's tables (`Scripts/clickhouse_schema.sh`), once it answers.
    static func withSchema(dir: String) throws -> ClickHouseServer {
        let server = try ClickHouseServer(dir: dir)
        try server.waitUntilUp()
        let schema = try CLI.shell("Scripts/clickhouse_schema.sh \(server.url)")
        guard schema.status == 0 else {
            server.stop()
            throw ServeCLIFailure(description: "schema: \(schema.stderr) \(schema.text)")
        }
        return server
    }

    func start() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.root + "/Scripts/clickhouse_test_server.sh")
        p.arguments = [dir, "\(httpPort)", "\(tcpPort)"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        process = p
    }

    /// SIGKILL to the server (as a crash would); the script then ends.
    func kill() {
        guard let p = process else { return }
        process = nil
        killServer()
        p.waitUntilExit()
    }

    private func killServer() {
        if let text = try? String(contentsOfFile: dir + "/server.pid", encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            Glibc.kill(pid, SIGKILL)
        }
    }

    /// SIGTERM to the script, which stops the server and waits for it; after 5 s, SIGKILL to both.
    func stop() {
        guard let p = process else { return }
        process = nil
        guard p.isRunning else { return }
        Glibc.kill(p.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning {
            killServer()
            Glibc.kill(p.processIdentifier, SIGKILL)
        }
        p.waitUntilExit()
    }

    /// Waits (at most 20 s) for the HTTP interface to answer its ping.
    func waitUntilUp() throws {
        let up = try CLI.shell(
            "for i in $(seq 1 200); do curl -sf -o /dev/null \(url)ping && exit 0; sleep 0.1; done; exit 1")
        let log = (try? String(contentsOfFile: dir + "/log/clickhouse-server.err.log", encoding: .utf8)) ?? ""
        try #require(up.status == 0, "ClickHouse did not start: \(log.suffix(2000))")
    }

    /// The answer of `sql` (TabSeparated), without its last newline.
    func query(_ sql: String) throws -> String { try Self.query(sql, url: url, dir: dir) }

    /// The answer of `sql` from the ClickHouse server at `url` (TabSeparated), without its last newline
    /// (a last empty field's tab stays). The statement goes through a file in `dir`: a query holds
    /// quotes and newlines.
    static func query(_ sql: String, url: String, dir: String) throws -> String {
        let file = dir + "/query-\(UUID().uuidString).sql"
        try sql.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let run = try CLI.shell("curl -sS --fail-with-body '\(url)' --data-binary @\(file)")
        try #require(run.status == 0, "\(sql): \(run.text) \(run.stderr)")
        return run.text.hasSuffix("\n") ? String(run.text.dropLast()) : run.text
    }

    /// Repeats `sql` (every 0.2 s, at most 30 s) until `done` holds for its answer; returns the last answer.
    func poll(until done: (String) -> Bool, _ sql: String) throws -> String {
        let deadline = Date().addingTimeInterval(30)
        var answer = try query(sql)
        while !done(answer) && Date() < deadline {
            usleep(200_000)
            answer = try query(sql)
        }
        return answer
    }
}
