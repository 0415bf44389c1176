public import ChatPosix

/// How a ``FileSource`` waits for more input: at the end of a regular file it polls for growth, like
/// `tail -f` (when ``followsFiles``), and while it waits — there, or for a pipe or terminal that has
/// nothing to read yet — it runs ``idle`` (e.g. flushing output that must not sit in a buffer).
///
/// Following ends when ``stop`` is raised or ``deadline`` passes; either is checked at least once per
/// ``pollInterval``. Pipes, terminals and sockets are never polled for growth: their end is final.
///
/// Confined to the task that reads (``idle`` runs there); not `Sendable`.
public struct FollowMode {
    /// The pause between two checks for new bytes.
    public var pollInterval: Duration
    /// Raised (from any thread) to end following; the source then reports its end.
    public var stop: StopFlag?
    /// When following ends by itself, on the continuous clock; `nil` for never.
    public var deadline: ContinuousClock.Instant?
    /// Whether a regular file is followed at its end; `false` only gives waits on pipes their ``idle``.
    public var followsFiles: Bool
    /// Runs whatever is due while the source waits, and returns when it wants to run again (`nil`:
    /// nothing pending); the wait is cut short then. Called on the reading thread.
    public var idle: (() -> ContinuousClock.Instant?)?

    public init(
        pollInterval: Duration = .milliseconds(200), stop: StopFlag? = nil, deadline: ContinuousClock.Instant? = nil,
        followsFiles: Bool = true, idle: (() -> ContinuousClock.Instant?)? = nil
    ) {
        precondition(pollInterval > .zero, "pollInterval must be positive")
        self.pollInterval = pollInterval
        self.stop = stop
        self.deadline = deadline
        self.followsFiles = followsFiles
        self.idle = idle
    }

    /// Whether following ends now.
    var isOver: Bool {
        if let stop, stop.isRaised { return true }
        if let deadline, ContinuousClock.now >= deadline { return true }
        return false
    }
}

/// Holds an `idle` closure that runs on the reading thread only.
@available(*, unavailable)
extension FollowMode: Sendable {}
