import ChatTestSupport
import Foundation
import Testing

/// `chatcap tail` against a real InspIRCd (Debian's package) over TLS on 127.0.0.1: a server that
/// does not know Twitch's capabilities (we degrade and say so), JOIN, PRIVMSGs sent by a second
/// client, and the server's PINGs answered. InspIRCd is started and stopped by PID.
@Suite(.serialized) struct LiveInspIRCdTests {
    @Test("tail over TLS: CAP degrade, JOIN, a second client's PRIVMSGs arrive, PING answered")
    func tailAgainstInspIRCd() throws {
        let dir = try LiveServeTests.tempDir("ircd")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A test CA and a server certificate for 127.0.0.1, made now.
        try TestPKI.make(in: dir)
        let plain = 20_000 + Int(getpid() % 20_000)
        let tls = plain + 1
        let server = Process()
        server.executableURL = URL(fileURLWithPath: Fixtures.root + "/Scripts/inspircd_test_server.sh")
        server.arguments = ["\(dir)/ircd", "\(plain)", "\(tls)", "\(dir)/server.pem", "\(dir)/server.key", "3"]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let up = try CLI.shell(
            "for i in $(seq 1 50); do (exec 3<>/dev/tcp/127.0.0.1/\(tls)) 2>/dev/null && exit 0; sleep 0.1; done; exit 1"
        )
        try #require(up.status == 0, "InspIRCd did not start")

        // chatcap tail in the background for 10 s; meanwhile a second client talks in #test.
        let run = try CLI.start([
            "tail", "test", "--host", "127.0.0.1", "--port", "\(tls)", "--ca-file", "\(dir)/ca.pem", "--format", "json",
            "--duration", "10",
        ])
        let (tail, out, err) = (run.process, run.stdout, run.stderr)
        defer { if tail.isRunning { kill(tail.processIdentifier, SIGKILL) } }
        let alice = try CLI.shell(
            """
            sleep 2; exec 3<>/dev/tcp/127.0.0.1/\(plain)
            printf "NICK alice\\r\\nUSER alice 0 * :Alice\\r\\n" >&3
            for i in $(seq 1 50); do read -t 1 -r line <&3 || true
              case "$line" in *" 001 "*) break;; PING*) printf "PONG %s\\r\\n" "${line#PING }" >&3;; esac; done
            printf "JOIN #test\\r\\n" >&3; sleep 1
            printf "PRIVMSG #test :hello from alice\\r\\nPRIVMSG #test :second line\\r\\n" >&3; sleep 1
            printf "QUIT\\r\\n" >&3
            """)
        #expect(alice.status == 0, "\(alice.stderr)")
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tail.waitUntilExit()
        let lines = String(decoding: stdout, as: UTF8.self).split(separator: "\n")
        #expect(tail.terminationStatus == 0, "\(stderr)")
        #expect(stderr.contains("capabilities refused"), "\(stderr)")
        #expect(stderr.contains("joined #test"))
        #expect(!stderr.contains("no PONG"))
        #expect(lines.contains { $0.contains("\"type\":\"session\"") && $0.contains("\"event\":\"joined\"") })
        let texts = lines.filter { $0.contains("\"type\":\"privmsg\"") && $0.contains("\"login\":\"alice\"") }
        #expect(texts.count == 2, "\(lines)")
        #expect(texts.first?.contains("\"text\":\"hello from alice\"") == true)
        #expect(texts.last?.contains("\"text\":\"second line\"") == true)
        #expect(
            lines.contains { $0.contains("\"type\":\"ping\"") },
            "the server's PING arrived (and was answered: no disconnect)")
        #expect(!lines.contains { $0.contains("\"event\":\"disconnected\"") && !$0.contains("stopped") })
    }
}
