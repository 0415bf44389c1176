import ArgumentParser
import ChatHTTP
import ChatPosix
import ChatServe
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a fake Twitch chat server that plays a log to the clients that join its channels.",
        discussion: """
            Clients log in as on Twitch (CAP, PASS, NICK; any login, e.g. justinfan123) and JOIN channels. \
            The log plays like live chat: it starts at the log's start when the first client joins one of its \
            channels, is paced by the lines' timestamps, and is shared by every client and channel, so a \
            channel joined later, or a client that reconnects, continues from where the log is (a gap, not a \
            rerun); with --from-start each client's JOINs get their channels from the log's start instead. \
            tmi-sent-ts and rm-received-ts are rebased to the moment a line is sent (--keep-time keeps them); \
            capture's time tag and the recording client's own JOIN, names list, USERSTATE and ROOMSTATE are \
            not sent. A client's PRIVMSG reaches the other clients of the channel, and the sender gets a \
            USERSTATE. The server PINGs each client every --ping-interval seconds and closes one that does not \
            answer within --pong-timeout; a connection that has not logged in within --login-timeout is closed, \
            and at most --max-per-address connections are open from one address. See docs/serve.md. On start one line 'listening on HOST:PORT' goes \
            to standard output (with --ws-port a second, 'listening on ws://HOST:PORT', or wss:// with TLS); \
            connections, joins, the end of the log and disconnects (with the lines sent) are reported on \
            standard error. Files are read lazily per timeline, at most half of ulimit -n open at once (inputs \
            not in capture's layout are read once at start, to learn their channels); standard input is read to its end before listening, and held \
            in memory. SIGINT or SIGTERM stops the server (exit 0). Exit status: 64 usage error, 66 an input \
            cannot be opened, 74 the address cannot be bound (e.g. the port is in use) or the TLS \
            certificate or key cannot be loaded.
            """)

    @OptionGroup var http: HTTPOptions

    @Option(
        name: .customLong("http-history"), parsing: .unconditional,
        help: ArgumentHelp(
            "With --http-port: lines kept per channel for GET /api/v2/recent-messages, the last ones serve played, "
                + "\(LiveHTTPOptions.historyRange.text) (default: \(LiveHTTPOptions.defaultHistory), as capture and "
                + "tail; the public service keeps fewer, give 500 to answer as it does).",
            valueName: "n"),
        transform: { try LiveHTTPOptions.historyRange.parse($0) })
    var httpHistory: Int?

    /// serve's earlier name for `--http-history`: refused, naming the new one (`--recent-messages-limit`
    /// now means only the query limit of capture's `--recent-messages`).
    @Option(name: .customLong("recent-messages-limit"), help: .hidden)
    var renamedHistory: String?

    @Argument(
        help: """
            Log files (plain or gzip), capture directories, or - for standard input; any number, at most \
            half of ulimit -n open at once.
            """, completion: .file())
    var inputs: [String] = ["-"]

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(
        parsing: .unconditional,
        help:
            "The port to listen on, \(ServeCommand.portRange.text); 0 picks a free one (see the 'listening on' line) (default: 6667).",
        transform: { try ServeCommand.portRange.parse($0) })
    var port: Int = 6667

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Also serve IRC over WebSocket on this port (0 to 65535; 0 picks a free one), as Twitch's "
                + "irc-ws.chat.twitch.tv does for browser overlays and bots: TLS too with --tls-cert.",
            valueName: "port"))
    var wsPort: Int?

    @Option(
        help: ArgumentHelp("PEM certificate chain to serve TLS with (needs --tls-key).", valueName: "file"),
        completion: .file())
    var tlsCert: String?

    @Option(
        help: ArgumentHelp("PEM private key of the --tls-cert certificate.", valueName: "file"), completion: .file())
    var tlsKey: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Pace lines by their timestamps at this many times real time, \(OptionRanges.speed.text), or max for as fast as each client reads (default: 1).",
            valueName: "x|max"),
        transform: { try Speed.parse($0) })
    var speed = Speed(factor: 1)

    @Flag(help: "Start a channel over when it reaches the end of the log, each pass with fresh message ids.")
    var loop = false

    @Flag(
        help: ArgumentHelp(
            "Give each client every channel it joins from the log's start, on a timeline of its own, instead of "
                + "the one timeline every client shares."))
    var fromStart = false

    @Flag(help: "Send tmi-sent-ts and rm-received-ts as recorded instead of rebased to the moment a line is sent.")
    var keepTime = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Send PING to each logged-in client this often, in seconds (1–3600; Twitch: about 300).",
            valueName: "seconds"))
    var pingInterval: Int = 300

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Close a client that has not answered a PING within this many seconds (1–600).", valueName: "seconds"))
    var pongTimeout: Int = 10

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Close a connection that has not completed the WebSocket upgrade and the IRC login within this many "
                + "seconds of connecting (1–600).", valueName: "seconds"))
    var loginTimeout: Int = 10

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Most connections open at once from one IP address (1–100000); past it a new connection replaces "
                + "the address's oldest one not yet logged in, or is refused. Raise it for a local test bed "
                + "of more bots.", valueName: "n"))
    var maxPerAddress: Int = ServeOptions.defaultMaxConnectionsPerAddress

    @Option(
        help: ArgumentHelp(
            "A JOIN of a channel the log does not have: empty joins it with nothing to play (said once on stderr); "
                + "refuse drops the JOIN without an answer, as Twitch does for a channel that does not exist.",
            valueName: "empty|refuse"), completion: .list(["empty", "refuse"]))
    var unknownChannel: String = "empty"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Test switch: send RECONNECT to a client after this many replayed lines (\(ServeCommand.faultRange.text)), then close it.",
            valueName: "n"),
        transform: { try ServeCommand.faultRange.parse($0) })
    var reconnectAfter: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Test switch, with --reconnect-after: the client sent RECONNECT keeps playing this long "
                + "(\(ServeCommand.graceRange.text) seconds) before it is closed; 0 closes it at once. Twitch sends "
                + "RECONNECT when its server is about to restart and closes the connection some time later (\"after a "
                + "short time\", the length not documented), so a client that opens its replacement at once loses "
                + "nothing.", valueName: "seconds"),
        transform: { try ServeCommand.graceRange.parse($0) })
    var reconnectGrace: Double = 0

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Test switch: close a client's connection without a word after this many replayed lines (\(ServeCommand.faultRange.text)).",
            valueName: "n"),
        transform: { try ServeCommand.faultRange.parse($0) })
    var dropAfter: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Test switch: after this many replayed lines (\(ServeCommand.faultRange.text)) stop sending and stop answering PING, but keep the "
                + "connection open.", valueName: "n"),
        transform: { try ServeCommand.faultRange.parse($0) })
    var stallAfter: Int?

    static let portRange = NumberRange(0...65_535)
    static let faultRange = NumberRange(0...1_000_000_000)
    static let graceRange = NumberRange(0.0...600.0, unit: "seconds")

    @Option(
        name: .customLong("refuse-join"),
        help: ArgumentHelp(
            "Test switch: answer JOIN of this channel with Twitch's msg_channel_suspended NOTICE; repeatable.",
            valueName: "channel"))
    var refusedChannels: [String] = []

    func validate() throws {
        guard !inputs.isEmpty else { throw ValidationError("give at least one input (or - for standard input)") }
        if let wsPort {
            guard (0...65_535).contains(wsPort) else {
                throw ValidationError("--ws-port must be in 0...65535, not \(wsPort)")
            }
            if wsPort == port && port != 0 { throw ValidationError("--ws-port must differ from --port (\(port))") }
        }
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        guard (1...3600).contains(pingInterval) else {
            throw ValidationError("--ping-interval must be in 1...3600 seconds, not \(pingInterval)")
        }
        guard (1...600).contains(pongTimeout) else {
            throw ValidationError("--pong-timeout must be in 1...600 seconds, not \(pongTimeout)")
        }
        guard (1...600).contains(loginTimeout) else {
            throw ValidationError("--login-timeout must be in 1...600 seconds, not \(loginTimeout)")
        }
        guard (1...100_000).contains(maxPerAddress) else {
            throw ValidationError("--max-per-address must be in 1...100000, not \(maxPerAddress)")
        }
        guard UnknownChannelPolicy(rawValue: unknownChannel) != nil else {
            throw ValidationError("--unknown-channel must be empty or refuse, not '\(unknownChannel)'")
        }
        if reconnectGrace > 0 && reconnectAfter == nil {
            throw ValidationError("--reconnect-grace goes with --reconnect-after")
        }
        for channel in refusedChannels where Login.normalize(channel).isEmpty {
            throw ValidationError("--refuse-join needs a channel login, not '\(channel)'")
        }
        try validateHTTP()
    }

    func run() throws {
        ignoreBrokenPipes()
        var options = ServeOptions(
            host: host, port: UInt16(port), speed: speed.factor, loop: loop, fromStart: fromStart,
            keepTime: keepTime, pingIntervalMs: Int64(pingInterval) * 1000,
            pongTimeoutMs: Int64(pongTimeout) * 1000, loginTimeoutMs: Int64(loginTimeout) * 1000,
            maxConnectionsPerAddress: maxPerAddress,
            unknownChannel: UnknownChannelPolicy(rawValue: unknownChannel) ?? .empty,
            webSocketPort: wsPort.map { UInt16($0) })
        if let tlsCert, let tlsKey { options.tls = ServeTLSFiles(certificate: tlsCert, key: tlsKey) }
        options.faults = ServeFaults(
            reconnectAfter: reconnectAfter, dropAfter: dropAfter, stallAfter: stallAfter,
            refusedChannels: Set(refusedChannels.map(Login.normalize)))
        options.faults.reconnectGraceMs = Int64((reconnectGrace * 1000).rounded())
        if http.httpPort != nil { options.httpHistory = httpHistory ?? LiveHTTPOptions.defaultHistory }
        if let drop = dropAfter, let reconnect = reconnectAfter {
            // Both count the same replayed lines: the smaller one always fires first.
            Diagnostics.note(
                "--drop-after \(drop) and --reconnect-after \(reconnect): each client gets only the one that comes "
                    + "first, \(drop < reconnect ? "a drop" : "a RECONNECT") after \(min(drop, reconnect)) lines")
        }
        InputOptions.noteTerminalInput(inputs)
        try InputOptions.refuseBinary(inputs)
        let server: ChatServer
        do {
            server = try ChatServer(arguments: inputs, options: options) { Diagnostics.note($0) }
        } catch {
            Diagnostics.error("\(error)")
            if case .input = error { throw ExitCode(.noInput) }
            throw ExitCode(.ioErr)
        }
        // SIGINT and SIGTERM stop the server, taken by sigwait: no handler runs.
        let handle = server.stopHandle
        Interrupts.onInterrupt { handle.stop() }
        // After the signals are blocked: the listener's thread inherits the mask, so SIGTERM is never
        // delivered to it (and its default action taken).
        let listener = try startHTTP(for: server)
        defer { listener?.stop() }
        Self.printListening(server.address)
        if let webSocket = server.webSocketAddress { Self.printListening(webSocket) }
        if let listener { Self.printListening(listener.url) }
        do {
            try server.run()
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(.ioErr)
        }
    }

    /// Writes `listening on HOST:PORT` to standard output at once (scripts wait for it).
    static func printListening(_ address: String) {
        Diagnostics.write("listening on \(address)\n", to: 1)
    }
}
