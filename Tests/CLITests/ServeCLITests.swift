import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `chatcap serve` end to end: the built binary, real sockets on 127.0.0.1, signals, exit statuses,
/// and weechat as a real IRC client.
@Suite(.serialized, .timeLimit(.minutes(20))) struct ServeCLITests {
    @Test("serve --help documents every option and test switch with a sentence")
    func help() throws {
        let run = try serveRun(["serve", "--help"])
        #expect(run.status == 0)
        // Compared with whitespace runs collapsed: the help is wrapped to the terminal's width.
        let help = run.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for text in [
            "USAGE: chatcap serve [<options>] [<inputs> ...]",
            "--port <port> The port to listen on, 0 to 65535; 0 picks a free one (see the 'listening on' line) "
                + "(default: 6667).",
            "--host <host> The address to listen on. (default: 127.0.0.1)",
            "--ws-port <port> Also serve IRC over WebSocket on this port (0 to 65535; 0 picks a free one), as "
                + "Twitch's irc-ws.chat.twitch.tv does for browser overlays and bots: TLS too with --tls-cert.",
            "--tls-cert <file> PEM certificate chain to serve TLS with (needs --tls-key).",
            "--tls-key <file> PEM private key of the --tls-cert certificate.",
            "--speed <x|max> Pace lines by their timestamps at this many times real time, 0.001 to 1000000, or max for "
                + "as fast as each client reads (default: 1).",
            "--loop Start a channel over when it reaches the end of the log, each pass with fresh message ids.",
            "--from-start Give each client every channel it joins from the log's start, on a timeline of its own, "
                + "instead of the one timeline every client shares.",
            "--keep-time Send tmi-sent-ts and rm-received-ts as recorded instead of rebased to the moment a line is sent.",
            "--ping-interval <seconds> Send PING to each logged-in client this often, in seconds (1–3600; Twitch: "
                + "about 300). (default: 300)",
            "--pong-timeout <seconds> Close a client that has not answered a PING within this many seconds (1–600). "
                + "(default: 10)",
            "--login-timeout <seconds> Close a connection that has not completed the WebSocket upgrade and the IRC "
                + "login within this many seconds of connecting (1–600). (default: 10)",
            "--max-per-address <n> Most connections open at once from one IP address (1–100000); past it a new "
                + "connection replaces the address's oldest one not yet logged in, or is refused. Raise it for a "
                + "local test bed of more bots. (default: 256)",
            "--unknown-channel <empty|refuse> A JOIN of a channel the log does not have: empty joins it with nothing "
                + "to play (said once on stderr); refuse drops the JOIN without an answer, as Twitch does for a channel "
                + "that does not exist. (default: empty)",
            "--reconnect-after <n> Test switch: send RECONNECT to a client after this many replayed lines "
                + "(0 to 1000000000), then close it.",
            "--drop-after <n> Test switch: close a client's connection without a word after this many replayed lines "
                + "(0 to 1000000000).",
            "--stall-after <n> Test switch: after this many replayed lines (0 to 1000000000) stop sending and stop "
                + "answering PING, but keep the connection open.",
            "--refuse-join <channel> Test switch: answer JOIN of this channel with Twitch's msg_channel_suspended "
                + "NOTICE; repeatable.",
            "Exit status: 64 usage error, 66 an input cannot be opened, 74 the address cannot be bound (e.g. the port "
                + "is in use) or the TLS certificate or key cannot be loaded.",
        ] {
            #expect(help.contains(text), "help lacks '\(text)'")
        }
    }

    @Test(
        "prints 'listening on HOST:PORT', replays to a client, reports its lines, and exits 0 on SIGTERM and SIGINT",
        arguments: [SIGTERM, SIGINT])
    func serveAndStop(signal: Int32) throws {
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0", "--speed", "max"])
        #expect(server.listeningLine == "listening on 127.0.0.1:\(server.port)")
        let client = try ServeLineClient(port: server.port)
        client.send(
            "CAP REQ :twitch.tv/tags twitch.tv/commands", "PASS oauth:abcdefsecret", "NICK justinfan123",
            "JOIN #pixelharbor")
        let lines = client.lines(until: { $0.contains(":) hi chat") })
        #expect(lines.filter { $0.contains("PRIVMSG #pixelharbor") }.count == 24)
        #expect(lines.contains(":tmi.twitch.tv 376 justinfan123 :>"))
        client.send("QUIT")
        #expect(server.waitForStderr(containing: "(justinfan123) disconnected: 24 lines sent"), "\(server.stderr)")
        #expect(server.stop(with: signal) == 0, "\(server.stderr)")
        #expect(!server.stderr.contains("abcdefsecret"))
    }

    @Test("--drop-after with --reconnect-after: serve says which of the two each client gets (issue #35)")
    func dropAndReconnectSaid() throws {
        let server = try ServeProcess(
            ["Fixtures/lines/privmsg.irc", "--port", "0", "--drop-after", "7", "--reconnect-after", "3"])
        #expect(
            server.waitForStderr(
                containing: "--drop-after 7 and --reconnect-after 3: each client gets only the one that comes first, "
                    + "a RECONNECT after 3 lines"), "\(server.stderr)")
        #expect(server.stop(with: SIGTERM) == 0, "\(server.stderr)")
    }

    @Test("clients still connected when the server stops are reported with their line counts")
    func stopWithClients() throws {
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0", "--speed", "max"])
        let client = try ServeLineClient(port: server.port)
        client.send("NICK justinfan9", "JOIN #lunafrost")
        _ = client.lines(until: { $0.contains("good morning luna") })
        #expect(server.stop() == 0)
        #expect(
            server.stderr.contains("(justinfan9) disconnected: 1 line sent; the server is stopping"),
            "\(server.stderr)")
        #expect(client.line(timeoutMs: 1_000) == nil && client.ended)
    }

    @Test("bad inputs exit 66, a port in use and a missing certificate exit 74, a lone --tls-cert exits 64")
    func errors() throws {
        let missing = try serveRun(["serve", "/nonexistent/chat.irc", "--port", "0"])
        #expect(missing.status == 66)
        #expect(missing.stderr == "chatcap: error: /nonexistent/chat.irc: no such file or directory\n")

        let first = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0"])
        let busy = try serveRun(["serve", "Fixtures/lines/privmsg.irc", "--port", "\(first.port)"])
        #expect(busy.status == 74)
        #expect(busy.stderr.contains("bind 127.0.0.1:\(first.port): Address already in use"), "\(busy.stderr)")
        #expect(first.stop() == 0)

        let cert = try serveRun([
            "serve", "Fixtures/lines/privmsg.irc", "--port", "0", "--tls-cert", "/nonexistent/c.pem",
            "--tls-key", "/nonexistent/k.pem",
        ])
        #expect(cert.status == 74)
        #expect(cert.stderr.contains("cannot read the certificate file '/nonexistent/c.pem'"), "\(cert.stderr)")

        let lone = try serveRun(["serve", "Fixtures/lines/privmsg.irc", "--tls-cert", "c.pem"])
        #expect(lone.status == 64)
        #expect(lone.stderr.contains("--tls-cert and --tls-key go together"))
        let speed = try serveRun(["serve", "Fixtures/lines/privmsg.irc", "--speed", "fast"])
        #expect(speed.status == 64)
        for (arguments, message) in [
            (["--ping-interval", "0"], "--ping-interval must be in 1...3600 seconds, not 0"),
            (["--ping-interval", "3601"], "--ping-interval must be in 1...3600 seconds, not 3601"),
            (["--pong-timeout", "601"], "--pong-timeout must be in 1...600 seconds, not 601"),
            (["--unknown-channel", "maybe"], "--unknown-channel must be empty or refuse, not 'maybe'"),
            (["--reconnect-grace", "2"], "--reconnect-grace goes with --reconnect-after"),
        ] {
            let run = try serveRun(["serve", "Fixtures/lines/privmsg.irc"] + arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
        }
    }

    @Test("weechat-headless, a real IRC client, logs in, joins and logs every replayed message of the channel")
    func weechat() throws {
        guard let weechat = Self.which("weechat-headless") else {
            Issue.record("weechat-headless is not installed (Debian package weechat-headless; make deps installs it)")
            return
        }
        let expected = try servePrivmsgTexts("privmsg.irc", channel: "pixelharbor")
        #expect(expected.count == 24)
        let server = try ServeProcess(["Fixtures/lines/privmsg.irc", "--port", "0", "--speed", "max"])
        let home = NSTemporaryDirectory() + "chatcap-weechat-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: home) }
        let client = Process()
        client.executableURL = URL(fileURLWithPath: weechat)
        // Only the irc and logger plugins; the logger writes at once (flush_delay 0). WeeChat 3.8 still
        // calls TLS "ssl".
        let commands = [
            "/set logger.file.flush_delay 0",
            "/server add fake 127.0.0.1/\(server.port)",
            "/set irc.server.fake.ssl off",
            "/set irc.server.fake.nicks justinfan123",
            "/set irc.server.fake.autojoin #pixelharbor",
            "/connect fake",
        ]
        client.arguments = ["--dir", home, "--plugins", "irc,logger", "--run-command", commands.joined(separator: ";")]
        client.standardInput = FileHandle.nullDevice
        client.standardOutput = FileHandle.nullDevice
        client.standardError = FileHandle.nullDevice
        try client.run()
        defer {
            // SIGKILL: a child started from a Dispatch worker inherits its blocked signals.
            if client.isRunning { kill(client.processIdentifier, SIGKILL) }
            client.waitUntilExit()
        }
        let logPath = home + "/logs/irc.fake.#pixelharbor.weechatlog"
        var log = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            log = String(decoding: FileManager.default.contents(atPath: logPath) ?? Data(), as: UTF8.self)
            if let last = expected.last, log.contains(last) { break }
            usleep(100_000)
        }
        for text in expected {
            #expect(log.contains(text), "weechat's log lacks '\(text)'")
        }
        #expect(log.contains("justinfan123 (justinfan123@justinfan123.tmi.twitch.tv) has joined #pixelharbor"))
        #expect(!log.contains("good morning luna"), "a line of another channel reached weechat")
        kill(client.processIdentifier, SIGKILL)
        #expect(server.waitForStderr(containing: "(justinfan123) disconnected: 24 lines sent"), "\(server.stderr)")
        #expect(server.stop() == 0)
    }

    private static func which(_ name: String) -> String? {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
