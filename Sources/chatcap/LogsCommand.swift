import ArgumentParser
import ChatCurl
import ChatHTTP
import ChatLoad
import ChatLogStore
import ChatLogs
import ChatPosix
import ChatRun
import TwitchSession

#if canImport(Glibc)
    import Glibc
#endif

struct LogsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs",
        abstract: "Answer the rustlog/justlog logs API over a capture directory or the ClickHouse table.",
        // Written out: the generated one lists every option (logs past 80 columns).
        usage: "chatcap logs (--dir <dir> | --clickhouse <url>) --http-port <port> [...]",
        discussion: """
            Serves DIR/<channel>/*.log.gz (what capture --dir writes; never _session) over HTTP, never \
            changing them, also while a capture writes into it (the month index of a user's months and \
            searches, DIR/.chatcap-index, is built ahead in the background at start and every minute, and \
            on first use; --no-index never writes it), or the same lines from the \
            ClickHouse table chatcap load fills (--clickhouse, --table; the same answers byte for byte; \
            503 while ClickHouse cannot be reached, 500 with its message when it answers an error): GET /channels, /list?channel=<c>[&user=<u>], \
            /channel/<c>/<y>/<m>/<d>, /channel/<c>/user/<u>/<y>/<m>, /channel/<c> and /channel/<c>/user/<u> \
            (303 to the latest day or month), each also as /channelid/<id> and /userid/<id>; ?json, \
            ?jsonBasic, ?ndjson, ?raw, ?reverse, ?limit=&offset=; /openapi.json documents every route. Shapes \
            and status codes follow rustlog's; see docs/logs.md. Bounded by default: --max-connections, \
            --request-timeout, --max-range-days, --max-limit (docs/logs.md, Safety). On start one line 'listening on http://HOST:PORT/' goes to standard error. \
            SIGINT/SIGTERM stop it (exit 0).

            Exit status: 0 stopped, 64 usage error, 66 DIR cannot be read or holds no channel folders, the \
            table is missing (or lacks a column of docs/clickhouse.sql), or the --opt-out file cannot be read \
            or holds an entry that is neither a login nor an id, 74 the address cannot be bound.
            """)

    static let maxAnswerRange = NumberRange(1...4096, unit: "MiB")

    @Option(
        help: ArgumentHelp(
            "The capture directory (as written by chatcap capture --dir) to serve; or --clickhouse.",
            valueName: "dir"),
        completion: .directory)
    var dir: String?

    @Option(
        help: ArgumentHelp(
            "Serve the ClickHouse table chatcap load fills instead of a directory: its HTTP interface, "
                + "http(s)://[user[:password]@]host[:port]/ (password also from CHATCAP_CLICKHOUSE_PASSWORD). "
                + "The table of docs/clickhouse.sql (ClickHouse 18.16 and later).",
            valueName: "url"))
    var clickhouse: String?

    @Option(
        help: ArgumentHelp(
            "With --clickhouse: the table to read, table or database.table (letters, digits, _; default: chat.lines).",
            valueName: "name"))
    var table: String?

    @Option(
        help: ArgumentHelp(
            "The address to bind: by default 127.0.0.1, this machine only. Any other address serves the whole "
                + "archive to whoever can reach it, without authentication or TLS.",
            valueName: "host"))
    var host = "127.0.0.1"

    @Option(
        name: .customLong("http-port"), parsing: .unconditional,
        help: ArgumentHelp(
            "The port to answer on (\(HTTPOptions.portRange.text); 0 picks a free one, see the 'listening on' line).",
            valueName: "port"),
        transform: { try HTTPOptions.portRange.parse($0) })
    var httpPort: Int

    @Option(
        name: .customLong("max-answer-mib"), parsing: .unconditional,
        help: ArgumentHelp(
            "The most a ?reverse answer holds of one file, \(Self.maxAnswerRange.text) MiB (default: 64): a "
                + "reversed answer sends each file's lines newest first once the file is read; past this it is "
                + "refused with 400 (asking for limit and offset), or cut off with an error once it has begun. "
                + "Answers in time order stream line by line, whatever their size (from ClickHouse too: a query's "
                + "answer streams). With --clickhouse: also the longest row of an answer.",
            valueName: "MiB"),
        transform: { try Self.maxAnswerRange.parse($0) })
    var maxAnswerMiB = 64

    @OptionGroup var bounds: LogsBoundsOptions

    @Option(
        name: .customLong("opt-out"),
        help: ArgumentHelp(
            "Never serve these channels and users: a file of logins and numeric user ids, one a line (# comments). "
                + "Their routes answer 403 and no answer holds a line about them. SIGHUP reads it again.",
            valueName: "file"),
        completion: .file())
    var optOutFile: String?

    @Flag(
        name: .customLong("no-index"),
        help: ArgumentHelp(
            "Never write DIR/.chatcap-index (the month index that makes a user's month and search read one part "
                + "of it; derived, rebuilt when a file changes, built ahead in the background): every user's "
                + "month then reads the month's files."))
    var noIndex = false

    func validate() throws {
        if host.isEmpty { throw ValidationError("--host needs an address") }
        switch (dir, clickhouse) {
        case (nil, nil): throw ValidationError("Give --dir DIR (a capture directory) or --clickhouse URL (its table).")
        case (.some, .some): throw ValidationError("--dir and --clickhouse: give one store, not both.")
        case (.some, nil):
            if table != nil { throw ValidationError("--table is for --clickhouse; --dir serves the directory.") }
        case (nil, .some(let url)):
            if noIndex { throw ValidationError("--no-index is for --dir; the table needs no index.") }
            if let table, !ClickHouseEndpoint.isPlainTableName(table) {
                throw ValidationError(
                    "--table must be table or database.table of letters, digits and _ (got '\(table)')")
            }
            do { _ = try ClickHouseEndpoint(parsing: url) } catch { throw ValidationError(error.description) }
        }
    }

    func run() throws {
        let store: any LogStore
        let served: String
        if let clickhouse {
            (store, served) = try Self.clickHouseStore(
                clickhouse, table: table ?? "chat.lines", maxAnswerMiB: maxAnswerMiB)
        } else {
            (store, served) = try Self.directoryStore(dir ?? "", usesIndex: !noIndex)
        }
        var optOut = OptOutList()
        if let optOutFile {
            do {
                optOut = try LogsRun.readOptOut(optOutFile)
            } catch {
                Diagnostics.error("\(error)")
                throw ExitCode(.noInput)
            }
            Hangups.install()
        }
        let service = LogsService(
            store: store, maxAnswerBytes: maxAnswerMiB << 20,
            bounds: bounds.bounds, optOut: optOut,
            now: { Moment.now().wall })
        var router = HTTPRouter()
        service.install(into: &router, standalone: true)
        let limits = bounds.limits
        let listener: HTTPListener
        do {
            listener = try HTTPListener(host: host, port: UInt16(httpPort), limits: limits, router: router)
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(.ioErr)
        }
        let stop = StopFlag()
        Interrupts.install(stop)
        Diagnostics.note("listening on \(listener.url)/ (\(served))")
        LogsRun.serve(
            listener, service: service, optOutFile: optOutFile, stop: stop, console: Diagnostics.console,
            indexing: (store as? DirectoryStore).flatMap { $0.usesIndex ? $0 : nil })
    }

    /// The store of a capture directory, and what it serves (`N channels in DIR`).
    ///
    /// - Throws: exit 66 when DIR cannot be read or holds no channel folders (said on stderr).
    static func directoryStore(_ dir: String, usesIndex: Bool) throws -> (any LogStore, String) {
        let archive = LogArchive(root: dir)
        let channels: [String]
        do {
            channels = try archive.channels()
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(.noInput)
        }
        guard !channels.isEmpty else {
            Diagnostics.error(
                "\(dir) holds no channel folders (\(dir)/<login>/YYYY-MM-DD.log.gz): is it a capture directory?")
            throw ExitCode(.noInput)
        }
        return (
            DirectoryStore(archive: archive, usesIndex: usesIndex, now: { Moment.now().wall }),
            "\(channels.count) channels in \(dir)"
        )
    }

    /// The store of the ClickHouse table, checked: a table that is missing (or lacks a column) is exit 66;
    /// a ClickHouse that cannot be reached is said, and served as 503 until it answers.
    static func clickHouseStore(_ url: String, table: String, maxAnswerMiB: Int) throws -> (any LogStore, String) {
        let endpoint: ClickHouseEndpoint
        do {
            endpoint = try ClickHouseEndpoint(
                parsing: url, environmentPassword: Environment.value("CHATCAP_CLICKHOUSE_PASSWORD"))
            try HTTPClient.prepare()
        } catch {
            Diagnostics.error("\(error)")
            throw ExitCode(.usage)
        }
        let store = ClickHouseStore(
            endpoint: ClickHouseStore.Endpoint(
                url: endpoint.url, user: endpoint.user, password: endpoint.password, redacted: endpoint.redacted),
            table: table, maxPartBytes: maxAnswerMiB << 20)
        do throws(LogsError) {
            try store.check()
        } catch {
            if case .storeUnavailable(let why) = error {
                Diagnostics.warning("\(why); answering 503 until it answers")
            } else {
                Diagnostics.error("table \(table) at \(endpoint.redacted) cannot be served: \(error.text)")
                throw ExitCode(.noInput)
            }
        }
        return (store, "table \(table) at \(endpoint.redacted)")
    }
}
