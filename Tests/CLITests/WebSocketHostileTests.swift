import ChatTestSupport
import Foundation
import Glibc
import Testing

/// One run of `Tests/Support/ws_hostile.py` (raw sockets on 127.0.0.1, see its header): started by
/// the test, its first line read at once, the rest when it ends; killed by PID when released.
final class HostilePeer {
    let process = Process()
    /// The first line: a port, or how many connections it opened.
    let first: Int

    init(_ arguments: String...) throws {
        first = try startPythonServer(
            process, arguments: [Fixtures.root + "/Tests/Support/ws_hostile.py"] + arguments, what: "ws_hostile.py")
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// What it printed after its first line, once it has ended by itself.
    func result() -> String {
        let out = (process.standardOutput as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
        process.waitUntilExit()
        return String(decoding: out, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The largest resident set (`VmHWM`, KiB) of process `pid` so far; 0 once it is gone.
func peakResidentKiB(_ pid: Int32) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
}

/// Hostile peers of the WebSocket transport, both ways (issue 24): PING floods from a peer that never
/// reads, idle connections that fill the descriptor table, slowloris upgrade requests, and `ws://`
/// against a `wss://` port.
@Suite(.serialized, .timeLimit(.minutes(20))) struct WebSocketHostileTests {
    static let token = "oauth:hostiletesttoken0123456789"

    @Test(
        "tail over WebSocket, a server that floods PINGs and never reads: closed as not reading, RSS < 64 MB",
        .timeLimit(.minutes(20)))
    func clientPingFlood() throws {
        let server = try HostilePeer("ping-server")
        let run = try SampledRun.run(
            [
                "tail", "c", "--transport", "websocket", "--host", "127.0.0.1", "--port", "\(server.first)",
                "--plain", "--login", "tester", "--format", "json", "--reconnect-base", "0.1",
                // 10 s, not 4: beside two busy processes the join alone took 1.3 s, and the flood had
                // not filled the connection's queue before a 4 s run ended (a fresh-clone run).
                "--reconnect-max", "0.2", "--duration", "10",
            ],
            environment: ["CHATCAP_TOKEN": Self.token])
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        let dropped = HostileServerTests.count(run.stderr, "chatcap: disconnected:", "does not read")
        #expect(dropped >= 1, "the connection is closed as dead: \(run.stderr.suffix(2000))")
        #expect(HostileServerTests.count(run.stderr, "gap in #c") >= 1, "\(run.stderr.suffix(2000))")
        #expect(run.peakKiB > 0 && run.peakKiB < 64 * 1024, "peak RSS \(run.peakKiB) KiB")
        #expect(!run.stderr.contains(Self.token))
    }

    @Test(
        "serve --ws-port, a client that floods masked PINGs and never reads: closed, logged, RSS < 64 MB",
        .timeLimit(.minutes(20)))
    func serverPingFlood() throws {
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0", "--ws-port", "0"])
        defer { _ = server.stop() }
        let client = try HostilePeer("ping-client", "\(try #require(server.webSocketPort))", "6")
        var peak = 0
        while client.process.isRunning {
            peak = max(peak, peakResidentKiB(server.chatcap.process.processIdentifier))
            usleep(20_000)
        }
        let result = client.result()
        #expect(result.hasPrefix("closed after "), "\(result): \(server.stderr.suffix(2000))")
        #expect(server.waitForStderr(containing: "the client does not read"), "\(server.stderr.suffix(2000))")
        #expect(peak > 0 && peak < 64 * 1024, "peak RSS \(peak) KiB")
        #expect(server.stop() == 0)
        #expect(server.stderr.contains("connections closed for misbehaving: 1 did not read"), "\(server.stderr)")
    }

    @Test(
        "serve under ulimit -n 256 with 400 idle connections open: a good client logs in within 5 s",
        .timeLimit(.minutes(20)))
    func idleConnectionsDoNotLockOut() throws {
        let server = try ServeProcess(
            ["Fixtures/lines/privmsg.irc", "--port", "0"], descriptorLimit: 256)
        defer { _ = server.stop() }
        let idle = try HostilePeer("idle", "\(server.port)", "400", "15")
        #expect(idle.first == 400, "every idle connection was taken (accepted or queued): \(idle.first)")
        let start = Date()
        let client = try ServeLineClient(port: server.port)
        client.send("NICK justinfan7")
        let lines = client.lines(until: { $0.contains(" 001 ") }, timeoutMs: 5_000)
        let elapsed = Date().timeIntervalSince(start)
        #expect(lines.last == ":tmi.twitch.tv 001 justinfan7 :Welcome, GLHF!", "\(server.stderr.suffix(2000))")
        #expect(elapsed < 5, "logged in after \(elapsed) s")
        #expect(server.stderr.contains("closed before logging in to make room"), "\(server.stderr.suffix(2000))")
    }

    @Test(
        "serve --login-timeout 2: 20 slowloris upgrade requests (a byte every 0.5 s) are all closed",
        .timeLimit(.minutes(20)))
    func slowlorisUpgradesTimeOut() throws {
        let server = try ServeProcess([
            "Fixtures/lines/privmsg.irc", "--port", "0", "--ws-port", "0", "--login-timeout", "2",
        ])
        defer { _ = server.stop() }
        let peers = try HostilePeer("slowloris", "\(try #require(server.webSocketPort))", "20", "4")
        #expect(peers.first == 20)
        #expect(peers.result() == "closed 20 of 20", "\(server.stderr.suffix(2000))")
        #expect(HostileServerTests.count(server.stderr, "disconnected", "no login within 2.0 s") == 20)
        #expect(server.stop() == 0)
        #expect(server.stderr.contains("connections closed for misbehaving: 20 did not log in in time"))
    }

    @Test("serve: a 4th connection from one address past --max-per-address 3 replaces the oldest not logged in")
    func perAddressCap() throws {
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0", "--max-per-address", "3"])
        defer { _ = server.stop() }
        let logged = try ServeLineClient(port: server.port)
        logged.send("NICK justinfan1")
        #expect(logged.lines(until: { $0.contains(" 376 ") }).last == ":tmi.twitch.tv 376 justinfan1 :>")
        let idle = try [ServeLineClient(port: server.port), ServeLineClient(port: server.port)]
        #expect(server.waitForStderr(containing: "client #3"))
        let fourth = try ServeLineClient(port: server.port)
        #expect(server.waitForStderr(containing: "client #2 127.0.0.1"), "\(server.stderr)")
        #expect(
            server.waitForStderr(containing: "disconnected: 0 lines sent; closed before logging in to make room"),
            "\(server.stderr)")
        #expect(idle[0].line(timeoutMs: 2_000) == nil && idle[0].ended, "the oldest idle one (#2) was closed")
        fourth.send("NICK justinfan4")
        #expect(fourth.lines(until: { $0.contains(" 376 ") }).last == ":tmi.twitch.tv 376 justinfan4 :>")
    }

    @Test(
        "tail over WebSocket, a text frame that is not UTF-8: close 1007, the line before it kept, then a reconnect",
        .timeLimit(.minutes(20)))
    func clientInvalidUTF8() throws {
        let server = try HostilePeer("bad-utf8-server")
        let run = try CLI.run(
            [
                "tail", "c", "--transport", "websocket", "--host", "127.0.0.1", "--port", "\(server.first)",
                "--plain", "--login", "tester", "--format", "json", "--reconnect-base", "0.1",
                "--reconnect-max", "0.2", "--duration", "2",
            ],
            environment: ["CHATCAP_TOKEN": Self.token])
        let closes = server.result().split(separator: "\n")
        #expect(run.status == 0, "\(run.stderr)")
        let failed = HostileServerTests.count(
            run.stderr, "chatcap: disconnected:", "a text message that is not UTF-8", "close code 1007")
        #expect(failed >= 2, "failed, reconnected, failed again: \(run.stderr)")
        #expect(closes.count == failed && closes.allSatisfy { $0 == "close 1007" }, "\(closes)")
        #expect(HostileServerTests.count(run.text, "\"text\":\"fine\"") == failed, "the line before it, each time")
        #expect(!run.text.contains("broken"))
        // The cut line of each (its 37 bytes up to the bad one); past 20 problems they are only counted.
        #expect(
            HostileServerTests.count(run.stderr, "mid-line", "not UTF-8", "37 bytes of a partial line dropped")
                == min(failed, 20),
            "\(run.stderr)")
        #expect(run.stderr.contains("further problems are only counted") == (failed > 20))
    }

    @Test("tail ws:// at a wss:// port: the reset says 'TLS/plain mismatch?', then 69", .timeLimit(.minutes(20)))
    func plainWebSocketAtTLSPort() throws {
        let dir = NSTemporaryDirectory() + "chatcap-wsmismatch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { CLITempDirectory.remove(dir) }
        try TestPKI.make(in: dir)
        let server = try ServeProcess([
            "Fixtures/lines/privmsg.irc", "--port", "0", "--ws-port", "0",
            "--tls-cert", "\(dir)/server.pem", "--tls-key", "\(dir)/server.key",
        ])
        defer { _ = server.stop() }
        let run = try CLI.run([
            "tail", "pixelharbor", "--transport", "websocket", "--plain", "--host", "127.0.0.1",
            "--port", "\(try #require(server.webSocketPort))", "--reconnect-base", "0.1", "--reconnect-max", "0.2",
            "--duration", "1.5",
        ])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(run.stderr.contains("TLS/plain mismatch? the port may expect TLS: drop --plain"), "\(run.stderr)")
    }
}
