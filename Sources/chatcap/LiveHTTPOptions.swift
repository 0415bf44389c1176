import ArgumentParser
import ChatHTTP
import ChatLogStore
import ChatMemory
import ChatRun
import ChatStore

/// capture's and tail's HTTP listener (`--http-port`, `--http-host`), with what only they have: the
/// rings the recent-messages endpoint answers from, and per-channel series on `/metrics`.
struct LiveHTTPOptions: ParsableArguments {
    static let historyRange = NumberRange(1...100_000)
    static let defaultHistory = EntryRing.defaultCapacity

    @OptionGroup var http: HTTPOptions

    @Option(
        name: .customLong("http-history"), parsing: .unconditional,
        help: ArgumentHelp(
            "Lines kept per channel for GET /api/v2/recent-messages, \(LiveHTTPOptions.historyRange.text) "
                + "(default: \(LiveHTTPOptions.defaultHistory)). These rings exist only with --http-port and cost "
                + "memory: the lines as received and their index, about 1.5 MiB per busy channel at 2,500 lines.",
            valueName: "n"),
        transform: { try LiveHTTPOptions.historyRange.parse($0) })
    var httpHistory: Int?

    @Flag(
        name: .customLong("http-channel-metrics"),
        help: ArgumentHelp(
            "Also export lines received per channel on /metrics. Off by default: each channel is a series "
                + "that Prometheus keeps, so thousands of channels make every scrape and the TSDB large."))
    var httpChannelMetrics = false

    func validate() throws {
        guard http.httpPort == nil else { return }
        if httpHistory != nil { throw ValidationError("--http-history applies only with --http-port") }
        if httpChannelMetrics { throw ValidationError("--http-channel-metrics applies only with --http-port") }
    }
}

extension LiveHTTPOptions {
    /// Starts the listener these options ask for (``LiveHTTPService``), or answers `nil` without
    /// `--http-port`; says where it listens on stderr (unless `quiet`). `logsBounds`: capture's bounds
    /// of its listener and of the logs API over `logsDirectory`.
    ///
    /// - Throws: `ExitCode(.ioErr)` (said on stderr) when the address cannot be bound.
    func start(
        command: String, quiet: Bool, budget: MemoryBudget? = nil, logsDirectory: String? = nil,
        logsBounds: LogsBoundsOptions? = nil, logsOptOut: OptOutList = OptOutList()
    ) throws -> LiveHTTPService? {
        guard let port = http.httpPort else { return nil }
        var settings = LiveHTTPService.Settings(
            host: http.host, port: UInt16(port), history: httpHistory ?? Self.defaultHistory,
            channelMetrics: httpChannelMetrics, command: command, version: ChatcapVersion.string)
        settings.logsDirectory = logsDirectory
        settings.logsOptOut = logsOptOut
        if let logsBounds {
            settings.logsBounds = logsBounds.bounds
            settings.maxConnections = logsBounds.maxConnections
            settings.requestTimeout = logsBounds.requestTimeout
        }
        let service: LiveHTTPService
        do { service = try LiveHTTPService(settings, budget: budget) } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(.ioErr)
        }
        if !quiet { Diagnostics.note("listening on \(service.listener.url)") }
        return service
    }
}
