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
    /// - Complexity: three `clock_gettime` calls (vDSO), a few more when interrupted. - Allocations: none.
    public static func wallMinusMonotonicMs() -> Int64 {
        wallMinusMonotonicMs(reading: { nanoseconds($0) })
    }

    /// ``wallMinusMonotonicMs()`` from the clocks `reading` reads (nanoseconds of a clock; the
    /// system's in production, a script of readings in tests).
    ///
    /// The wall clock is read between two readings of the monotonic one and paired with their
    /// midpoint. A thread that loses the processor between its readings (a busy machine: 9 ms was
    /// seen) would pair them that far apart, and serve's `tmi-sent-ts` would run that far ahead for a
    /// turn and come back after it; so while the two monotonic readings are more than
    /// ``tightReadingNs`` apart the three are taken again, up to ``readingAttempts`` times, and the
    /// tightest is used (its error is at most half its width).
    static func wallMinusMonotonicMs(reading read: (clockid_t) -> Int64) -> Int64 {
        var best: (width: Int64, wall: Int64, monotonic: Int64) = (.max, 0, 0)
        for _ in 0..<readingAttempts {
            let before = read(CLOCK_MONOTONIC)
            let wall = read(CLOCK_REALTIME)
            let width = read(CLOCK_MONOTONIC) &- before
            if width < best.width { best = (width, wall, before &+ width / 2) }
            if width <= tightReadingNs { break }
        }
        return offsetMs(wallNs: best.wall, monotonicNs: best.monotonic)
    }

    /// Monotonic readings this close around the wall one pair it with the wall clock to within half
    /// of it (50 µs): three `clock_gettime` calls take well under a microsecond when nothing
    /// interrupts them.
    static let tightReadingNs: Int64 = 100_000
    /// Readings taken at most by ``wallMinusMonotonicMs(reading:)`` before it uses the tightest.
    static let readingAttempts = 8

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
