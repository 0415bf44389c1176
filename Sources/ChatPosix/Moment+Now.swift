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

    fileprivate static func milliseconds(_ clock: clockid_t) -> Int64 {
        var spec = timespec()
        // SAFETY: `clock_gettime` writes one `timespec` into the local.
        _ = unsafe clock_gettime(clock, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
