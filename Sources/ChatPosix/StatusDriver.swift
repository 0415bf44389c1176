/// The status of a long run on stderr (`capture`, `load`), paced: a line rewritten in place on a
/// terminal every ``lineIntervalMs``, one column short of its width (a terminal without xenl wraps at
/// the last one), or one JSON object every interval (`--status json`); notes clear the line first.
///
/// One driver for both commands, so their status lines behave alike; what a line or an object says
/// is the caller's (`CaptureStatus`, `LoadStatus`).
public final class StatusDriver {
    public enum Mode: Sendable, Equatable {
        /// A status line, rewritten in place (`--status auto` on a terminal).
        case line
        /// One JSON object a line every interval (`--status json`).
        case json
        /// Nothing (`--status none`, `--quiet`, or `auto` without a terminal).
        case none
    }

    /// How often the terminal's line is rewritten.
    public static let lineIntervalMs: Int64 = 250
    /// What clears the terminal's line (carriage return, erase to the end of the line).
    public static let clearLine = "\r\u{1B}[K"

    public let mode: Mode
    /// Between JSON objects.
    public let intervalMs: Int64
    private let columns: () -> Int
    private let write: (String) -> Void
    private var nextMs: Int64

    /// - Parameters:
    ///   - startedMs: when the run started (monotonic ms): the first status comes one interval later.
    ///   - columns: the terminal's width now (asked at each line).
    ///   - write: writes to stderr as it is.
    public init(
        mode: Mode, intervalMs: Int64, startedMs: Int64, columns: @escaping () -> Int,
        write: @escaping (String) -> Void
    ) {
        self.mode = mode
        self.intervalMs = intervalMs
        self.columns = columns
        self.write = write
        nextMs = startedMs + (mode == .line ? Self.lineIntervalMs : intervalMs)
    }

    /// Shows the status when it is due: `line(width)` on a terminal, `json()` otherwise.
    ///
    /// - Complexity: O(1) when not due.
    public func tick(nowMs: Int64, line: (_ width: Int) -> String, json: () -> String) {
        guard mode != .none && nowMs >= nextMs else { return }
        if mode == .line {
            write(Self.clearLine + line(max(1, columns() - 1)))
            nextMs = nowMs + Self.lineIntervalMs
        } else {
            write(json() + "\n")
            nextMs = nowMs + intervalMs
        }
    }

    /// `chatcap: text` on a line of its own: the status line cleared first, redrawn at the next tick.
    public func say(_ text: String) {
        write((mode == .line ? Self.clearLine : "") + "chatcap: \(text)\n")
    }

    /// Clears the status line at the end of the run (nothing without one).
    public func finish() {
        if mode == .line { write(Self.clearLine) }
    }
}

@available(*, unavailable)
extension StatusDriver: Sendable {}
