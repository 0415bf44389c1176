import ChatPosix

/// Why the terminal could not be used.
public enum TerminalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No terminal to draw on (`/dev/tty` cannot be opened or is not a terminal).
    case notATerminal(path: String, errno: Int32)
    /// A terminal call failed.
    case failed(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .notATerminal(let path, let e):
            "watch needs a terminal: cannot use \(path) (\(Errno.text(e)))"
        case .failed(let call, let e): "terminal: \(call) failed (\(Errno.text(e)))"
        }
    }
}
