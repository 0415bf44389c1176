/// What every client of one ``ChatServer`` shares: the options, the log and the report channel.
///
/// Confined to the server's loop thread.
final class ServeContext {
    let options: ServeOptions
    let log: ReplayLog
    /// Receives one line per event worth telling the person running the server (no trailing newline).
    let report: (String) -> Void

    init(options: ServeOptions, log: ReplayLog, report: @escaping (String) -> Void) {
        self.options = options
        self.log = log
        self.report = report
    }
}

@available(*, unavailable)
extension ServeContext: Sendable {}
