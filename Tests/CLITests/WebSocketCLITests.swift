import ChatTestSupport
import Foundation
import Glibc
import Testing

/// IRC over WebSocket end to end: `tail --transport websocket` against `serve --ws-port` (plain and
/// TLS), two third-party clients from PyPI (the `websockets` package driven by a raw IRC script, and
/// twitchio 2.10 with only its host constant patched) against `serve --ws-port`, and the server
/// dropping or RECONNECTing a WebSocket client. Processes are started and stopped by PID.
@Suite(.serialized, .timeLimit(.minutes(20))) struct WebSocketCLITests {
    static let channel = "pixelharbor"

    /// The `id` tags of the channel's PRIVMSGs in the fixture, in order.
    static func privmsgIDs(_ fixture: String) throws -> [String] {
        FramerVerifier.oracleLines(try Fixtures.bytes("lines/\(fixture)")).compactMap { bytes -> String? in
            let line = String(decoding: bytes, as: UTF8.self)
            guard line.contains(" PRIVMSG #\(channel) :"), line.hasPrefix("@") else { return nil }
            let tags = line.dropFirst().prefix { $0 != " " }.split(separator: ";")
            return tags.first { $0.hasPrefix("id=") }.map { String($0.dropFirst(3)) }
        }
    }

    /// Runs `chatcap tail` for `seconds` and returns what it printed (raw) from the first replayed line of
    /// the log on: the login and JOIN replies before it carry a random nick.
    static func tailLines(_ arguments: [String], seconds: Double) throws -> (CLIRun, [[UInt8]]) {
        let run = try CLI.run(["tail", channel, "--format", "raw", "--duration", "\(seconds)"] + arguments)
        let lines = FramerVerifier.oracleLines(run.stdout)
        let first = try expectedLines()[0]
        return (run, Array(lines[(lines.firstIndex(of: first) ?? lines.count)...]))
    }

    static func isChannelLine(_ bytes: [UInt8]) -> Bool {
        let line = String(decoding: bytes, as: UTF8.self)
        return line.contains(" #\(channel) ") || line.hasSuffix(" #\(channel)")
    }

    /// The fixture's lines of the channel, as bytes without terminators.
    static func expectedLines() throws -> [[UInt8]] {
        FramerVerifier.oracleLines(try Fixtures.bytes("lines/privmsg.irc")).filter(isChannelLine)
    }

    @Test("plain IRC at the WebSocket port: the HTTP answer is one disconnect, not a malformed line per header")
    func plainIRCAtWebSocketPort() throws {
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0", "--ws-port", "0"])
        defer { _ = server.stop() }
        let wsPort = try #require(server.webSocketPort)
        let run = try CLI.run([
            "tail", "pixelharbor", "--host", "127.0.0.1", "--port", "\(wsPort)", "--plain", "--reconnect-base", "0.1",
            "--reconnect-max", "0.2", "--duration", "1.5",
        ])
        #expect(run.status == 69, "\(run.stderr)")
        #expect(!run.stderr.contains("malformed line"), "\(run.stderr)")
    }

    @Test("tail --transport websocket (ws://) gets every served line of its channel byte for byte, as over TCP")
    func plainWebSocket() throws {
        // Two clients one after the other, each compared byte for byte with the log: --from-start (each
        // gets the channel from the log's start) and --keep-time (recorded tmi-sent-ts).
        let server = try ServeProcess([
            "Fixtures/lines/privmsg.irc", "--port", "0", "--ws-port", "0", "--speed", "max", "--from-start",
            "--keep-time",
        ])
        defer { _ = server.stop() }
        let wsPort = try #require(server.webSocketPort)
        #expect(server.webSocketLine == "listening on ws://127.0.0.1:\(wsPort)")
        let expected = try Self.expectedLines()
        #expect(expected.count == 24)

        let (ws, wsLines) = try Self.tailLines(
            ["--transport", "websocket", "--plain", "--host", "127.0.0.1", "--port", "\(wsPort)"], seconds: 2)
        #expect(ws.status == 0, "\(ws.stderr)")
        #expect(wsLines.count == expected.count)
        #expect(wsLines == expected, "byte for byte, in order")
        let (tcp, tcpLines) = try Self.tailLines(
            ["--plain", "--host", "127.0.0.1", "--port", "\(server.port)"], seconds: 2)
        #expect(tcp.status == 0, "\(tcp.stderr)")
        #expect(wsLines == tcpLines, "the same lines as over TCP")
        #expect(server.waitForStderr(containing: "connected (WebSocket)"), "\(server.stderr)")
        #expect(server.waitForStderr(containing: "disconnected: 24 lines sent; the client closed"), "\(server.stderr)")
    }

    @Test("tail --transport websocket over TLS (wss://, the test CA) gets every served line byte for byte")
    func tlsWebSocket() throws {
        let dir = NSTemporaryDirectory() + "chatcap-wss-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { CLITempDirectory.remove(dir) }
        try TestPKI.make(in: dir)
        let server = try ServeProcess([
            "Fixtures/lines/privmsg.irc", "--port", "0", "--ws-port", "0", "--speed", "max", "--keep-time",
            "--tls-cert", "\(dir)/server.pem", "--tls-key", "\(dir)/server.key",
        ])
        defer { _ = server.stop() }
        let wsPort = try #require(server.webSocketPort)
        #expect(server.webSocketLine == "listening on wss://127.0.0.1:\(wsPort)")
        let (run, lines) = try Self.tailLines(
            ["--transport", "websocket", "--host", "127.0.0.1", "--port", "\(wsPort)", "--ca-file", "\(dir)/ca.pem"],
            seconds: 2)
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Self.expectedLines()
        #expect(lines.count == expected.count)
        #expect(lines == expected, "byte for byte, in order")

        // Without the CA the certificate is not trusted: exit 76, as over TCP.
        let untrusted = try CLI.run([
            "tail", Self.channel, "--transport", "websocket", "--host", "127.0.0.1", "--port", "\(wsPort)",
            "--duration", "5",
        ])
        #expect(untrusted.status == 76, "\(untrusted.stderr)")
    }

    @Test("the websockets package (PyPI), a raw IRC client, gets every PRIVMSG of the channel with its id tag")
    func pythonWebsockets() throws {
        try PythonPackages.require()
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0", "--ws-port", "0", "--speed", "max"])
        defer { _ = server.stop() }
        let ids = try Self.privmsgIDs("privmsg.irc")
        #expect(ids.count == 24)
        let output = try PythonPackages.run(
            "Tests/Support/ws_irc_client.py",
            ["ws://127.0.0.1:\(try #require(server.webSocketPort))", Self.channel, "\(ids.count)", "8"])
        let privmsgs = try #require(output["privmsgs"] as? [[String: Any]], "\(output)")
        #expect(privmsgs.compactMap { $0["id"] as? String } == ids)
        #expect(output["subprotocol"] as? String == "irc", "the irc subprotocol is echoed")
        #expect(server.waitForStderr(containing: "(justinfan4242) disconnected: 24 lines sent"), "\(server.stderr)")
        #expect(!server.stderr.contains("notarealtoken"))
    }

    @Test(
        "relay over WebSocket between two websockets (PyPI) clients: bob sees alice's PRIVMSG, alice gets USERSTATE, no echo"
    )
    func relayBetweenThirdPartyClients() throws {
        try PythonPackages.require()
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0", "--ws-port", "0", "--speed", "max"])
        defer { _ = server.stop() }
        let output = try PythonPackages.run(
            "Tests/Support/ws_relay_pair.py",
            ["ws://127.0.0.1:\(try #require(server.webSocketPort))", "relaytest", "10"])
        #expect(output["joined"] as? Bool == true, "\(output)")
        let got = try #require(output["bob_got"] as? String, "\(output)")
        #expect(
            got.hasSuffix(" :alice!alice@alice.tmi.twitch.tv PRIVMSG #relaytest :hello from alice via websockets"),
            "\(got)")
        #expect(got.hasPrefix("@") && got.contains(";id=") && got.contains("tmi-sent-ts="), "Twitch's tags: \(got)")
        #expect(output["alice_userstate"] as? Bool == true, "\(output)")
        #expect(output["alice_echo"] as? Bool == false, "\(output)")
    }

    @Test("twitchio 2.10 (PyPI), only its host constant patched, gets every message of the channel with its id tag")
    func twitchio() throws {
        try PythonPackages.require()
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0", "--ws-port", "0", "--speed", "max"])
        defer { _ = server.stop() }
        let ids = try Self.privmsgIDs("privmsg.irc")
        let output = try PythonPackages.run(
            "Tests/Support/twitchio_client.py",
            ["ws://127.0.0.1:\(try #require(server.webSocketPort))", Self.channel, "\(ids.count)", "10"])
        let received = try #require(output["received"] as? [[String: Any]], "\(output)")
        #expect(received.count == ids.count)
        #expect(received.compactMap { $0["id"] as? String } == ids)
        #expect(received.first?["text"] as? String == "good evening chat, what did I miss?")
        #expect(server.waitForStderr(containing: "(justinfan4343) disconnected: 24 lines sent"), "\(server.stderr)")
    }

    @Test(
        "the server dropping or RECONNECTing a WebSocket client: tail reconnects, rejoins and records a gap",
        arguments: [("--reconnect-after", "RECONNECT"), ("--drop-after", "disconnected: the server closed")])
    func serverFault(option: String, said: String) throws {
        let server = try ServeProcess([
            "Fixtures/lines/privmsg.irc", "--port", "0", "--ws-port", "0", "--speed", "max", option, "5", "--loop",
        ])
        defer { _ = server.stop() }
        let run = try CLI.run([
            "tail", Self.channel, "--transport", "websocket", "--plain", "--host", "127.0.0.1",
            "--port", "\(try #require(server.webSocketPort))", "--format", "json",
            "--reconnect-base", "0.1", "--reconnect-max", "0.2", "--duration", "3",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains(said), "\(run.stderr)")
        let lines = run.text.split(separator: "\n")
        #expect(lines.filter { $0.contains("\"event\":\"joined\"") }.count >= 2, "rejoined")
        #expect(lines.contains { $0.contains("\"type\":\"gap\"") }, "a gap record")
        #expect(server.stderr.contains("connected (WebSocket)"))
    }

    @Test("usage: --transport websocket --plain needs --port (Twitch serves no plain WebSocket); --help says so")
    func usage() throws {
        let run = try CLI.run(["tail", "c", "--transport", "websocket", "--plain"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--transport websocket --plain needs --port"), "\(run.stderr)")
        let bad = try CLI.run(["tail", "c", "--transport", "udp"])
        #expect(bad.status == 64)
        let help = try CLI.run(["tail", "--help"]).text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(
            help.contains("--transport <tcp|websocket> How IRC travels: tcp (irc.chat.twitch.tv:6697) or websocket"))
        let serveHelp = try CLI.run(["serve", "--help"]).text.split(whereSeparator: \.isWhitespace).joined(
            separator: " ")
        #expect(serveHelp.contains("--ws-port <port> Also serve IRC over WebSocket on this port"))
        let same = try CLI.run(["serve", "Fixtures/lines/privmsg.irc", "--port", "7000", "--ws-port", "7000"])
        #expect(same.status == 64 && same.stderr.contains("--ws-port must differ from --port"))
    }
}

/// The PyPI packages the WebSocket client tests run (`websockets`, `twitchio==2.10.0`): `make deps`
/// installs them; a test installs them itself (pip, user site) when they are missing.
enum PythonPackages {
    static let pins = ["websockets", "twitchio==2.10.0"]
    static let check = "import websockets, twitchio; assert twitchio.__version__ == '2.10.0'"

    static func require() throws {
        if try CLI.shell("python3 -c \"\(check)\" 2>/dev/null").status == 0 { return }
        let install = try CLI.shell("python3 -m pip install -q --user \(pins.joined(separator: " ")) 2>&1")
        guard try CLI.shell("python3 -c \"\(check)\"").status == 0 else {
            throw ServeCLIFailure(description: "cannot install \(pins) from PyPI: \(install.text.suffix(2000))")
        }
    }

    /// Runs `python3 script arguments…` (a client that stops by itself), waits at most 30 s, and
    /// parses the JSON object it prints last.
    static func run(_ script: String, _ arguments: [String]) throws -> [String: Any] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixtures.root + "/" + script] + arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        nonisolated(unsafe) var data = Data()
        let reader = Thread { data = out.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        while !reader.isFinished { usleep(5_000) }
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let last = String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? ""
        guard let object = try? JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any] else {
            throw ServeCLIFailure(description: "\(script) printed no JSON: \(last) \(errors.suffix(2000))")
        }
        return object
    }
}
