import ChatTestSupport
import Foundation
import Testing

/// `chatcap tail` against a real InspIRCd (Debian's package) over TLS on 127.0.0.1: a server that
/// does not know Twitch's capabilities (we degrade and say so), JOIN, PRIVMSGs sent by a second
/// client, and the server's PINGs answered. InspIRCd is started and stopped by PID.
@Suite(.serialized, .timeLimit(.minutes(20))) struct LiveInspIRCdTests {
    @Test("tail over TLS: CAP degrade, JOIN, a second client's PRIVMSGs arrive, PING answered")
    func tailAgainstInspIRCd() throws {
        let dir = try CLITempDirectory.make("ircd")
        defer { CLITempDirectory.remove(dir) }
        // A test CA and a server certificate for 127.0.0.1, made now.
        try TestPKI.make(in: dir)
        let server = try InspIRCdServer(
            in: dir, certificate: "\(dir)/server.pem", key: "\(dir)/server.key", pingSeconds: 3)
        defer { server.stop() }
        let (plain, tls) = (server.plain, server.tls)

        // chatcap tail in the background for 10 s; meanwhile a second client talks in #test.
        let run = try CLI.start([
            "tail", "test", "--host", "127.0.0.1", "--port", "\(tls)", "--ca-file", "\(dir)/ca.pem", "--format", "json",
            "--duration", "10",
        ])
        let (tail, out, err) = (run.process, run.stdout, run.stderr)
        defer { if tail.isRunning { kill(tail.processIdentifier, SIGKILL) } }
        // `timeout`: a client that cannot get through fails the test in a minute, not after TCP's
        // own two-minute connect timeout.
        let alice = try CLI.shell(
            """
            exec timeout 60 bash -c '
            sleep 2; exec 3<>/dev/tcp/127.0.0.1/\(plain)
            printf "NICK alice\\r\\nUSER alice 0 * :Alice\\r\\n" >&3
            for i in $(seq 1 50); do read -t 1 -r line <&3 || true
              case "$line" in *" 001 "*) break;; PING*) printf "PONG %s\\r\\n" "${line#PING }" >&3;; esac; done
            printf "JOIN #test\\r\\n" >&3; sleep 1
            printf "PRIVMSG #test :hello from alice\\r\\nPRIVMSG #test :second line\\r\\n" >&3; sleep 1
            printf "QUIT\\r\\n" >&3'
            """)
        #expect(
            alice.status == 0, "\(alice.stderr)\n\((try? String(contentsOfFile: server.log, encoding: .utf8)) ?? "")")
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

    @Test("the InspIRCd helper refuses to run half-bound: a port another process holds is an error naming it")
    func portTaken() throws {
        let dir = try CLITempDirectory.make("ircd-taken")
        defer { CLITempDirectory.remove(dir) }
        try TestPKI.make(in: dir)
        let holder = try SocketLoopbackListener()
        defer { holder.close() }
        let failure = #expect(throws: InspIRCdServer.StartFailure.self) {
            _ = try InspIRCdServer(
                in: dir, certificate: "\(dir)/server.pem", key: "\(dir)/server.key", pingSeconds: 3,
                plain: Int(holder.port))
        }
        #expect(failure?.description.contains("127.0.0.1:\(holder.port)") == true, "\(String(describing: failure))")
    }

    @Test("a helper let go without stop() still stops its InspIRCd: no server outlives its test")
    func droppedStops() throws {
        let dir = try CLITempDirectory.make("ircd-dropped")
        defer { CLITempDirectory.remove(dir) }
        try TestPKI.make(in: dir)
        var pid: Int32 = 0
        do {
            let server = try InspIRCdServer(
                in: dir, certificate: "\(dir)/server.pem", key: "\(dir)/server.key", pingSeconds: 3)
            pid = server.process.processIdentifier
        }
        #expect(pid > 0)
        #expect(kill(pid, 0) != 0, "InspIRCd (pid \(pid)) is still running")
    }
}
