import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `--duration` and SIGINT hold during a TLS or WebSocket handshake with a server that accepts the
/// connection and never answers (issue 24 item 8): the handshake's own timeout (10 s) no longer runs
/// past them.
@Suite(.timeLimit(.minutes(20))) struct HandshakeDeadlineTests {
    @Test(
        "tail stops at --duration in the middle of a handshake that never ends, with 69 and no mismatch hint",
        arguments: [
            ["--transport", "tcp"], ["--transport", "websocket"], ["--transport", "websocket", "--plain"],
        ])
    func durationDuringHandshake(transport: [String]) throws {
        // Listens (the kernel completes the TCP handshake) but never accepts, reads or writes.
        let silent = try SocketLoopbackListener()
        defer { silent.close() }
        let started = Date()
        let run = try CLI.run(
            ["tail", "pixelharbor", "--host", "127.0.0.1", "--port", "\(silent.port)", "--duration", "1"] + transport)
        let seconds = Date().timeIntervalSince(started)
        #expect(run.status == 69, "\(run.stderr)")
        #expect(seconds < 4, "took \(seconds) s for --duration 1")
        let scheme = transport.contains("websocket") ? (transport.contains("--plain") ? "ws://" : "wss://") : ""
        let peer = scheme + "127.0.0.1:\(silent.port)" + (scheme.isEmpty ? "" : "/")
        #expect(run.stderr.contains("error: never reached the chat of \(peer): could not connect"), "\(run.stderr)")
        #expect(!run.stderr.contains("mismatch"), "cut short by --duration, not a TLS/plain question: \(run.stderr)")
    }

    @Test(
        "SIGINT in the middle of a handshake that never ends: tail exits within 1.5 s, with 69 and no mismatch hint",
        arguments: [
            ["--transport", "tcp"], ["--transport", "websocket"], ["--transport", "websocket", "--plain"],
        ])
    func interruptDuringHandshake(transport: [String]) throws {
        // Accepts, reads and never writes: the TLS ClientHello or the Upgrade request waits forever.
        let silent = try HostileServer(.silent)
        let tail = try ChatcapProcess(
            ["tail", "pixelharbor", "--host", "127.0.0.1", "--port", "\(silent.port)"] + transport)
        // Until the server has the client's first bytes (the ClientHello or the Upgrade request): a fixed
        // second was not always enough on a busy machine for a debug build to start and connect, and a
        // SIGINT before any attempt leaves no reason to say.
        let deadline = Date().addingTimeInterval(30)
        while silent.count("<received>") == 0 && tail.isRunning && Date() < deadline { usleep(20_000) }
        #expect(silent.count("<received>") == 1, "the server never heard the handshake: \(tail.stderr)")
        usleep(200_000)
        #expect(tail.isRunning, "still in the handshake: \(tail.stderr)")
        let interrupted = Date()
        tail.signal(SIGINT)
        let status = tail.exitStatus(within: 5)
        let seconds = Date().timeIntervalSince(interrupted)
        // Nothing was reached: the status of a live command that never reached the chat, as with --duration.
        #expect(status == 69, "\(tail.stderr)")
        #expect(seconds < 1.5, "took \(seconds) s after SIGINT")
        let scheme = transport.contains("websocket") ? (transport.contains("--plain") ? "ws://" : "wss://") : ""
        let peer = scheme + "127.0.0.1:\(silent.port)" + (scheme.isEmpty ? "" : "/")
        #expect(tail.stderr.contains("error: never reached the chat of \(peer): could not connect"), "\(tail.stderr)")
        #expect(!tail.stderr.contains("mismatch"), "cut short by SIGINT, not a TLS/plain question: \(tail.stderr)")
    }
}
