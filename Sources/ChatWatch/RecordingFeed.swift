public import ChatInput
import ChatOutput
import ChatPosix
import ChatStore
import IRCWire

/// Feeds recorded chat (a ``MergeReader``) to `watch`, in time order, paced by the lines'
/// timestamps at `speed` times real time (`nil`: as fast as possible), like `replay --speed`.
///
/// While it waits for the next line's time it sleeps in slices of at most ``tickInterval``,
/// publishing due windows and checking the stop flag between slices, so a long pause in the
/// recording neither delays the screen nor a quit. Malformed lines and damaged inputs are reported
/// to the board (the screen's footer, then stderr on exit), never dropped silently.
///
/// Runs on the ingest thread; the reader is handed over to it and not touched elsewhere.
public final class RecordingFeed: WatchFeed {
    private let reader: MergeReader
    private let pacer: Pacer?
    /// The longest sleep between two ticks.
    static let tickInterval: Duration = .milliseconds(20)

    /// The error that stopped the replay early (see ``MergeReader/exhaustion``); read it after the
    /// session ended.
    public var exhaustion: InputError? { reader.exhaustion }

    public init(reader: MergeReader, speed: Double?) {
        self.reader = reader
        pacer = speed.map(Pacer.init)
    }

    /// The ingest while ``run(into:)`` runs, for ``idle()``.
    private var ingest: WatchIngest? = nil

    /// For the reader's waits while it follows its inputs (``FollowMode/idle``): publishes due windows,
    /// so the screen keeps up while no line comes. Runs on the ingest thread.
    ///
    /// - Returns: when to call again (one ``tickInterval`` from now).
    public func idle() -> ContinuousClock.Instant? {
        ingest?.tick()
        return .now + Self.tickInterval
    }

    public func run(into ingest: WatchIngest) {
        self.ingest = ingest
        defer { self.ingest = nil }
        ingest.setStatus(.replaying)
        while !ingest.stop.isRaised {
            let more = reader.next { event, bytes in
                switch event {
                case .line(let at, let message):
                    if let t = at.timestamp { pace(until: t.milliseconds, ingest) }
                    guard !ingest.stop.isRaised else { return }
                    ingest.append(bytes, message, receivedAt: at.timestamp ?? .epoch)
                case .malformed, .skipped, .inputFailed, .bareCarriageReturns:
                    ingest.report(event.diagnostic)
                }
            }
            if !more { break }
        }
        ingest.finish()
        if !ingest.stop.isRaised { ingest.setStatus(.replayEnded) }
    }

    /// Waits until the line at `milliseconds` is due, ticking meanwhile.
    private func pace(until milliseconds: Int64, _ ingest: WatchIngest) {
        guard let due = pacer?.due(at: milliseconds) else { return }
        while !ingest.stop.isRaised {
            let remaining = due - ContinuousClock.now
            guard remaining > .zero else { return }
            sleepThread(for: min(remaining, Self.tickInterval))
            ingest.tick()
        }
    }
}

@available(*, unavailable)
extension RecordingFeed: Sendable {}
