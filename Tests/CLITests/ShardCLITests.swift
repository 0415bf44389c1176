import ChatTestSupport
import Foundation
import Testing

/// `capture --shard K/N`: validation (exit 64) and the note of how many channels a shard keeps.
@Suite(.timeLimit(.minutes(20))) struct ShardCLITests {
    @Test("K/N outside 1 <= K <= N <= 4096, or not K/N at all, is a usage error (64)")
    func invalid() throws {
        for bad in ["0/2", "3/2", "1/0", "1/4097", "2", "a/b", "1/2/3"] {
            let run = try CLI.run(["capture", "pixelharbor", "--dir", "/nonexistent", "--shard", bad])
            #expect(run.status == 64, "\(bad): \(run.stderr)")
            #expect(run.stderr.contains("--shard must be K/N with 1 <= K <= N <= 4096"), "\(run.stderr)")
        }
    }

    @Test("a shard that keeps none of the channels named is a usage error (64)")
    func empty() throws {
        // crc32("pixelharbor") % 2 == 1 and crc32("grimfang_tv") % 2 == 1: both are in shard 2 of 2.
        let run = try CLI.run(["capture", "pixelharbor", "#GrimFang_TV", "--dir", "/nonexistent", "--shard", "1/2"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("shard 1/2 keeps none of the 2 channels named"), "\(run.stderr)")
    }

    @Test("the shard's channels are joined and counted on stderr, from arguments and --channels-file")
    func keeps() throws {
        let dir = try CLITempDirectory.make("shard")
        defer { CLITempDirectory.remove(dir) }
        let list = dir + "/channels.txt"
        try "lunafrost\nmossyforge\n# comment\nottertech\n".write(toFile: list, atomically: true, encoding: .utf8)
        let server = try ServeProcess.onFreePort(["Fixtures/lines/privmsg.irc", "--speed", "max"])
        defer { server.kill() }
        let run = try CLI.run([
            "capture", "pixelharbor", "grimfang_tv", "--channels-file", list, "--shard", "1/2", "--dir", dir + "/cap",
            "--host", "127.0.0.1", "--port", "\(server.port)", "--plain", "--duration", "1", "--status", "none",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // Shard 1 of 2 (crc32 % 2 == 0): lunafrost and mossyforge; pixelharbor, grimfang_tv, ottertech are shard 2.
        #expect(run.stderr.contains("shard 1/2 keeps 2 of 5 channels (crc32(login) % 2 == 0)"), "\(run.stderr)")
        let channels = try FileManager.default.contentsOfDirectory(atPath: dir + "/cap").filter { !$0.hasPrefix("_") }
        #expect(channels.sorted() == ["lunafrost", "mossyforge"])
    }
}
