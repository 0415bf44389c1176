import ChatStore
import IRCWire

#if canImport(Glibc)
import Glibc
#endif

/// Feeds recorded chat (a ``MergeReader``) to `watch`, in time order, paced by the lines'
/// timestamps at `speed` times real time (`nil`: as fast as possible), like `replay --speed`.
///
/// While it waits for the next line's time it sleeps in slices of at most ``tickInterval``,
/// publishing due windows and checking the stop flag between slices, so a long pause in the
/// recording neither delays the screen nor a quit. Malformed lines and damaged inputs are reported
/// to the board (the screen's footer, then stderr on exit), never dropped silently.
///
/// Runs on the ingest thread; the reader is handed over to it and not touched elsewhere.
public final class ReplayFeed: WatchFeed {
    private let reader: MergeReader
    private let speed: Double?
    private let clock = ContinuousClock()
    private var origin: (line: Int64, wall: ContinuousClock.Instant)? = nil
    /// The longest sleep between two ticks.
    static let tickInterval: Duration = .milliseconds(20)

    public init(reader: MergeReader, speed: Double?) {
        precondition(speed.map { $0 > 0 && $0.isFinite } ?? true, "speed must be positive")
        self.reader = reader
        self.speed = speed
    }

    public func run(into ingest: WatchIngest) {
        ingest.setStatus(.replaying)
        while !ingest.stop.isRaised {
            let more = reader.next { event, bytes in
                switch event {
                case .line(let at, let message):
                    if let t = at.timestamp { pace(until: t.milliseconds, ingest) }
                    guard !ingest.stop.isRaised else { return }
                    ingest.append(bytes, message, receivedAt: at.timestamp?.milliseconds ?? 0)
                case .malformed(let at, let error):
                    ingest.report("\(at.inputName):\(at.lineNumber): malformed line: \(error) — skipped")
                case .skipped(let at, let error):
                    ingest.report("\(at.inputName):\(at.lineNumber): \(error)")
                case .inputFailed(_, let error, let dropped):
                    ingest.report(
                        "\(error)" + (dropped > 0 ? " (\(dropped) bytes of a partial last line dropped)" : ""))
                }
            }
            if !more { break }
        }
        ingest.finish()
        if !ingest.stop.isRaised { ingest.setStatus(.replayEnded) }
    }

    /// Waits until the line at `milliseconds` is due, ticking meanwhile.
    private func pace(until milliseconds: Int64, _ ingest: WatchIngest) {
        guard let speed else { return }
        guard let origin else {
            origin = (milliseconds, clock.now)
            return
        }
        let offset = Double(milliseconds - origin.line) / speed
        guard offset > 0 else { return }
        let due = origin.wall.advanced(by: .microseconds(Int64(offset * 1000)))
        while !ingest.stop.isRaised {
            let remaining = due - clock.now
            guard remaining > .zero else { return }
            Self.sleep(min(remaining, Self.tickInterval))
            ingest.tick()
        }
    }

    static func sleep(_ d: Duration) {
        var request = timespec(
            tv_sec: Int(d.components.seconds), tv_nsec: Int(d.components.attoseconds / 1_000_000_000))
        var left = timespec()
        // SAFETY: two local timespec values; on EINTR sleep again for what is left.
        while unsafe nanosleep(&request, &left) != 0 && errno == EINTR { request = left }
    }
}

@available(*, unavailable)
extension ReplayFeed: Sendable {}
