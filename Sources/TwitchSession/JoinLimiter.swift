/// A sliding-window rate limit: at most `limit` sends in any `windowMs`.
///
/// One limiter paces one connection's JOINs, or (``ConnectionMachine/handle(_:at:into:sharing:)``)
/// those of every connection of a session.
///
/// Keeps the times of the last `limit` sends in a ring; a send is allowed when fewer than `limit`
/// were made, or the oldest of the last `limit` is at least `windowMs` old.
///
/// ```
///  times: [ t3 | t4 | t0 | t1 | t2 ]   next = 2 → t0 is the oldest of the last `limit` sends
/// ```
public struct JoinLimiter: Sendable, Equatable {
    public let limit: Int
    public let windowMs: Int64
    private var times: [Int64] = []
    private var next = 0

    public init(limit: Int, windowMs: Int64) {
        precondition(limit > 0 && windowMs >= 0, "a rate limit needs limit > 0 and window >= 0")
        self.limit = limit
        self.windowMs = windowMs
        times.reserveCapacity(limit)
    }

    /// The earliest monotonic time at which a send is allowed (`now` or earlier when allowed now).
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func earliestSend(now: Int64) -> Int64 {
        times.count < limit ? now : times[next] + windowMs
    }

    public func allows(now: Int64) -> Bool { earliestSend(now: now) <= now }

    /// Records a send at `now`.
    ///
    /// - Precondition: ``allows(now:)``.
    /// - Complexity: O(1). - Allocations: none after the first `limit` sends.
    public mutating func record(now: Int64) {
        assert(allows(now: now), "send over the rate limit")
        if times.count < limit {
            times.append(now)
        } else {
            times[next] = now
            next = (next + 1) % limit
        }
    }
}
