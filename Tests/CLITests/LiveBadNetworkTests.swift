import ChatTestSupport
import Foundation
import Testing

/// Bad input from the network ends in a clear message and a reconnect, never a crash or a hang:
/// garbage bytes, an over-long line and a close in the middle of a line from a deliberately broken
/// server (a few lines of Python on 127.0.0.1), and a TLS certificate for the wrong name.
@Suite(.serialized, .timeLimit(.minutes(20))) struct LiveBadNetworkTests {
    /// A deliberately broken IRC server (Python on 127.0.0.1) that, on each of three connections,
    /// sends a welcome, garbage bytes, an over-long line, one good PRIVMSG to #c and a partial line,
    /// then closes. Stopped by PID when released.
    final class BrokenServer {
        let process = Process()
        let port: Int

        init() throws {
            let script = """
                import socket, sys
                s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("127.0.0.1", 0)); s.listen(5)
                print(s.getsockname()[1], flush=True)
                for attempt in range(3):
                    c, _ = s.accept()
                    if attempt == 2:
                        # No fourth connection: one made while the third is served would be accepted by
                        # the kernel into the backlog, then reset when the script ends.
                        s.close()
                    c.recv(4096)
                    c.sendall(b":tmi.twitch.tv 001 justinfan1 :Welcome, GLHF!\\r\\n")
                    # Confirm the JOIN #c as Twitch does: a run that joined nothing exits 69.
                    c.settimeout(5)
                    got = b""
                    try:
                        while b"JOIN #c\\r\\n" not in got:
                            more = c.recv(4096)
                            if not more: break
                            got += more
                    except OSError:
                        pass
                    c.sendall(b":justinfan1!justinfan1@justinfan1.tmi.twitch.tv JOIN #c\\r\\n")
                    c.sendall(bytes(range(1, 256)) * 8 + b"\\r\\n")              # garbage
                    c.sendall(b":a!a@a PRIVMSG #c :" + b"A" * 20000 + b"\\r\\n")  # over-long
                    c.sendall(b":a!a@a PRIVMSG #c :fine line\\r\\n")
                    c.sendall(b":a!a@a PRIVMSG #c :cut in the mid")              # no CRLF, then close
                    # Close gracefully (FIN, not RST): unread client bytes would make the kernel reset
                    # the connection and drop what is still in flight.
                    c.shutdown(socket.SHUT_WR)
                    c.settimeout(2)
                    try:
                        while c.recv(4096): pass
                    except OSError:
                        pass
                    c.close()
                """
            port = try startPythonServer(process, arguments: ["-c", script], what: "the broken server")
        }

        /// The garbage the server sends, split into lines as a framer splits it (on LF, CR before LF dropped).
        static var garbageLines: [[UInt8]] {
            FramerVerifier.oracleLines(
                Array(repeating: Array((1...255).map { UInt8($0) }), count: 8).flatMap { $0 } + [13, 10])
        }

        deinit {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    @Test("garbage, an over-long line and a close mid-line: reported, then a reconnect")
    func brokenServer() throws {
        let server = try BrokenServer()
        let port = server.port
        let run = try CLI.run([
            "tail", "c", "--host", "127.0.0.1", "--port", "\(port)", "--plain", "--format", "raw",
            "--reconnect-base", "0.1", "--reconnect-max", "0.2", "--duration", "3",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        // The server is the same on each of its three connections, so is what comes out: the welcome,
        // the JOIN echo and the good line, three times; never the partial line.
        let welcome = ":tmi.twitch.tv 001 justinfan1 :Welcome, GLHF!\r\n"
        let join = ":justinfan1!justinfan1@justinfan1.tmi.twitch.tv JOIN #c\r\n"
        #expect(run.text == String(repeating: welcome + join + ":a!a@a PRIVMSG #c :fine line\r\n", count: 3))
        // If a tick of the loop sees every JOIN answered before the connection drops, tail says how
        // long joining took: at most once, at no fixed place among the problem notes (timing).
        let all = run.stderr.split(separator: "\n").map(String.init)
        #expect(all.count { $0.hasPrefix("chatcap: 1 of 1 channel joined in ") } <= 1, "\(run.stderr)")
        let notes = all.filter { !$0.hasPrefix("chatcap: 1 of 1 channel joined in ") }
        // The first connection's problems, each with its position: the garbage's 9 pieces (split at
        // its 8 LF bytes), the over-long line, the close mid-line; then the reconnect.
        let firstConnection =
            ["chatcap: connected (connection 1)", "chatcap: joined #c"]
            + (3...11).map { "chatcap: live:\($0): malformed line: invalid byte in command (byte 0) — skipped" } + [
                "chatcap: live:12: line 12 (byte 2146): 20019 bytes exceed the 16384-byte line limit; skipped",
                "chatcap: the server closed the connection mid-line: 33 bytes of a partial line dropped",
                "chatcap: disconnected: the server closed the connection",
            ]
        #expect(Array(notes.prefix(firstConnection.count)) == firstConnection, "\(run.stderr)")
        #expect(notes.dropFirst(firstConnection.count).first?.hasPrefix("chatcap: reconnecting in ") == true)
        #expect(
            notes.filter { $0.hasPrefix("chatcap: connected") }
                == (1...3).map { "chatcap: connected (connection \($0))" }, "\(run.stderr)")
        // Every problem of the three connections counted.
        #expect(
            notes.last
                == "chatcap: summary: 9 lines read, 9 written, 27 malformed, 3 over-long skipped, 3 partial lines cut off"
        )
    }

    @Test("a TLS certificate for another name with --retry-tls: a clear message, retries, no hang")
    func wrongCertificateName() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("chatcap-badname-\(getpid())").path
        try? FileManager.default.removeItem(atPath: dir)
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { CLITempDirectory.remove(dir) }
        try TestPKI.make(in: dir, subjectAltName: "DNS:elsewhere.example")
        let server = try ServeProcess.onFreePort([
            "Fixtures/lines/privmsg.irc", "--tls-cert", "\(dir)/server.pem", "--tls-key", "\(dir)/server.key",
        ])
        defer { server.kill() }
        let run = try CLI.run([
            "tail", "pixelharbor", "--host", "127.0.0.1", "--port", "\(server.port)",
            "--ca-file", "\(dir)/ca.pem", "--reconnect-base", "0.2", "--reconnect-max", "0.4",
            "--retry-tls", "--duration", "2",
        ])
        #expect(run.status == 69, "never reached the chat: \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("mismatch"), "\(run.stderr)")
        #expect(run.stderr.contains("reconnecting"))
    }
}
