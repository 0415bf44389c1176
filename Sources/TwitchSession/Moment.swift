/// A point in time as the session logic sees it: a monotonic reading for timeouts and back-off,
/// and the wall clock for records.
///
/// Both in milliseconds. The clocks are read by `Moment.now()` in ChatPosix: this module has none.
/// The monotonic reading never goes backwards and has an arbitrary origin;
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

    /// This moment `ms` later on both clocks.
    public func advanced(byMs ms: Int64) -> Moment {
        Moment(monotonicMs: monotonicMs + ms, wallMs: wallMs + ms)
    }

    public var description: String { "mono \(monotonicMs) ms, wall \(wallMs) ms" }
}
