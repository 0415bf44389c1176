/// Why ``LiveSession/run(until:)`` returned: the command's exit status and its last words on stderr
/// follow from it.
extension LiveSession {
    /// How a run ended. Only ``stopped`` and ``deadline`` are planned ends (an operator's SIGINT or
    /// SIGTERM, `--duration`, or a stop the command raised itself and reports, such as a write error);
    /// the others are failures the command exits non-zero for, saying why.
    public enum Ending: Sendable, Equatable, CustomStringConvertible {
        /// ``LiveSession/stop`` was raised.
        case stopped
        /// The run's deadline (`--duration`) passed.
        case deadline
        /// A connection's machine gave up (``LiveSession/fatal``): a rejected login or certificate.
        case fatal(String)
        /// The event loop itself failed (`epoll_wait`): no connection can be served any more.
        case loopFailed(String)

        public var description: String {
            switch self {
            case .stopped: "stopped on request"
            case .deadline: "the run's duration ended"
            case .fatal(let message): message
            case .loopFailed(let message): "the ingest loop failed: \(message)"
            }
        }
    }
}
