import ChatTestSupport
import Foundation
import Testing

/// How the live commands end when going on cannot help, with the documented sysexits statuses: a
/// certificate that fails verification (76, unless --retry-tls), a rejected login (77), a token file
/// that is not a regular file (64, at once: a FIFO must not block). And the warning for a token sent
/// without TLS to a host other than this machine.
@Suite(.serialized, .timeLimit(.minutes(20))) struct LiveExitStatusTests {
    static let token = "oauth:exitstatustesttoken0123456789"

    @Test(
        "a TLS certificate for another name ends the run with 76 and a clear message", arguments: ["tail", "capture"])
    func certificateRejected(command: String) throws {
        let dir = try CLITempDirectory.make("cert76-\(command)")
        defer { CLITempDirectory.remove(dir) }
        try TestPKI.make(in: dir, subjectAltName: "DNS:elsewhere.example")
        let server = try ServeProcess.onFreePort([
            "Fixtures/lines/privmsg.irc", "--tls-cert", "\(dir)/server.pem", "--tls-key", "\(dir)/server.key",
        ])
        defer { server.kill() }
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
        let dir = try CLITempDirectory.make("login77-\(command)")
        defer { CLITempDirectory.remove(dir) }
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
        let dir = try CLITempDirectory.make("fifo")
        defer { CLITempDirectory.remove(dir) }
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
        if command != "watch" {
            #expect(help.contains("69 (EX_UNAVAILABLE) also when no channel was ever joined"), "\(help)")
        }
    }
}

/// Issue 13 item 9: a live command that never reached the chat says so and exits 69; a --ca-file
/// that cannot be read exits 66 at once.
@Suite(.timeLimit(.minutes(20))) struct LiveUnreachableTests {
    /// A loopback port nothing listens on (bound, then closed).
    static func closedPort() throws -> UInt16 {
        let listener = try SocketLoopbackListener()
        let port = listener.port
        listener.close()
        return port
    }

    @Test(
        "nothing listens: tail and capture stop at --duration with 69 and the last reason",
        arguments: ["tail", "capture"])
    func neverConnected(command: String) throws {
        let port = try Self.closedPort()
        let dir = try InputTempDirectory()
        let extra = command == "capture" ? ["--dir", dir.path + "/cap", "--status", "none"] : []
        let run = try CLI.run(
            [
                command, "pixelharbor", "--host", "127.0.0.1", "--port", "\(port)", "--plain",
                "--reconnect-base", "0.1", "--reconnect-max", "0.2", "--duration", "1.5",
            ] + extra)
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("never reached the chat of 127.0.0.1:\(port)"), "\(run.stderr)")
        #expect(run.stderr.contains("could not connect"), "\(run.stderr)")
        // Nothing was read because nothing connected: no word about an empty input (issue 24 item 8).
        #expect(!run.stderr.contains("holds no lines"), "\(run.stderr)")
    }

    @Test(
        "a refused connection and a name that does not resolve are no TLS/plain mismatch: no such hint",
        arguments: ["127.0.0.1", "nonexistent.invalid"])
    func noMismatchHintWithoutHandshake(host: String) throws {
        let port = try Self.closedPort()
        let run = try CLI.run([
            "tail", "pixelharbor", "--host", host, "--port", "\(port)", "--reconnect-base", "0.1",
            "--reconnect-max", "0.2", "--duration", "1",
        ])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(
            run.stderr.contains(host == "127.0.0.1" ? "Connection refused" : "cannot resolve nonexistent.invalid"),
            "\(run.stderr)")
        #expect(!run.stderr.contains("mismatch"), "\(run.stderr)")
        #expect(!run.stderr.contains("holds no lines"), "\(run.stderr)")
    }

    @Test(
        "a server that logs us in but never confirms a JOIN: tail and capture exit 69, saying no channel was joined",
        arguments: ["tail", "capture"])
    func noChannelJoined(command: String) throws {
        let server = try HostileServer(.unconfirmed)
        let dir = try InputTempDirectory()
        let extra = command == "capture" ? ["--dir", dir.path + "/cap", "--status", "none"] : []
        let run = try CLI.run(
            [
                command, "pixelharbor", "lunafrost", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain",
                "--duration", "1.5",
            ]
                + extra)
        #expect(run.status == 69, "\(run.stderr)")
        #expect(server.count("JOIN #pixelharbor") == 1 && server.count("JOIN #lunafrost") == 1, "\(server.received)")
        #expect(
            run.stderr.contains(
                "error: no channel was joined: 127.0.0.1:\(server.port) never confirmed a JOIN (2 channels asked for)"),
            "\(run.stderr)")
        #expect(!run.stderr.contains("never reached the chat"), "it was reached: \(run.stderr)")
    }

    @Test("a --ca-file that does not exist: exit 66 at once, naming it", arguments: ["tail", "capture"])
    func missingCAFile(command: String) throws {
        let dir = try InputTempDirectory()
        let extra = command == "capture" ? ["--dir", dir.path + "/cap"] : []
        let run = try CLI.run(
            [
                command, "pixelharbor", "--host", "127.0.0.1", "--port", "1", "--ca-file", dir.path + "/none.pem",
                "--duration", "5",
            ] + extra)
        #expect(run.status == 66, "\(run.stderr)")
        #expect(run.stderr.contains("--ca-file \(dir.path)/none.pem: No such file or directory"), "\(run.stderr)")
    }

    @Test("a plain client at a TLS port: the reset says 'TLS/plain mismatch?', then 69")
    func plainAtTLSPort() throws {
        let dir = try CLITempDirectory.make("mismatch-plain")
        defer { CLITempDirectory.remove(dir) }
        try TestPKI.make(in: dir, subjectAltName: "IP:127.0.0.1")
        let server = try ServeProcess.onFreePort([
            "Fixtures/lines/privmsg.irc", "--tls-cert", "\(dir)/server.pem", "--tls-key", "\(dir)/server.key",
        ])
        defer { server.kill() }
        let run = try CLI.run([
            "tail", "pixelharbor", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain",
            "--reconnect-base", "0.1", "--reconnect-max", "0.2", "--duration", "1.5",
        ])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("TLS/plain mismatch? the port may expect TLS: drop --plain"), "\(run.stderr)")
    }

    @Test("a TLS client at a plain IRC port that speaks first: 'TLS/plain mismatch?', then 69")
    func tlsAtPlainPort() throws {
        let script = """
            import socket, sys, threading, time
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
            print(s.getsockname()[1], flush=True)
            def talk(c):
                c.sendall(b":irc.example NOTICE * :*** Looking up your hostname...\\r\\n"); time.sleep(5); c.close()
            end = time.time() + 20
            while time.time() < end:
                c, _ = s.accept(); threading.Thread(target=talk, args=(c,), daemon=True).start()
            """
        let dir = try InputTempDirectory()
        let path = try dir.write("plain_server.py", Array(script.utf8))
        let process = Process()
        let port = try startPythonServer(process, arguments: [path], what: "the plain server")
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let run = try CLI.run([
            "tail", "pixelharbor", "--host", "127.0.0.1", "--port", "\(port)", "--insecure",
            "--reconnect-base", "0.1", "--reconnect-max", "0.2", "--duration", "1.5",
        ])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("TLS/plain mismatch? the port may speak plain IRC: --plain"), "\(run.stderr)")
    }
}
