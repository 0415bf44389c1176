import ArgumentParser
import ChatFormat
import ChatInput
import ChatLoad
import ChatPosix
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

struct LoadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Ship a capture directory into ClickHouse and keep following it.",
        discussion: """
            Reads DIR/<channel>/*.log.gz and INSERTs one row per line into the table of \
            docs/clickhouse.sql over ClickHouse's HTTP interface, in gzip-compressed batches, following the \
            files capture is still writing; capture's own records in DIR/_session (gaps and their backfill, \
            start and stop, joins and parts) go to --records-table. Before the first INSERT into a table, its \
            columns are checked: a table made before a column load sends (historical) is named with the ALTER \
            that adds it. Per file, the offset after the last line ClickHouse acknowledged \
            is kept in DIR/_load/<host>_<port>_<table>.progress (written atomically after each INSERT), so a \
            restart goes on where the last acknowledged batch ended: a crash or an outage loses nothing and \
            at worst sends a batch again, which the table's ReplacingMergeTree key collapses. While ClickHouse \
            is unreachable or busy, the batch is retried with back-off (up to --retry-max seconds apart). \
            Credentials go in the URL (http://user:password@host:8123/) or, better, the password in \
            CHATCAP_CLICKHOUSE_PASSWORD; messages show the URL with the password as ***. SIGINT/SIGTERM send \
            what is pending once more and exit 0. Details: docs/scale.md.

            Exit status: 0 stopped or (--once) everything loaded, 64 usage error, 65 ClickHouse refused the \
            rows, 66 DIR cannot be read or is not a capture directory, 74 the progress cannot be written, 75 \
            another load of DIR into the same table is running or (--once) ClickHouse stayed unreachable for \
            --give-up-after seconds, 77 ClickHouse refused the credentials, 78 the table, database or a \
            column does not exist.
            """)

    enum StatusMode: String, ExpressibleByArgument, CaseIterable {
        case auto, json, none
    }

    @Argument(help: "The capture directory (as written by chatcap capture --dir).", completion: .directory)
    var dir: String

    @Option(
        help: ArgumentHelp(
            "ClickHouse's HTTP interface, e.g. http://127.0.0.1:8123/ (http or https; settings may follow ?).",
            valueName: "url"))
    var clickhouse: String

    @Option(help: "The table to INSERT into: table or database.table (letters, digits, _).")
    var table = "chat.lines"

    @Option(
        help: ArgumentHelp(
            "The table for capture's records (DIR/_session: gaps, start and stop, joins and parts): table, "
                + "database.table or none (default: records in --table's database, chat.records).",
            valueName: "table"))
    var recordsTable: String?

    @Option(
        help: ArgumentHelp(
            "The table's time columns: datetime (time and received in seconds plus time_ms and received_ms: "
                + "docs/clickhouse.sql, ClickHouse 18.16 and later) or datetime64 (DateTime64(3) time and received, "
                + "no _ms columns: docs/clickhouse-current.sql, 20.1 and later).",
            valueName: "columns"))
    var times: ClickHouseRow.Times = .datetime

    @Option(
        parsing: .unconditional, help: "Most rows per INSERT, \(Self.batchRowsRange.text) (default: 20000).",
        transform: { try Self.batchRowsRange.parse($0) })
    var batchRows = 20_000

    @Option(
        parsing: .unconditional,
        help:
            "Seconds the first row of a batch waits for more before the batch is sent, \(Self.batchDelayRange.text) (default: 1).",
        transform: { try Self.batchDelayRange.parse($0) })
    var batchDelay: Double = 1

    @Option(
        parsing: .unconditional,
        help:
            "Most capture files open at once, \(CaptureCommand.maxOpenFilesRange.text); finished ones are closed (default: 256).",
        transform: { try CaptureCommand.maxOpenFilesRange.parse($0) })
    var maxOpenFiles = 256

    @Option(
        parsing: .unconditional,
        help:
            "Longest pause in seconds between two attempts while ClickHouse is unreachable, \(Self.retryMaxRange.text) (default: 5).",
        transform: { try Self.retryMaxRange.parse($0) })
    var retryMax: Double = 5

    @Option(
        parsing: .unconditional,
        help:
            "Seconds an INSERT may take before it counts as failed and is retried, \(Self.timeoutRange.text) (default: 60).",
        transform: { try Self.timeoutRange.parse($0) })
    var timeout: Double = 60

    static let batchRowsRange = NumberRange(1...1_000_000)
    static let batchDelayRange = NumberRange(0.05...60.0, unit: "seconds")
    static let retryMaxRange = NumberRange(0.1...300.0, unit: "seconds")
    static let timeoutRange = NumberRange(1.0...3600.0, unit: "seconds")

    @Flag(help: "Load what the files hold now, then exit (instead of following them).")
    var once = false

    @Option(
        parsing: .unconditional,
        help:
            "With --once: exit 75 once ClickHouse has stayed unreachable or busy this many seconds, \(Self.giveUpAfterRange.text) (default: 60).",
        transform: { try Self.giveUpAfterRange.parse($0) })
    var giveUpAfter: Double?

    static let giveUpAfterRange = NumberRange(0.1...86_400.0, unit: "seconds")

    @Option(
        help:
            "Status on stderr: auto (a status line when stderr is a terminal), json (one object every --status-interval seconds) or none."
    )
    var status: StatusMode = .auto

    @Option(
        parsing: .unconditional,
        help: "Seconds between JSON status objects, \(CaptureCommand.statusIntervalRange.text) (default: 10).",
        transform: { try CaptureCommand.statusIntervalRange.parse($0) })
    var statusInterval: Double?

    @Flag(help: "Print no status and no notes on stderr (errors still).")
    var quiet = false

    func validate() throws {
        guard ClickHouseEndpoint.isPlainTableName(table) else {
            throw ValidationError("--table must be table or database.table of letters, digits and _ (got '\(table)')")
        }
        if let recordsTable, recordsTable != "none", !ClickHouseEndpoint.isPlainTableName(recordsTable) {
            throw ValidationError(
                "--records-table must be table, database.table or none, of letters, digits and _ (got '\(recordsTable)')"
            )
        }
        do { _ = try ClickHouseEndpoint(parsing: clickhouse) } catch { throw ValidationError(error.description) }
        try NoOpChecks.statusInterval(statusInterval, json: status == .json)
        if giveUpAfter != nil && !once {
            throw ValidationError("--give-up-after applies only with --once (without it, load retries until stopped)")
        }
    }

    func run() throws {
        ignoreBrokenPipes()
        var info = stat()
        guard stat(dir, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            Diagnostics.error("\(dir): not a readable directory")
            throw ExitCode(.noInput)
        }
        // Checked before DIR/_load/ is made: a wrong directory is left as it was.
        let isCapture: Bool
        do throws(InputError) { isCapture = try CaptureScan.isCapture(dir) } catch { throw Self.exit(.input(error)) }
        guard isCapture else {
            Diagnostics.error(
                "\(dir): not a capture directory (no _session/ and no <channel>/*.log.gz): give the --dir of chatcap capture"
            )
            throw ExitCode(.noInput)
        }
        let endpoint = try ClickHouseEndpoint(
            parsing: clickhouse, environmentPassword: Environment.value("CHATCAP_CLICKHOUSE_PASSWORD"))
        let mode: StatusDriver.Mode =
            quiet ? .none : status == .json ? .json : status == .auto && isatty(2) == 1 ? .line : .none
        let say: (String) -> Void = { text in
            guard !quiet else { return }
            Diagnostics.write((mode == .line ? StatusDriver.clearLine : "") + "chatcap: \(text)\n")
        }
        let loader: Loader
        do throws(LoadError) {
            let client = try ClickHouseClient(endpoint: endpoint, table: table)
            client.timeoutMs = Int(Seconds.milliseconds(timeout))
            let records = try recordsTableName.map { name throws(LoadError) in
                let records = try ClickHouseClient(endpoint: endpoint, table: name)
                records.timeoutMs = client.timeoutMs
                return records
            }
            let store = try LoadProgressStore(
                directory: dir, name: Self.progressName(endpoint, table), destination: "\(endpoint.redacted) \(table)")
            var options = LoadOptions()
            options.batchRows = batchRows
            options.batchDelayMs = Seconds.milliseconds(batchDelay)
            options.maxOpenFiles = maxOpenFiles
            options.retryMaxMs = Seconds.milliseconds(retryMax)
            options.retryBaseMs = min(options.retryBaseMs, options.retryMaxMs)
            options.once = once
            options.times = times
            if once { options.giveUpAfterMs = Seconds.milliseconds(giveUpAfter ?? 60) }
            loader = try Loader(directory: dir, client: client, recordsClient: records, store: store, options: options)
            let resumed = loader.resumed
            say(
                "loading \(dir) into \(table)\(recordsTableName.map { " (capture's records into \($0))" } ?? "") at \(endpoint.redacted)"
                    + (resumed.files > 0
                        ? ", resuming \(resumed.files) files (\(resumed.rows) lines acknowledged before)" : "")
                    + "; progress in \(store.path)")
        } catch {
            throw Self.exit(error)
        }
        loader.onNotice = say
        let started = Moment.now()
        var board = LoadStatus(startedAt: started)
        // The status line or JSON, paced and fitted to the terminal as capture's.
        let driver = StatusDriver(
            mode: mode, intervalMs: Seconds.milliseconds(statusInterval ?? 10), startedMs: started.monotonicMs,
            columns: { TerminalWidth.columns(of: 2, environment: Environment.value) }, write: { Diagnostics.write($0) })
        loader.onTick = { now in
            driver.tick(
                nowMs: now.monotonicMs, line: { board.snapshot(loader.counters, now: now).line(width: $0) },
                json: { board.snapshot(loader.counters, now: now).json })
        }
        let stop = StopFlag()
        Interrupts.install(stop)
        var failure: LoadError? = nil
        do throws(LoadError) { try loader.run(stop: stop) } catch { failure = error }
        driver.finish()
        let c = loader.counters
        if driver.mode == .json { Diagnostics.write(board.snapshot(c, now: Moment.now()).json + "\n") }
        say(c.summary(withRecords: recordsTableName != nil))
        if let failure { throw Self.exit(failure) }
    }

    /// The records table: `--records-table`, by default `records` in `--table`'s database; `nil` for none.
    var recordsTableName: String? {
        if let recordsTable { return recordsTable == "none" ? nil : recordsTable }
        let parts = table.split(separator: ".")
        return parts.count == 2 ? "\(parts[0]).records" : "records"
    }

    /// The progress file's name for a destination: `<host>_<port>_<table>`, in file-name-safe characters.
    static func progressName(_ endpoint: ClickHouseEndpoint, _ table: String) -> String {
        let raw = "\(endpoint.host)_\(endpoint.port)_\(table)"
        return String(raw.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") ? $0 : "_" })
    }

    /// Reports `error` and maps it to the documented exit status.
    static func exit(_ error: LoadError) -> ExitCode {
        Diagnostics.error(error.description)
        switch error {
        case .badURL: return ExitCode(.usage)
        case .input: return ExitCode(.noInput)
        case .progress, .http: return ExitCode(.ioErr)
        case .busy, .gaveUp: return ExitCode(.tempFail)
        case .schema: return ExitCode(.config)
        case .rejected(_, _, let code, _):
            if error.isAuthentication { return ExitCode(.noPerm) }
            if let code, [60, 81, 16, 47].contains(code) { return ExitCode(.config) }
            return ExitCode(.dataErr)
        case .unreachable: return ExitCode(.ioErr)  // not thrown by run(): an unreachable server is retried
        }
    }
}
