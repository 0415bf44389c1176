package import ChatPosix

/// Paces lines by their timestamps at `speed` times real time: the first line sets the origin, and a
/// later line is due once the wall time since the origin has caught up with its line time / `speed`.
///
/// Used by `replay --speed` (which sleeps) and by `watch` (which ticks while it waits).
///
/// A class, not a struct: its `ContinuousClock.Instant` is of a resilient type, and a struct holding
/// one gave every type that stores a `Pacer?` (``OutputPipeline``) a layout known only at run time,
/// read through metadata on each access to any of their fields, per line.
package final class Pacer {
    let speed: Double
    private var origin: (line: Int64, wall: ContinuousClock.Instant)? = nil

    /// The longest a line is held back, whatever the speed and the line times: 100 years
    /// (``Seconds/maximumMilliseconds``), so that no speed and no time can overflow the arithmetic.
    package static let longestWait: Duration = .milliseconds(Seconds.maximumMilliseconds)

    /// - Precondition: `speed` is positive and finite (any such speed works: the wait is at most
    ///   ``longestWait``).
    package init(speed: Double) {
        precondition(speed > 0 && speed.isFinite, "speed must be positive and finite")
        self.speed = speed
    }

    /// When the line at `milliseconds` is due; `nil` when it is due at once (the first line, or a
    /// line not later than the first). At most ``longestWait`` after the first line.
    ///
    /// - Complexity: O(1). - Allocations: none.
    package func due(at milliseconds: Int64) -> ContinuousClock.Instant? {
        guard let origin else {
            origin = (milliseconds, ContinuousClock.now)
            return nil
        }
        // In `Double`: neither the difference of two `Int64` times nor its quotient can trap.
        let offset = (Double(milliseconds) - Double(origin.line)) / speed
        guard offset > 0 else { return nil }
        let microseconds = min(offset * 1000, Double(Seconds.maximumMilliseconds) * 1000)
        return origin.wall.advanced(by: .microseconds(Int64(microseconds)))
    }

    /// Sleeps until the line at `milliseconds` is due; meanwhile runs `idle` whenever it asks to
    /// (e.g. an output flush that is due) and looks at `stop` at least every 250 ms.
    ///
    /// - Returns: `false` when `stop` was raised before the line was due.
    package func wait(
        until milliseconds: Int64, stop: StopFlag? = nil, idle: (() -> ContinuousClock.Instant?)? = nil
    ) -> Bool {
        guard let due = due(at: milliseconds) else { return stop?.isRaised != true }
        while true {
            if stop?.isRaised == true { return false }
            let now = ContinuousClock.now
            guard now < due else { return true }
            var wake = min(due, now + .milliseconds(250))
            if let next = idle?() { wake = min(wake, next) }
            sleepThread(for: wake - now)
        }
    }
}
