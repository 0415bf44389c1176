import ChatTestSupport
import Foundation
import Testing

/// How the live commands end when going on cannot help, with the documented sysexits statuses: a
/// certificate that fails verification (76, unless --retry-tls), a rejected login (77), a token file
/// that is not a regular file (64, at once: a FIFO must not block). And the warning for a token sent
/// without TLS to a host other than this machine.
@Suite(.serialized) struct LiveExitStatusTests {
    static let token = "oauth:exitstatustesttoken0123456789"

    @Test(
        "a TLS certificate for another name ends the run with 76 and a clear message", arguments: ["tail", "capture"])
    func certificateRejected(command: String) throws {
        let dir = try LiveServeTests.tempDir("cert76-\(command)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try TestPKI.make(in: dir, subjectAltName: "DNS:elsewhere.example")
        let server = try LiveServeTests.Server([
            "Fixtures/lines/privmsg.irc", "--tls-cert", "\(dir)/server.pem", "--tls-key", "\(dir)/server.key",
        ])
        defer { server.stop() }
        let extra = command == "capture" ? ["--dir", "\(dir)/capture", "--status", "none"] : []
        let started = Date()
        let run = try CLI.run(
            [
                command, "pixelharbor", "--host", "127.0.0.1", "--port", "\(server.port)",
                "--ca-file", "\(dir)/ca.pem", "--reconnect-base", "0.1", "--reconnect-max", "0.2",
                "--duration", "10",
            ] + extra)
        #expect(run.status == 76, "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 5, "no retries until --duration")
        #expect(run.stderr.contains("does not match the name"), "\(run.stderr)")
        #expect(run.stderr.contains("--retry-tls"))
        #expect(!run.stderr.contains("reconnecting in"), "no reconnect scheduled")
    }

    @Test("a rejected login ends the run with 77, the token never printed", arguments: ["tail", "capture"])
    func loginRejected(command: String) throws {
        let server = try HostileServer(.loginFailed)
        let dir = try LiveServeTests.tempDir("login77-\(command)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let extra = command == "capture" ? ["--dir", "\(dir)/capture", "--status", "none"] : []
        let run = try CLI.run(
            [
                command, "c", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain", "--login", "tester",
                "--duration", "10",
            ] + extra,
            environment: ["CHATCAP_TOKEN": Self.token])
        #expect(run.status == 77, "\(run.stderr)")
        #expect(run.stderr.contains("rejected the login"), "\(run.stderr)")
        #expect(server.count("PASS") == 1 && server.count("JOIN") == 0)
        #expect(!run.stderr.contains(Self.token) && !run.text.contains(Self.token))
        #expect(!run.stderr.contains("unencrypted"), "no warning for --plain to 127.0.0.1")
    }

    @Test("a token file that is a FIFO is refused at once (64), without waiting for a writer")
    func tokenFileFIFO() throws {
        let dir = try LiveServeTests.tempDir("fifo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fifo = dir + "/token"
        #expect(mkfifo(fifo, 0o600) == 0)
        let tail = try ChatcapProcess([
            "tail", "c", "--host", "127.0.0.1", "--port", "9", "--plain",
            "--token-file", fifo, "--login", "tester", "--duration", "1",
        ])
        #expect(tail.exitStatus(within: 5) == 64, "a FIFO token file must not block")
        #expect(tail.stderr.contains("regular file"), "\(tail.stderr)")
    }

    @Test("--help of the live commands documents 76 and 77", arguments: ["tail", "capture", "watch"])
    func helpDocumentsStatuses(command: String) throws {
        let run = try CLI.run([command, "--help"])
        let help = run.text.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        #expect(help.contains("76 (EX_PROTOCOL) the server's TLS certificate failed verification"), "\(help)")
        #expect(help.contains("77 (EX_NOPERM) the server rejected the login"))
        #expect(help.contains("--retry-tls"))
    }
}
