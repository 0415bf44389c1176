public import ArgumentParser
public import ChatLive
import ChatNet
import ChatPosix
import ChatRun
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

extension Endpoint.Transport: ExpressibleByArgument {}

/// Where and as whom to connect, shared by the live commands.
///
/// Every numeric option has a range (in its help, enforced by its parser): every time in seconds
/// becomes whole milliseconds far from `Int64` overflow, whatever the session adds it to.
struct ConnectionOptions: ParsableArguments {
    static let portRange = NumberRange(1...65_535)
    static let idleTimeoutRange = NumberRange(0.1...86_400.0, unit: "seconds")
    static let pongTimeoutRange = NumberRange(0.1...86_400.0, unit: "seconds")
    static let reconnectRange = NumberRange(0.01...3_600.0, unit: "seconds")
    static let healthyAfterRange = NumberRange(0.01...86_400.0, unit: "seconds")
    static let joinRateRange = NumberRange(1...10_000)
    static let channelsPerConnectionRange = NumberRange(1...ConnectionSettings.maxChannelsPerConnection)
    static let connectIntervalRange = NumberRange(0...3_600.0, unit: "seconds")

    @Option(
        help: ArgumentHelp(
            "How IRC travels: tcp (irc.chat.twitch.tv:6697) or websocket (wss://irc-ws.chat.twitch.tv:443, "
                + "RFC 6455, as browser overlays connect).", valueName: "tcp|websocket"))
    var transport: Endpoint.Transport = .tcp

    @Option(help: "Server host (default irc.chat.twitch.tv, or irc-ws.chat.twitch.tv with --transport websocket).")
    var host: String?

    @Option(
        parsing: .unconditional,
        help:
            "Server port, \(ConnectionOptions.portRange.text) (default 6697 with TLS, 6667 with --plain; 443 for websocket, which with --plain needs a port).",
        transform: { try ConnectionOptions.portRange.parse($0) })
    var port: Int?

    @Flag(help: "Connect without TLS (websocket: ws:// instead of wss://).")
    var plain = false

    @Option(help: "Trust this CA bundle (PEM) instead of the system's, e.g. for a test server.", completion: .file())
    var caFile: String?

    @Flag(help: "Do not verify the server's certificate (said loudly on stderr; for tests only).")
    var insecure = false

    @Flag(help: "Retry with back-off when the server's certificate fails verification, instead of exiting 76.")
    var retryTls = false

    @Option(
        help:
            "Read the OAuth token from this file (mode 600). Without it, CHATCAP_TOKEN is used, else an anonymous login.",
        completion: .file())
    var tokenFile: String?

    @Option(help: "Login for the OAuth token (default: CHATCAP_LOGIN).")
    var login: String?

    @Option(
        parsing: .unconditional,
        help: "Stop after this many seconds, \(OptionRanges.duration.text) (default: run until interrupted).",
        transform: { try OptionRanges.duration.parse($0) })
    var duration: Double?

    @Option(
        parsing: .unconditional,
        help:
            "Send our own PING after this many seconds without a line, \(ConnectionOptions.idleTimeoutRange.text) (default: 60).",
        transform: { try ConnectionOptions.idleTimeoutRange.parse($0) })
    var idleTimeout: Double = 60

    /// Whether an option names a server or a way to it (`--host`, `--port`, `--plain`, `--ca-file`,
    /// `--insecure`, `--transport websocket`): then `watch` takes its arguments as channels, even
    /// where a file of that name exists.
    var namesServer: Bool {
        host != nil || port != nil || plain || caFile != nil || insecure || transport != .tcp
    }

    @Option(
        parsing: .unconditional,
        help:
            "Treat the connection as dead when our PING gets no answer within this many seconds, \(ConnectionOptions.pongTimeoutRange.text) (default: 10).",
        transform: { try ConnectionOptions.pongTimeoutRange.parse($0) })
    var pongTimeout: Double = 10

    @Option(
        parsing: .unconditional,
        help:
            "First reconnect delay in seconds, \(ConnectionOptions.reconnectRange.text); doubles up to --reconnect-max (with jitter) (default: 1).",
        transform: { try ConnectionOptions.reconnectRange.parse($0) })
    var reconnectBase: Double = 1

    @Option(
        parsing: .unconditional,
        help:
            "Longest reconnect delay in seconds, \(ConnectionOptions.reconnectRange.text) and at least --reconnect-base (default: 60).",
        transform: { try ConnectionOptions.reconnectRange.parse($0) })
    var reconnectMax: Double = 60

