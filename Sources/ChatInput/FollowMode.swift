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
    /// Whether a read at a followed regular file's end returns 0 at once instead of waiting: a
    /// **pause**, not the end (a later read looks again; a gzip source then decodes on from where it
    /// stopped, inside a member too). Set by a ``MergeReader`` that follows several inputs, which
    /// must not wait on one quiet file while others have lines.
    public var pausesAtEnd = false
    /// How long after a line's time (its `time` tag: when capture received it) a merge that follows
    /// several inputs still expects lines older than it from an input that has nothing new: capture
    /// flushes every file at least every 500 ms, so a line it received more than this long ago is on
    /// disk. The merge releases a line once this has passed, or at once when every input has a line
    /// waiting.
    public var settle: Duration = .seconds(1)
    /// How often a merge that follows a directory looks for new files (new channels, rotations).
    public var rescanInterval: Duration = .seconds(1)

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
