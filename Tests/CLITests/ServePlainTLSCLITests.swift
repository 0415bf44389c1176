import ChatTestSupport
import Foundation
import Glibc
import Testing

/// A client that forgot `--plain` against `serve`'s plain port (issue #35's newcomer): serve sees its
/// TLS handshake, answers with a TLS alert and says why on its side, so the client fails its handshake
/// at once with the mismatch hint, instead of waiting for the handshake to time out (10 s: never
/// said under a shorter `--duration`).
@Suite(.timeLimit(.minutes(20))) struct ServePlainTLSCLITests {
    @Test(
        "tail without --plain against serve's plain port: the mismatch hint within a 3 s run, and serve says why it closed"
    )
    func toldAtOnce() throws {
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0"])
        defer { _ = server.stop(with: SIGKILL) }
        let run = try CLI.run([
            "tail", "pixelharbor", "--host", "127.0.0.1", "--port", "\(server.port)", "--reconnect-base", "5",
            "--duration", "3",
        ])
        #expect(run.status == 69, "never reached the chat: \(run.stderr)")
        #expect(run.stderr.contains("(TLS/plain mismatch? the port may speak plain IRC: --plain)"), "\(run.stderr)")
        #expect(run.stderr.contains("alert handshake failure"), "the TLS library names serve's alert: \(run.stderr)")
        // serve's report of the client, on its stderr.
        var said = false
        for _ in 0..<100 where !said {
            said = server.stderr.contains("the client began a TLS handshake, but this port speaks plain IRC")
            if !said { usleep(50_000) }
        }
        #expect(said, "\(server.stderr)")
    }

    @Test("a plain client whose first line is short still logs in: only a TLS record is refused")
    func plainStillWorks() throws {
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0"])
        defer { _ = server.stop(with: SIGKILL) }
        let client = try ServeLineClient(port: server.port)
        client.send("NICK justinfan5")
        client.send("JOIN #pixelharbor")
        let lines = client.lines(until: { $0.contains(" 366 ") }, timeoutMs: 60_000)
        #expect(lines.contains { $0.contains(" JOIN #pixelharbor") }, "\(lines)")
    }
}
