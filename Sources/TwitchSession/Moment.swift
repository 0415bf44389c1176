public import ChatStore

/// A point in time as the session logic sees it: a monotonic reading for timeouts and back-off,
/// and the wall clock for records.
///
/// Both to the millisecond. The clocks are read by `Moment.now()` in ChatPosix: this module has none.
/// The monotonic reading never goes backwards and has an arbitrary origin;
/// the wall clock is a ``Timestamp`` (milliseconds since 1970) and may jump. Tests build moments by hand.
public struct Moment: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// `CLOCK_MONOTONIC` in milliseconds: only differences mean anything.
    public var monotonicMs: Int64
    /// `CLOCK_REALTIME`: the instant in UTC.
    public var wall: Timestamp

    public init(monotonicMs: Int64, wall: Timestamp) {
        self.monotonicMs = monotonicMs
        self.wall = wall
    }

    /// For tests that build moments by hand: the wall clock as milliseconds since 1970.
    package init(monotonicMs: Int64, wallMs: Int64) {
        self.init(monotonicMs: monotonicMs, wall: Timestamp(milliseconds: wallMs))
    }

    /// This moment `ms` later on both clocks.
    public func advanced(byMs ms: Int64) -> Moment {
        Moment(monotonicMs: monotonicMs + ms, wall: wall.advanced(byMilliseconds: ms))
    }

    public var description: String { "mono \(monotonicMs) ms, wall \(wall.milliseconds) ms" }
}
