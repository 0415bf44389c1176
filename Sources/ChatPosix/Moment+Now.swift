import ChatStore
import Glibc
public import TwitchSession

extension Moment {
    /// The system clocks now.
    ///
    /// - Complexity: two `clock_gettime` calls (vDSO). - Allocations: none.
    public static func now() -> Moment {
        Moment(monotonicMs: milliseconds(CLOCK_MONOTONIC), wall: Timestamp(milliseconds: milliseconds(CLOCK_REALTIME)))
    }

    /// The monotonic clock now, in milliseconds (``monotonicMs`` of ``now()``).
    ///
    /// - Complexity: one `clock_gettime` call (vDSO). - Allocations: none.
    public static func monotonicMilliseconds() -> Int64 { milliseconds(CLOCK_MONOTONIC) }

    /// Wall-clock minus monotonic time in whole milliseconds (``offsetMs(wallNs:monotonicNs:)`` of both
    /// clocks read to the nanosecond): what maps a monotonic moment to the wall clock.
    ///
    /// Taking it from two readings already cut to the millisecond (``now()``) gives the true offset's
    /// floor or the next millisecond, depending on where in their milliseconds the two clocks stand,
    /// so it changes from one reading to the next: a moment mapped with the second reading can come out
    /// a millisecond before one mapped with the first although it is later.
    ///
    /// - Complexity: two `clock_gettime` calls (vDSO). - Allocations: none.
    public static func wallMinusMonotonicMs() -> Int64 {
        let monotonic = nanoseconds(CLOCK_MONOTONIC)
        return offsetMs(wallNs: nanoseconds(CLOCK_REALTIME), monotonicNs: monotonic)
    }

    /// `wallNs - monotonicNs` in milliseconds, rounded down (towards the past also when negative): the
    /// same for every pair of readings with the same offset, wherever in their milliseconds they fall.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public static func offsetMs(wallNs: Int64, monotonicNs: Int64) -> Int64 {
        let difference = wallNs &- monotonicNs
        let quotient = difference / 1_000_000
        return difference % 1_000_000 < 0 ? quotient - 1 : quotient
    }

    fileprivate static func nanoseconds(_ clock: clockid_t) -> Int64 {
        var spec = timespec()
        // SAFETY: `clock_gettime` writes one `timespec` into the local.
        _ = unsafe clock_gettime(clock, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    fileprivate static func milliseconds(_ clock: clockid_t) -> Int64 { nanoseconds(clock) / 1_000_000 }
}
