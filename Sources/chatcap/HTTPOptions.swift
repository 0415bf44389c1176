import ArgumentParser

/// `--http-port` and `--http-host`: the one HTTP listener of a command (ChatHTTP's `HTTPListener`).
struct HTTPOptions: ParsableArguments {
    static let portRange = NumberRange(0...65_535)

    @Option(
        name: .customLong("http-port"), parsing: .unconditional,
        help: ArgumentHelp(
            "Also answer HTTP on this port (\(HTTPOptions.portRange.text); 0 picks a free one, see the "
                + "'listening on http://HOST:PORT' line): GET /api/v2/recent-messages/<login>, the recent-messages v2 "
                + "API; capture and tail also GET /metrics (Prometheus) and GET /healthz. capture also answers the "
                + "logs API of chatcap logs over its --dir (docs/logs.md).",
            valueName: "port"),
        transform: { try HTTPOptions.portRange.parse($0) })
    var httpPort: Int?

    @Option(
        name: .customLong("http-host"),
        help: ArgumentHelp(
            "The address the HTTP listener binds (default: 127.0.0.1, this machine only). Any other address "
                + "hands the recent chat of every channel to whoever can reach it, without authentication or "
                + "TLS: put a reverse proxy with TLS and access rules in front instead.",
            valueName: "host"))
    var httpHost: String?

    /// The address to bind: `--http-host`, or loopback.
    var host: String { httpHost ?? "127.0.0.1" }

    func validate() throws {
        if httpHost != nil && httpPort == nil {
            throw ValidationError("--http-host applies only with --http-port")
        }
        if let httpHost, httpHost.isEmpty { throw ValidationError("--http-host needs an address") }
    }
}
