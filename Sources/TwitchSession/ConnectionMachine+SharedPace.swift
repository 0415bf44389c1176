extension ConnectionMachine {
    /// ``handle(_:at:into:)`` for a machine that shares its JOIN pace with the other connections of
    /// a session: the JOINs it sends count against `pace` (and are held back by it) instead of the
    /// machine's own limiter, so that the session as a whole keeps to one rate however many
    /// connections it pools (Twitch's documented limit is per user, not per connection).
    ///
    /// - Complexity: as ``handle(_:at:into:)``; the limiters are swapped, not copied.
    /// - Allocations: as ``handle(_:at:into:)``.
    public mutating func handle(
        _ event: ConnectionEvent, at now: Moment, into actions: inout [ConnectionAction],
        sharing pace: inout JoinLimiter
    ) {
        swap(&limiter, &pace)
        handle(event, at: now, into: &actions)
        swap(&limiter, &pace)
    }

    /// ``nextDeadline`` when JOINs are paced by the session's `pace` (see
    /// ``handle(_:at:into:sharing:)``).
    ///
    /// The session's event loop asks every connection's machine twice an iteration: it read `pace` in
    /// place of the machine's own limiter from a copy of the whole machine, whose arrays and strings
    /// cost a retain and a release each (2% of capture's perf samples at 10,000 channels, 111 connections).
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func nextDeadline(sharing pace: JoinLimiter) -> Int64? { nextDeadline(pacedBy: pace) }

    /// Whether every channel has had its JOIN answered (joined or refused) or timed out on the
    /// current connection: nothing is waiting to be sent or answered.
    public var joinsSettled: Bool {
        phase == .ready && statuses.allSatisfy { if case .joining = $0 { false } else { $0 != .waiting } }
    }
}
