import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `load` following a capture that is killed with `kill -9` ten times: every row ClickHouse
/// holds is a line some capture file holds, and every line of the files is a row (as many times as
/// the files hold it). Capture writes
/// compressed output whenever its buffer fills, so its files hold lines past their last flush point,
/// which the restarted capture's repair drops; a loader that shipped them left ghosts in ClickHouse
/// (issue 23: 188 rows no file held). Debian's ClickHouse server, started on free ports of 127.0.0.1.
@Suite(.serialized, .timeLimit(.minutes(20))) struct CrashLoadCLITests {
    static let channels = ["pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns", "ottertech", "mossyforge"]

    @Test("kill -9 of capture while load follows it: ClickHouse holds exactly the files' lines, no ghost")
    func noGhostRows() throws {
        let dir = try CLITempDirectory.make("crash-load")
        defer { CLITempDirectory.remove(dir) }
        let feed = "\(dir)/feed.irc"
        let generated = try CLI.shell(
            "python3 Scripts/generate_fixtures.py --lines 60000 --channels 6 --out \(InputShell.quote(feed))")
        try #require(generated.status == 0, "\(generated.stderr)")
        let server = try ClickHouseServer.withSchema(dir: dir + "/clickhouse")
        defer { server.stop() }

        // About 13,000 lines/s over six channels: between two flushes every file gets compressed output.
        let serve = try ServeProcess([feed, "--port", "0", "--speed", "40", "--loop"])
        defer { _ = serve.stop(with: SIGKILL) }
        let capture =
            ["capture"] + Self.channels + [
                "--dir", "\(dir)/cap", "--host", "127.0.0.1", "--port", "\(serve.port)", "--plain", "--status", "none",
            ]
        var before = CrashRepairCLITests.chatBytes(in: "\(dir)/cap")
        var runs = [try ChatcapProcess(capture)]
        // Each run is frozen and killed (or stopped) only once it writes chat: it connected, joined, and
        // repaired what the run before left. The repair first cuts the unflushed tails, so the files
        // shrink below `before`; writing shows as growth past the lowest size seen since the start (a
        // busy machine may take long to write back more than the repair cut).
        func waitForChat() throws {
            let deadline = Date().addingTimeInterval(60)
            var low = before
            var now = before
            repeat {
                usleep(20_000)
                now = CrashRepairCLITests.chatBytes(in: "\(dir)/cap")
                low = min(low, now)
            } while now <= low && runs.last!.isRunning && Date() < deadline
            try #require(now > low, "no chat (\(low) bytes at the lowest, \(now) now): \(runs.last!.stderr)")
        }
        // load needs the capture directory: it exists once the first run has started.
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: "\(dir)/cap/_session") && Date() < deadline { usleep(20_000) }
        let loader = try ChatcapProcess([
            "load", "\(dir)/cap", "--clickhouse", server.url, "--batch-delay", "0.2", "--status", "none",
        ])
        let distinct = "SELECT count() FROM (SELECT DISTINCT channel, id FROM chat.lines WHERE id != '')"
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<10 {
            try waitForChat()
            usleep(UInt32.random(in: 1_000_000...1_500_000, using: &generator))
            // Frozen between two flushes, while a file holds compressed lines past its last flush point,
            // the loader gets every chance to read them (its row count settles) before the kill.
            try Self.freezeBetweenFlushes(runs.last!, directory: "\(dir)/cap")
            var last = ""
            let settle = Date().addingTimeInterval(8)
            while Date() < settle {
                usleep(700_000)
                let now = try server.query(distinct)
                if now == last { break }
                last = now
            }
            _ = runs.last!.stop(with: SIGKILL)
            before = CrashRepairCLITests.chatBytes(in: "\(dir)/cap")
            runs.append(try ChatcapProcess(capture))
        }
        try waitForChat()
        // The last run goes on until the files hold enough chat for the test to mean something (each run
        // before it kept only what it flushed before its kill, which on a busy machine can be little:
        // a loaded clean-clone run stored 728 messages in all), within 120 s.
        let enough = Date().addingTimeInterval(120)
        usleep(1_500_000)
        while try Self.messages(in: Self.decompressed(in: "\(dir)/cap"), requireWhole: false).count
            <= Self.enoughMessages
            && runs.last!.isRunning && Date() < enough
        {
            usleep(500_000)
        }
        #expect(runs.last!.stop(with: SIGINT) == 0, "the last run stops cleanly: \(runs.last!.stderr)")
        // The repairs dropped lines (else no ghost could arise and the test proves nothing).
        let dropped = runs.flatMap { $0.stderr.split(separator: "\n") }.compactMap { line -> Int? in
            guard let range = line.range(of: "; dropped ") else { return nil }
            return Int(line[range.upperBound...].prefix { $0.isNumber })
        }
        #expect(dropped.reduce(0, +) > 0, "the repairs dropped \(dropped) lines: nothing for load to get wrong")

        // The ids of the chat the files hold, then the loader catches up with them. Each file is read on
        // its own: gzip stops at the first file that ends inside a member ("unexpected end of file") and
        // never reads the files after it, which made every row of those files look like a ghost (a
        // version of this test whose last run never connected found 19,791). Every file must be whole:
        // the last run finished the members the runs before it left open.
        let files = try Self.decompressed(in: "\(dir)/cap")
        let stored = Self.messages(in: files, requireWhole: true)
        try #require(stored.count > Self.enoughMessages, "only \(stored.count) messages stored")
        _ = try? server.poll(until: { Int($0) ?? 0 >= stored.count }, distinct)
        #expect(loader.stop(with: SIGTERM) == 0, "load: \(loader.stderr)")
        let once = try CLI.run(["load", "\(dir)/cap", "--clickhouse", server.url, "--once", "--status", "none"])
        #expect(once.status == 0, "load --once: \(once.stderr)")

        let rows = try server.query("SELECT DISTINCT channel, id FROM chat.lines FINAL WHERE id != '' FORMAT TSV")
        let loaded = Set(rows.split(separator: "\n").map { $0.replacingOccurrences(of: "\t", with: " ") })
        let ghosts = loaded.subtracting(stored)
        let missing = stored.subtracting(loaded)
        #expect(
            ghosts.isEmpty,
            "\(ghosts.count) rows no capture file holds: \(ghosts.prefix(5)); load: \(loader.stderr); capture runs: \(runs.map(\.stderr))"
        )
        #expect(missing.isEmpty, "\(missing.count) stored messages not loaded: \(missing.prefix(5))")

        // Every line, not only the messages with an id: a ghost or a doubled row of a JOIN, PART,
        // CLEARCHAT or ROOMSTATE is caught too. Each line of the files is one row, byte for byte.
        let lines = Self.lines(in: files)
        var loadedLines: [String: Int] = [:]
        for row in try server.query("SELECT raw FROM chat.lines FINAL FORMAT TabSeparatedRaw").split(separator: "\n") {
            loadedLines[String(row), default: 0] += 1
        }
        let extra = loadedLines.filter { $0.value > lines[$0.key, default: 0] }
        let short = lines.filter { $0.value > loadedLines[$0.key, default: 0] }
        #expect(lines.values.reduce(0, +) > stored.count, "the files hold more lines than messages")
        #expect(extra.isEmpty, "\(extra.count) rows no capture file holds (as often): \(extra.keys.prefix(3))")
        #expect(short.isEmpty, "\(short.count) lines of the files not loaded (as often): \(short.keys.prefix(3))")
    }

    /// Every capture file under `directory`, each decompressed on its own (`zcat`): its path and the
    /// run's output and status. Each file is read on its own: gzip stops at the first file that ends
    /// inside a member and never reads the files after it.
    static func decompressed(in directory: String) throws -> [(path: String, run: CLIRun)] {
        var files: [(path: String, run: CLIRun)] = []
        for channel in channels {
            let folder = "\(directory)/\(channel)"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".gz")
            {
                let path = "\(folder)/\(name)"
                files.append((path, try CLI.shell("zcat \(InputShell.quote(path))")))
            }
        }
        return files
    }

    /// Every line of `files` (without its CR LF), with how often it occurs; the files must be whole
    /// (``messages(in:requireWhole:)`` checked them).
    static func lines(in files: [(path: String, run: CLIRun)]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for file in files {
            for line in file.run.stdout.split(separator: UInt8(ascii: "\n")) {
                let text = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
                if !text.isEmpty { counts[String(decoding: text, as: UTF8.self), default: 0] += 1 }
            }
        }
        return counts
    }

    /// The stored messages that make a run of the test mean something: rows enough for ghosts to arise.
    static let enoughMessages = 1_000

    /// `channel id` of every message `files` hold. With `requireWhole`, every file must be whole (an
    /// expectation fails for one that is not); without, a file still being written counts up to its
    /// last flush point.
    static func messages(in files: [(path: String, run: CLIRun)], requireWhole: Bool) -> Set<String> {
        var stored = Set<String>()
        for (path, file) in files {
            if requireWhole { #expect(file.status == 0, "\(path) was left unfinished: \(file.stderr)") }
            // A file being written may end inside a line (past its last flush point): only whole lines count.
            // (By bytes: a CR LF is one Character.)
            let bytes =
                requireWhole
                ? file.stdout : file.stdout.lastIndex(of: UInt8(ascii: "\n")).map { Array(file.stdout[...$0]) } ?? []
            stored.formUnion(ServedLog.messageKeys(bytes))
        }
        return stored
    }

    /// Stops `capture` (SIGSTOP) at a moment when one of its files ends past its last flush point (not
    /// in the sync-flush marker `00 00 FF FF`); tries for at most 10 s, then stops it anyway.
    static func freezeBetweenFlushes(_ capture: ChatcapProcess, directory: String) throws {
        func unflushed() -> Bool {
            channels.contains { channel in
                let folder = "\(directory)/\(channel)"
                guard let name = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted().last,
                    let handle = FileHandle(forReadingAtPath: "\(folder)/\(name)")
                else { return false }
                defer { try? handle.close() }
                guard let size = try? handle.seekToEnd(), size >= 4 else { return false }
                try? handle.seek(toOffset: size - 4)
                return handle.readData(ofLength: 4) != Data([0, 0, 0xFF, 0xFF])
            }
        }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if unflushed() {
                capture.signal(SIGSTOP)
                if unflushed() { return }
                capture.signal(SIGCONT)
            }
            usleep(5_000)
        }
        capture.signal(SIGSTOP)
    }
}
