import ChatHTTP

/// What every client of one ``ChatServer`` shares: the options, the log, its channels' timelines and
/// members, and the report channel.
///
/// Confined to the server's loop thread.
final class ServeContext {
    let options: ServeOptions
    let log: ReplayLog
    let hub: TimelineHub
    /// What the shared timeline played, for the recent-messages endpoint (with
    /// ``ServeOptions/httpHistory``, and not with `--from-start`, which has no shared timeline).
    let history: RecentHistory?
    /// Receives one line per event worth telling the person running the server (no trailing newline).
    let report: (String) -> Void

    init(options: ServeOptions, log: ReplayLog, report: @escaping (String) -> Void) {
        self.options = options
        self.log = log
        self.report = report
        history = options.fromStart ? nil : options.httpHistory.map { RecentHistory(limit: $0) }
        hub = TimelineHub(log: log, options: options, history: history, report: report)
    }
}

@available(*, unavailable)
extension ServeContext: Sendable {}
