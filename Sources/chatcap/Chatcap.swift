import ArgumentParser

#if canImport(Glibc)
    import Glibc
#endif

@main
struct Chatcap: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chatcap",
        abstract: "Capture, pipe, watch, replay and archive (into ClickHouse) Twitch chat over IRC.",
        // The statuses are named in ExitStatus.swift (sysexits).
        discussion: """
            Exit status: 0 success (also when the reader of a pipe goes away), 64 usage error, \
            65 malformed input with --strict or no valid line at all, 66 an input cannot be opened \
            (also for want of file descriptors) or a directory holds no logs, 74 an output error; live commands (tail, capture, watch): \
            66 a --ca-file that cannot be read, 69 stopped without ever having reached the server's chat \
            (tail, capture: or without any channel joined), \
            76 the server's TLS certificate failed verification (--retry-tls retries instead), 77 the \
            server rejected the login; load: 65 ClickHouse refused the rows, 66 the directory is not a \
            capture, 75 another load of the directory into the same table is running or (--once) \
            ClickHouse stayed unreachable for --give-up-after seconds, 77 ClickHouse refused the credentials, 78 the \
            table, database or a column does not exist.
            """,
        version: ChatcapVersion.string,
        subcommands: [
            ReplayCommand.self, DumpCommand.self, StatsCommand.self, TailCommand.self, ServeCommand.self,
            WatchCommand.self, CaptureCommand.self, LoadCommand.self, LogsCommand.self,
        ])
}
