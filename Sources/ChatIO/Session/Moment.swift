import Glibc

/// A point in time as the session logic sees it: a monotonic reading for timeouts and back-off,
/// and the wall clock for records.
///
/// Both in milliseconds. The monotonic reading never goes backwards and has an arbitrary origin;
/// the wall clock is milliseconds since 1970 and may jump. Tests build moments by hand.
public struct Moment: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// `CLOCK_MONOTONIC` in milliseconds: only differences mean anything.
    public var monotonicMs: Int64
    /// `CLOCK_REALTIME` in milliseconds since 1970-01-01 UTC.
    public var wallMs: Int64

    public init(monotonicMs: Int64, wallMs: Int64) {
        self.monotonicMs = monotonicMs
        self.wallMs = wallMs
    }

    /// The system clocks now.
    ///
    /// - Complexity: two `clock_gettime` calls (vDSO). - Allocations: none.
    public static func now() -> Moment {
        Moment(monotonicMs: milliseconds(CLOCK_MONOTONIC), wallMs: milliseconds(CLOCK_REALTIME))
    }

    /// This moment `ms` later on both clocks.
    public func advanced(byMs ms: Int64) -> Moment {
        Moment(monotonicMs: monotonicMs + ms, wallMs: wallMs + ms)
    }

    public var description: String { "mono \(monotonicMs) ms, wall \(wallMs) ms" }

    private static func milliseconds(_ clock: clockid_t) -> Int64 {
        var spec = timespec()
        // SAFETY: `clock_gettime` writes one `timespec` into the local.
        _ = unsafe clock_gettime(clock, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
