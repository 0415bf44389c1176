import ChatPosix

/// The hand-off of a ring of recycled buffers between one producer thread and one consumer thread:
/// the producer fills buffer `i % count` for the i-th hand-over, the consumer takes them in the same
/// order and gives each back when done, and the producer fills it again. Only indices cross: the
/// buffers themselves (and anything describing what one holds) belong to the caller, and to whichever
/// thread holds the index, from ``nextFree()`` to ``handOver()`` for the producer and from ``take()``
/// to ``giveBack()`` for the consumer; the lock taken by each of these orders every access.
///
/// ```
///  producer                                                consumer
///  nextFree() ─▶ fill buffer i ─▶ handOver() ──▶ take() ─▶ read buffer i ─▶ giveBack()
///       ▲ waits while all `count` are handed over and not given back        │
///       └─────────────────────────────────────────────────────────────────────┘
/// ```
/// Back-pressure: the producer waits while every buffer is handed over and not given back. Either
/// side can end: the producer with ``finish()`` (the consumer takes what was handed over, then gets
/// `nil`), the consumer with ``stop()`` (the producer gets `nil` from its next ``nextFree()``).
///
/// Used by ``PrefetchSource`` (chunks of bytes); ``ParseAhead`` uses ``ParseClaimRing``, which adds the
/// claim of each block's parse.
///
/// Thread safety: the producer's methods for one thread, the consumer's for another; every method
/// takes the lock (`monitor`).
@safe
final class HandOffRing: @unchecked Sendable {  // guarded by `monitor`
    /// The buffers in the ring.
    let count: Int
    private let monitor = PosixMonitor(conditions: 2)
    /// Signalled when a buffer is handed over or the producer finished.
    private static let filled = PosixMonitor.Condition(0)
    /// Signalled when a buffer is given back or the consumer stopped.
    private static let freed = PosixMonitor.Condition(1)
    // Guarded by `monitor`: buffers handed over and given back so far, whether the producer
    // finished, whether the consumer stopped.
    private var produced = 0
    private var released = 0
    private var done = false
    private var stopping = false

    /// - Precondition: `count > 0`.
    /// - Allocations: the lock, once.
    init(count: Int) {
        precondition(count > 0, "a ring holds at least one buffer")
        self.count = count
    }

    // MARK: Producer

    /// The index of the next buffer to fill, once it is free (waits while every buffer is handed over
    /// and not given back); `nil` once the consumer stopped.
    ///
    /// - Complexity: O(1), one lock; waits for the consumer. - Allocations: none.
    func nextFree() -> Int? {
        monitor.lock()
        defer { monitor.unlock() }
        while produced - released == count && !stopping { monitor.wait(Self.freed) }
        return stopping ? nil : produced % count
    }

    /// The buffer from ``nextFree()`` is filled: it goes to the consumer.
    ///
    /// - Complexity: O(1), one lock. - Allocations: none.
    func handOver() {
        update(signalling: Self.filled) { produced += 1 }
    }

    /// The producer hands over nothing more (whether it ended or was stopped).
    ///
    /// - Complexity: O(1), one lock. - Allocations: none.
    func finish() {
        update(signalling: Self.filled) { done = true }
    }

    // MARK: Consumer

    /// The index of the next buffer handed over (waits for it); `nil` once the producer finished and
    /// every buffer it handed over was taken.
    ///
    /// - Complexity: O(1), one lock; waits for the producer. - Allocations: none.
    func take() -> Int? {
        monitor.lock()
        defer { monitor.unlock() }
        while produced == released && !done { monitor.wait(Self.filled) }
        return produced > released ? released % count : nil
    }

    /// The consumer is done with the buffer from ``take()``: the producer may fill it again.
    ///
    /// - Complexity: O(1), one lock. - Allocations: none.
    func giveBack() {
        update(signalling: Self.freed) { released += 1 }
    }

    /// The consumer stops: the producer gets `nil` from its next ``nextFree()`` (and from a wait in it).
    ///
    /// - Complexity: O(1), one lock. - Allocations: none.
    func stop() {
        update(signalling: Self.freed) { stopping = true }
    }

    // MARK: State

    /// Changes the guarded state under the lock and wakes the other side.
    private func update(signalling condition: PosixMonitor.Condition, _ change: () -> Void) {
        monitor.lock()
        change()
        monitor.signal(condition)
        monitor.unlock()
    }

    /// How many buffers were handed over so far.
    var handedOver: Int {
        monitor.lock()
        defer { monitor.unlock() }
        return produced
    }

    /// Whether the producer finished.
    var isFinished: Bool {
        monitor.lock()
        defer { monitor.unlock() }
        return done
    }
}