    @Option(
        parsing: .unconditional,
        help:
            "Seconds a connection must stay up before the reconnect delay starts again from --reconnect-base, \(ConnectionOptions.healthyAfterRange.text) (default: 60).",
        transform: { try ConnectionOptions.healthyAfterRange.parse($0) })
    var healthyAfter: Double = 60

    @Option(
        help: "Also join the channels in this file: one login per line; blank lines and # comments are ignored.",
        completion: .file())
    var channelsFile: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "JOINs per 10 seconds, shared by all connections, \(ConnectionOptions.joinRateRange.text) (default 20 with a token, 40 anonymous).",
            discussion: """
                Twitch documents 20 join attempts per 10 s per user for a normal account (2,000 for a \
                verified bot), counted across connections. Anonymous logins are not held to that (each \
                connection is its own user), but Twitch drops connections from an IP address that sends \
                more than about 50 JOINs and logins per 10 s: 40 leaves room for reconnects.
                """),
        transform: { try ConnectionOptions.joinRateRange.parse($0) })
    var joinRate: Int?

    @Option(
        parsing: .unconditional,
        help:
            "Most channels per connection, \(ConnectionOptions.channelsPerConnectionRange.text); more channels open more connections (default: 90).",
        transform: { try ConnectionOptions.channelsPerConnectionRange.parse($0) })
    var channelsPerConnection = ConnectionSettings.maxChannelsPerConnection

    @Option(
        parsing: .unconditional,
        help:
            "Seconds between opening the connections of a pool, \(ConnectionOptions.connectIntervalRange.text) (Twitch allows 20 logins per 10 s per user) (default: 2).",
        transform: { try ConnectionOptions.connectIntervalRange.parse($0) })
    var connectInterval: Double = 2

    func validate() throws {
        if transport == .websocket && plain && port == nil {
            throw ValidationError(
                "--transport websocket --plain needs --port: Twitch no longer serves plain WebSocket "
                    + "(ws://irc-ws.chat.twitch.tv:80); give the port of your server (e.g. chatcap serve --ws-port)")
        }
        if plain && (caFile != nil || insecure || retryTls) {
            throw ValidationError("--ca-file, --insecure and --retry-tls need TLS (drop --plain)")
        }
        // Each number is in its range already (its parser checks it); what is left relates two.
        if reconnectMax < reconnectBase { throw ValidationError("--reconnect-max must be at least --reconnect-base") }
        if let channelsFile, try Self.read(channelsFile).isEmpty {
            throw ValidationError("--channels-file: \(channelsFile) lists no channel")
        }
    }

    /// The channels named on the command line followed by those of `--channels-file`.
    ///
    /// - Throws: `ValidationError` (exit 64) for a login that is not valid, with `file:line`.
    func channels(_ arguments: [String]) throws -> [String] {
        for c in arguments where !Login.isValid(Login.normalize(c)) {
            throw ValidationError("'\(c)' is not a channel login (\(Login.whyInvalid(Login.normalize(c))))")
        }
        return arguments + (try channelsFile.map(Self.read) ?? [])
    }

    /// The logins of the channels file at `path` (``ChannelsFile``), a failure said as a usage error (64).
    static func read(_ path: String) throws -> [String] {
        do throws(ChannelsFile.Failure) { return try ChannelsFile.read(path) } catch {
            throw ValidationError(error.description)
        }
    }

    /// What a live run connects to: `channels`, logged in with `credentials`, `--duration`, and
    /// `backfill`'s `--recent-messages` service.
    func live(_ channels: [String], credentials: Credentials, backfill: RecentMessagesOptions) -> LiveConnection {
        var live = LiveConnection(
            channels: channels, credentials: credentials, endpoint: endpoint, settings: settings(for: credentials))
        live.recentMessages = backfill.source(self)
        live.durationMs = duration.map { Seconds.milliseconds($0) }
        live.durationText = durationText
        return live
    }

    /// The connection settings for logging in with `credentials` (the JOIN pace depends on it).
    func settings(for credentials: Credentials) -> ConnectionSettings {
        var s = ConnectionSettings()
        s.joinLimit = joinRate ?? ConnectionSettings.defaultJoinLimit(for: credentials)
        s.channelsPerConnection = channelsPerConnection
        s.connectSpacingMs = Seconds.milliseconds(connectInterval)
        s.idleTimeoutMs = Seconds.milliseconds(idleTimeout)
        s.pongTimeoutMs = Seconds.milliseconds(pongTimeout)
        s.retryCertificateErrors = retryTls
        s.backoff = BackoffPolicy(
            baseMs: Seconds.milliseconds(reconnectBase), capMs: Seconds.milliseconds(reconnectMax),
            healthyAfterMs: Seconds.milliseconds(healthyAfter))
        return s
    }

    /// When `--duration` ends, counted from `start` (monotonic milliseconds); `nil` without it.
    func deadline(from start: Int64) -> Int64? { duration.map { start + Seconds.milliseconds($0) } }

    /// `--duration` as given, for messages: `22 s`, `0.5 s` (empty without it).
    var durationText: String {
        guard let duration else { return "" }
        return (duration == duration.rounded() && abs(duration) < 1e15 ? "\(Int(duration))" : "\(duration)") + " s"
    }

    var endpoint: Endpoint {
        Endpoint(
            host: host, port: port.map { UInt16($0) },
            tls: plain ? nil : TLSConfiguration(caFile: caFile, insecure: insecure), transport: transport)
    }

    /// The credentials, or a clear error (exit 64) for a bad token file. The token never reaches argv.
    /// Warns when the token would travel unencrypted (`--plain` to a host other than loopback).
    /// Also checks that `--ca-file` can be read (exit 66, like any input that cannot be opened).
    func credentials() throws -> Credentials {
        if let caFile, !plain {
            let fd = open(caFile, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else {
                Diagnostics.error("--ca-file \(caFile): \(String(cString: strerror(errno)))")
                throw ExitCode(.noInput)
            }
            close(fd)
        }
        let credentials: Credentials
        do {
            credentials = try Credentials.resolve(tokenFile: tokenFile, login: login)
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(.usage)
        }
        if let warning = endpoint.cleartextTokenWarning(for: credentials) { Diagnostics.warning(warning) }
        return credentials
    }

    /// What the live commands say about their exit statuses (sysexits), for `--help`.
    static let exitStatusHelp = """
        Exit status: 0 stopped (--duration, SIGINT, SIGTERM), 64 usage error or unusable token file, \
        66 a --ca-file that cannot be read, 69 (EX_UNAVAILABLE) stopped without ever \
        having reached the server's chat (every attempt failed), 70 (EX_SOFTWARE) the session or its \
        event loop gave up for another reason (said on stderr), \
        76 (EX_PROTOCOL) the server's TLS certificate failed verification (untrusted or for another \
        name; --retry-tls retries instead), 77 (EX_NOPERM) the server rejected the login
        """

    /// What `tail` and `capture` add to ``exitStatusHelp``: a run that joined nothing is unavailable too.
    static let noChannelJoinedHelp = """
        69 (EX_UNAVAILABLE) also when no channel was ever joined (the server confirmed no JOIN)
        """

    /// Ends a live command whose session never got a working connection: exit 69 (EX_UNAVAILABLE),
    /// with the last reason on stderr.
    func exitUnreached(_ last: DisconnectReason?) throws -> Never {
        let reason = last.map { ": \($0)" } ?? ""
        Diagnostics.error("never reached the chat of \(endpoint.description)\(reason)")
        throw ExitCode(.unavailable)
    }

    /// Ends a live command that reached the chat but never had a JOIN confirmed (every channel
    /// refused, unanswered, or the run stopped first): exit 69 (EX_UNAVAILABLE), said on stderr, as
    /// an empty capture must not look like a quiet chat.
    func exitNoneJoined(asked: Int) throws -> Never {
        Diagnostics.error(
            "no channel was joined: \(endpoint.description) never confirmed a JOIN "
                + "(\(asked) channel\(asked == 1 ? "" : "s") asked for)")
        throw ExitCode(.unavailable)
    }

    /// Ends a live command whose session gave up: the reason's message on stderr and its exit
    /// status (see ``exitStatusHelp``).
    static func exit(failure: DisconnectReason?, message: String) throws -> Never {
        switch failure {
        case .certificateRejected:
            Diagnostics.error(message + " (--retry-tls keeps retrying)")
            throw ExitCode(.protocol)
        case .authenticationFailed:
            Diagnostics.error(message)
            throw ExitCode(.noPerm)
        default:
            Diagnostics.error(message)
            throw ExitCode(.software)
        }
    }
}
