import ArgumentParser
import ChatLive
import ChatNet
import TwitchSession

/// Where and as whom to connect, shared by the live commands.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "Server host.")
    var host = "irc.chat.twitch.tv"

    @Option(help: "Server port (default 6697 with TLS, 6667 with --plain).")
    var port: UInt16?

    @Flag(help: "Connect without TLS.")
    var plain = false

    @Option(help: "Trust this CA bundle (PEM) instead of the system's, e.g. for a test server.")
    var caFile: String?

    @Flag(help: "Do not verify the server's certificate (said loudly on stderr; for tests only).")
    var insecure = false

    @Option(help: "Read the OAuth token from this file (mode 600). Without it, CHATCAP_TOKEN is used, else an anonymous login.")
    var tokenFile: String?

    @Option(help: "Login for the OAuth token (default: CHATCAP_LOGIN).")
    var login: String?

    @Option(help: "Stop after this many seconds (default: run until interrupted).")
    var duration: Double?

    @Option(help: "Send our own PING after this many seconds without a line.")
    var idleTimeout: Double = 60

    @Option(help: "Treat the connection as dead when our PING gets no answer within this many seconds.")
    var pongTimeout: Double = 10

    @Option(help: "First reconnect delay in seconds; doubles up to --reconnect-max (with jitter).")
    var reconnectBase: Double = 1

    @Option(help: "Longest reconnect delay in seconds.")
    var reconnectMax: Double = 60

    @Option(help: "Seconds a connection must stay up before the reconnect delay starts again from --reconnect-base.")
    var healthyAfter: Double = 60

    func validate() throws {
        if plain && (caFile != nil || insecure) { throw ValidationError("--ca-file and --insecure need TLS (drop --plain)") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        for (name, value) in [("--idle-timeout", idleTimeout), ("--pong-timeout", pongTimeout),
                              ("--reconnect-base", reconnectBase), ("--reconnect-max", reconnectMax),
                              ("--healthy-after", healthyAfter)] where !(value > 0 && value.isFinite) {
            throw ValidationError("\(name) must be a positive number of seconds")
        }
        if reconnectMax < reconnectBase { throw ValidationError("--reconnect-max must be at least --reconnect-base") }
    }

    var settings: ConnectionSettings {
        var s = ConnectionSettings()
        s.idleTimeoutMs = Int64(idleTimeout * 1000)
        s.pongTimeoutMs = Int64(pongTimeout * 1000)
        s.backoff = BackoffPolicy(
            baseMs: Int64(reconnectBase * 1000), capMs: Int64(reconnectMax * 1000), healthyAfterMs: Int64(healthyAfter * 1000))
        return s
    }

    var endpoint: Endpoint {
        Endpoint(host: host, port: port, tls: plain ? nil : TLSConfiguration(caFile: caFile, insecure: insecure))
    }

    /// The credentials, or a clear error (exit 64) for a bad token file. The token never reaches argv.
    func credentials() throws -> Credentials {
        do {
            return try Credentials.resolve(tokenFile: tokenFile, login: login)
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(64)
        }
    }
}
