public import ChatPosix

/// How a ``FileSource`` waits for a regular file to grow at its end, like `tail -f`.
///
/// Following ends when ``stop`` is raised or ``deadline`` passes; either is checked at least once per
/// ``pollInterval``. Pipes, terminals and sockets are never polled: their end is final.
public struct FollowMode: Sendable {
    /// The pause between two checks for new bytes.
    public var pollInterval: Duration
    /// Raised (from any thread) to end following; the source then reports its end.
    public var stop: StopFlag?
    /// When following ends by itself, on the continuous clock; `nil` for never.
    public var deadline: ContinuousClock.Instant?

    public init(
        pollInterval: Duration = .milliseconds(200), stop: StopFlag? = nil, deadline: ContinuousClock.Instant? = nil
    ) {
        precondition(pollInterval > .zero, "pollInterval must be positive")
        self.pollInterval = pollInterval
        self.stop = stop
        self.deadline = deadline
    }

    /// Whether following should end now.
    var isOver: Bool {
        if let stop, stop.isRaised { return true }
        if let deadline, ContinuousClock.now >= deadline { return true }
        return false
    }
}
