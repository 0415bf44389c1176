import ChatTestSupport
import Foundation
import Testing

/// `chatcap load` without a ClickHouse server: usage errors, the lock, retries while nothing answers,
/// and credentials that never show.
@Suite(.timeLimit(.minutes(20))) struct LoadCLITests {
    /// A capture directory with one small channel file (gzip, as capture writes it).
    static func captureDir(_ name: String) throws -> String {
        let dir = try CLITempDirectory.make(name)
        try FileManager.default.createDirectory(atPath: dir + "/chan", withIntermediateDirectories: true)
        let lines = (0..<5).map {
            "@time=2026-11-21T13:26:0\($0).000Z;id=m\($0);tmi-sent-ts=176370000000\($0) :u!u@u PRIVMSG #chan :hi \($0)\r\n"
        }.joined()
        try lines.write(toFile: dir + "/chan/plain", atomically: true, encoding: .utf8)
        let gz = try CLI.shell("gzip -c \(dir)/chan/plain > \(dir)/chan/2026-11-21.log.gz && rm \(dir)/chan/plain")
        try #require(gz.status == 0)
        return dir
    }

    @Test("the binary does not link libcurl: only load opens it, at run time")
    func libcurlIsNotLinked() throws {
        let dynamic = try CLI.shell("readelf -d \(CLI.shellBinary)")
        try #require(dynamic.status == 0)
        let needed = dynamic.text.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(needed.contains { $0.contains("libssl") }, "the listing shows the linked libraries")
        #expect(!needed.contains { $0.contains("libcurl") }, "\(needed)")
    }

    @Test("usage errors (64) name the problem and never echo the password; a missing directory is 66")
    func usage() throws {
        for (args, text) in [
            (["--clickhouse", "ftp://u:hunter2@h/"], "must start with http:// or https://"),
            (["--clickhouse", "http://u:hunter2@h:99999/"], "the port must be 1 to 65535"),
            (["--clickhouse", "http://h/", "--table", "chat;drop"], "--table must be table or database.table"),
            (["--clickhouse", "http://h/", "--batch-rows", "0"], "'--batch-rows <batch-rows>': must be 1 to 1000000"),
            (
                ["--clickhouse", "http://h/", "--batch-delay", "0"],
                "'--batch-delay <batch-delay>': must be 0.05 to 60 seconds"
            ),
        ] {
            let run = try CLI.run(["load", "/tmp"] + args)
            #expect(run.status == 64, "\(args): \(run.stderr)")
            #expect(run.stderr.contains(text), "\(run.stderr)")
            #expect(!run.stderr.contains("hunter2"))
        }
        let absent = NSTemporaryDirectory() + "chatcap-absent-\(UUID().uuidString)"
        let missing = try CLI.run(["load", absent, "--clickhouse", "http://127.0.0.1:1/"])
        #expect(missing.status == 66, "\(missing.stderr)")
    }

    @Test(
        "nothing answering: the batch is retried, the URL shown with ***, a second load is refused (75), SIGTERM ends it (0)"
    )
    func unreachable() throws {
        let dir = try Self.captureDir("load-retry")
        defer { CLITempDirectory.remove(dir) }
        let port = try SocketLoopbackListener.freePort()
        let url = "http://loader:hunter2@127.0.0.1:\(port)/"
        let load = try ChatcapProcess(["load", dir, "--clickhouse", url, "--retry-max", "0.2", "--batch-delay", "0.05"])
        #expect(load.waitForStderr(containing: "127.0.0.1:\(port)/ unreachable"), "\(load.stderr)")
        #expect(load.stderr.contains("http://loader:***@127.0.0.1:\(port)/"), "\(load.stderr)")
        #expect(load.stderr.contains("5 rows waiting"), "\(load.stderr)")
        let second = try CLI.run(["load", dir, "--clickhouse", url, "--once"])
        #expect(second.status == 75, "\(second.stderr)")
        #expect(second.stderr.contains("another load holds"), "\(second.stderr)")
        #expect(load.stop(with: SIGTERM) == 0, "\(load.stderr)")
        #expect(load.stderr.contains("5 rows not acknowledged; the next load sends them again"), "\(load.stderr)")
        #expect(!load.stderr.contains("hunter2") && !second.stderr.contains("hunter2"))
        // Nothing was acknowledged: no progress was written.
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/_load/127.0.0.1_\(port)_chat.lines.progress"))
    }

    @Test("a directory that is not a capture is refused (66) before _load/ is made in it")
    func notACapture() throws {
        let dir = try CLITempDirectory.make("load-not-capture")
        defer { CLITempDirectory.remove(dir) }
        try "notes\n".write(toFile: dir + "/notes.txt", atomically: true, encoding: .utf8)
        let run = try CLI.run(["load", dir, "--clickhouse", "http://127.0.0.1:1/", "--once"])
        #expect(run.status == 66, "\(run.stderr)")
        #expect(
            run.stderr.contains(
                "\(dir): not a capture directory (no _session/ and no <channel>/*.log.gz): give the --dir of chatcap capture"
            ),
            "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["notes.txt"])
    }

    @Test("--once gives up with 75 when ClickHouse stays unreachable for --give-up-after seconds; alone it is 64")
    func onceGivesUp() throws {
        let dir = try Self.captureDir("load-give-up")
        defer { CLITempDirectory.remove(dir) }
        let port = try SocketLoopbackListener.freePort()
        let url = "http://loader:hunter2@127.0.0.1:\(port)/"
        let started = Date()
        let run = try CLI.run(
            ["load", dir, "--clickhouse", url, "--once", "--give-up-after", "0.5", "--retry-max", "0.1"])
        let seconds = Date().timeIntervalSince(started)
        #expect(run.status == 75, "\(run.stderr)")
        #expect(seconds < 10, "took \(seconds) s")
        #expect(run.stderr.contains("chatcap: error: gave up after "), "\(run.stderr)")
        #expect(run.stderr.contains("127.0.0.1:\(port)/ unreachable"), "\(run.stderr)")
        #expect(!run.stderr.contains("hunter2"))
        #expect(!FileManager.default.fileExists(atPath: "\(dir)/_load/127.0.0.1_\(port)_chat.lines.progress"))
        let alone = try CLI.run(["load", dir, "--clickhouse", url, "--give-up-after", "5"])
        #expect(alone.status == 64, "\(alone.stderr)")
        #expect(alone.stderr.contains("--give-up-after applies only with --once"), "\(alone.stderr)")
    }

    @Test("Scripts/clickhouse_test_server.sh says which port is taken and exits 69, before starting anything")
    func testServerPortTaken() throws {
        let listener = try SocketLoopbackListener()
        defer { listener.close() }
        let dir = try InputTempDirectory()
        let run = try CLI.shell(
            "Scripts/clickhouse_test_server.sh \(dir.path)/ch \(listener.port) \(try SocketLoopbackListener.freePort())"
        )
        #expect(run.status == 69, "\(run.stderr)")
        #expect(
            run.stderr
                == "clickhouse_test_server.sh: port \(listener.port) on 127.0.0.1 is taken (something listens there): "
                + "choose another\n")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/ch"), "nothing was started")
    }
}
