/// What a signal asks of a run: the rule behind ``Interrupts`` and ``Hangups``, as a pure function
/// so it is tested without sending a signal.
///
/// - SIGINT and SIGTERM (``Signal/interrupt``): the first stops the run (finish the current lines,
///   close files, exit 0); a second, while the first is still being honoured (e.g. a capture waiting
///   for a stuck disk), exits at once with 130 — what a crash leaves (flushed data) stays readable.
/// - SIGHUP (``Signal/hangup``): with `--channels-file` it asks for a reload, taken at the loop's next
///   tick; without, it is not caught and ends the process (its default).
public enum SignalRule: Sendable {
    public enum Signal: Sendable {
        /// SIGINT or SIGTERM.
        case interrupt
        /// SIGHUP.
        case hangup
    }

    public enum Action: Sendable, Equatable {
        /// Raise the stop flag: the loop ends at its next turn.
        case stop
        /// `_exit(status)` now, from the handler.
        case exitNow(status: Int32)
        /// Ask the loop to read the channels file again.
        case reload
        /// The signal's default: the process ends.
        case terminate
    }

    /// The exit status of a second interrupt (128 + SIGINT, as a shell reports one).
    public static let secondInterruptStatus: Int32 = 130

    /// The action for `signal`, given whether a stop was asked already and whether the run reloads.
    ///
    /// Async-signal-safe: no allocation, no lock. - Complexity: O(1).
    public static func action(for signal: Signal, stopRaised: Bool, reloads: Bool) -> Action {
        switch signal {
        case .interrupt: stopRaised ? .exitNow(status: secondInterruptStatus) : .stop
        case .hangup: reloads ? .reload : .terminate
        }
    }
}
