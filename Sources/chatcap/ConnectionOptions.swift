public import ArgumentParser
public import ChatLive
import ChatNet
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

extension Endpoint.Transport: ExpressibleByArgument {}

/// Where and as whom to connect, shared by the live commands.
struct ConnectionOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "How IRC travels: tcp (irc.chat.twitch.tv:6697) or websocket (wss://irc-ws.chat.twitch.tv:443, "
                + "RFC 6455, as browser overlays connect).", valueName: "tcp|websocket"))
    var transport: Endpoint.Transport = .tcp

    @Option(help: "Server host (default irc.chat.twitch.tv, or irc-ws.chat.twitch.tv with --transport websocket).")
    var host: String?

    @Option(
        help:
            "Server port (default 6697 with TLS, 6667 with --plain; 443 for websocket, which with --plain needs a port)."
    )
    var port: UInt16?

    @Flag(help: "Connect without TLS (websocket: ws:// instead of wss://).")
    var plain = false

    @Option(help: "Trust this CA bundle (PEM) instead of the system's, e.g. for a test server.")
    var caFile: String?

    @Flag(help: "Do not verify the server's certificate (said loudly on stderr; for tests only).")
    var insecure = false

    @Flag(help: "Retry with back-off when the server's certificate fails verification, instead of exiting 76.")
    var retryTls = false

    @Option(
        help:
            "Read the OAuth token from this file (mode 600). Without it, CHATCAP_TOKEN is used, else an anonymous login."
    )
    var tokenFile: String?

    @Option(help: "Login for the OAuth token (default: CHATCAP_LOGIN).")
    var login: String?

    @Option(help: "Stop after this many seconds (default: run until interrupted).")
    var duration: Double?

    @Option(help: "Send our own PING after this many seconds without a line.")
    var idleTimeout: Double = 60

    /// Whether an option names a server or a way to it (`--host`, `--port`, `--plain`, `--ca-file`,
    /// `--insecure`, `--transport websocket`): then `watch` takes its arguments as channels, even
    /// where a file of that name exists.
    var namesServer: Bool {
        host != nil || port != nil || plain || caFile != nil || insecure || transport != .tcp
    }

    @Option(help: "Treat the connection as dead when our PING gets no answer within this many seconds.")
    var pongTimeout: Double = 10

    @Option(help: "First reconnect delay in seconds; doubles up to --reconnect-max (with jitter).")
    var reconnectBase: Double = 1

    @Option(help: "Longest reconnect delay in seconds.")
    var reconnectMax: Double = 60

    @Option(help: "Seconds a connection must stay up before the reconnect delay starts again from --reconnect-base.")
    var healthyAfter: Double = 60

    @Option(help: "Also join the channels in this file: one login per line; blank lines and # comments are ignored.")
    var channelsFile: String?

    @Option(
        help: ArgumentHelp(
            "JOINs per 10 seconds, shared by all connections (default 20 with a token, 40 anonymous).",
            discussion: """
                Twitch documents 20 join attempts per 10 s per user for a normal account (2,000 for a \
                verified bot), counted across connections. Anonymous logins are not held to that (each \
                connection is its own user), but Twitch drops connections from an IP address that sends \
                more than about 50 JOINs and logins per 10 s: 40 leaves room for reconnects.
                """))
    var joinRate: Int?

    @Option(help: "Most channels per connection; more channels open more connections (1 to 90).")
    var channelsPerConnection = ConnectionSettings.maxChannelsPerConnection

    @Option(help: "Seconds between opening the connections of a pool (Twitch allows 20 logins per 10 s per user).")
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
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        for (name, value) in [
            ("--idle-timeout", idleTimeout), ("--pong-timeout", pongTimeout),
            ("--reconnect-base", reconnectBase), ("--reconnect-max", reconnectMax),
            ("--healthy-after", healthyAfter),
        ] where !(value > 0 && value.isFinite) {
            throw ValidationError("\(name) must be a positive number of seconds")
        }
        if reconnectMax < reconnectBase { throw ValidationError("--reconnect-max must be at least --reconnect-base") }
        if let joinRate, !(1...10_000).contains(joinRate) { throw ValidationError("--join-rate must be 1 to 10000") }
        guard (1...ConnectionSettings.maxChannelsPerConnection).contains(channelsPerConnection) else {
            throw ValidationError(
                "--channels-per-connection must be 1 to \(ConnectionSettings.maxChannelsPerConnection)")
        }
        guard connectInterval >= 0 && connectInterval.isFinite else {
            throw ValidationError("--connect-interval must be a number of seconds, 0 or more")
        }
        if let channelsFile, try ChannelsFile.read(channelsFile).isEmpty {
            throw ValidationError("--channels-file: \(channelsFile) lists no channel")
        }
    }

    /// The channels named on the command line followed by those of `--channels-file`.
    ///
    /// - Throws: `ValidationError` (exit 64) for a login that is not valid, with `file:line`.
    func channels(_ arguments: [String]) throws -> [String] {
        for c in arguments where !Login.isValid(Login.normalize(c)) {
            throw ValidationError("'\(c)' is not a channel login (letters, digits and _)")
        }
        return arguments + (try channelsFile.map(ChannelsFile.read) ?? [])
    }

    /// The connection settings for logging in with `credentials` (the JOIN pace depends on it).
    func settings(for credentials: Credentials) -> ConnectionSettings {
        var s = ConnectionSettings()
        s.joinLimit = joinRate ?? ConnectionSettings.defaultJoinLimit(for: credentials)
        s.channelsPerConnection = channelsPerConnection
        s.connectSpacingMs = Int64(connectInterval * 1000)
        s.idleTimeoutMs = Int64(idleTimeout * 1000)
        s.pongTimeoutMs = Int64(pongTimeout * 1000)
        s.retryCertificateErrors = retryTls
        s.backoff = BackoffPolicy(
            baseMs: Int64(reconnectBase * 1000), capMs: Int64(reconnectMax * 1000),
            healthyAfterMs: Int64(healthyAfter * 1000))
        return s
    }

    var endpoint: Endpoint {
        Endpoint(
            host: host, port: port, tls: plain ? nil : TLSConfiguration(caFile: caFile, insecure: insecure),
            transport: transport)
    }

    /// The credentials, or a clear error (exit 64) for a bad token file. The token never reaches argv.
    /// Warns when the token would travel unencrypted (`--plain` to a host other than loopback).
    /// Also checks that `--ca-file` can be read (exit 66, like any input that cannot be opened).
    func credentials() throws -> Credentials {
        if let caFile, !plain {
            let fd = open(caFile, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else {
                Diagnostics.error("--ca-file \(caFile): \(String(cString: strerror(errno)))")
                throw ExitCode(66)
            }
            close(fd)
        }
        let credentials: Credentials
        do {
            credentials = try Credentials.resolve(tokenFile: tokenFile, login: login)
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(64)
        }
        if let warning = endpoint.cleartextTokenWarning(for: credentials) { Diagnostics.warning(warning) }
        return credentials
    }

    /// What the live commands say about their exit statuses (sysexits), for `--help`.
    static let exitStatusHelp = """
        Exit status: 0 stopped (--duration, SIGINT, SIGTERM), 64 usage error or unusable token file, \
        66 a --ca-file that cannot be read, 69 (EX_UNAVAILABLE) stopped without ever \
        having reached the server's chat (every attempt failed), \
        76 (EX_PROTOCOL) the server's TLS certificate failed verification (untrusted or for another \
        name; --retry-tls retries instead), 77 (EX_NOPERM) the server rejected the login
        """

    /// Ends a live command whose session never got a working connection: exit 69 (EX_UNAVAILABLE),
    /// with the last reason on stderr.
    func exitUnreached(_ last: DisconnectReason?) throws -> Never {
        let reason = last.map { ": \($0)" } ?? ""
        Diagnostics.error("never reached the chat of \(endpoint.description)\(reason)")
        throw ExitCode(69)
    }

    /// Ends a live command whose session gave up: the reason's message on stderr and its exit
    /// status (see ``exitStatusHelp``).
    static func exit(failure: DisconnectReason?, message: String) throws -> Never {
        switch failure {
        case .certificateRejected:
            Diagnostics.error(message + " (--retry-tls keeps retrying)")
            throw ExitCode(76)
        case .authenticationFailed:
            Diagnostics.error(message)
            throw ExitCode(77)
        default:
            Diagnostics.error(message)
            throw ExitCode(70)
        }
    }
}
