import ChatPosix

/// The hand-off of a ring of recycled buffers between one producer thread and one consumer thread:
/// the producer fills buffer `i % count` for the i-th hand-over, the consumer takes them in the same
/// order and gives each back when done, and the producer fills it again. Only indices and claims
/// cross: the buffers themselves (and anything describing what one holds) belong to the caller, and to
/// whichever thread holds the index, from ``nextWork(parses:)`` (or ``nextFree()``) to
/// ``handOver(parsed:parsedNow:)`` for the producer and from ``take()`` to ``giveBack()`` for the
/// consumer; the lock taken by each of these orders every access.
///
/// A buffer may be handed over unfinished (`parsed: false`: ``ParseAhead``'s blocks framed but not
/// parsed). Its parse is then claimed, once, by whichever thread gets to it first: the producer, when
/// it has no free buffer to fill (it takes the newest one nobody claimed), or the consumer, when it
/// takes one nobody claimed (the oldest: it parses the block itself instead of waiting). Only one lock
/// per buffer and side, never per line. ``PrefetchSource`` hands every chunk over finished
/// (``handOver()``), and the ring is then a plain hand-off.
///
/// ```
///  producer: nextWork() ─▶ .fill(i): fill i ─▶ handOver(parsed: false) ────────┐
///            nextWork() ─▶ .parse(j): parse j (newest unclaimed) ─▶ parsed(j)   │
///  consumer: take() ─▶ (k, parses): oldest handed over; parses it when unclaimed,  ◀┘
///            waits while the producer parses it ─▶ read k ─▶ giveBack()
/// ```
/// A buffer's claim: handed over unfinished (nobody), the producer's (parsing), the consumer's,
/// parsed. The producer prefers filling (a free buffer) to parsing, so the consumer finds buffers
/// handed over; it parses from the newest end, the consumer from the oldest, so they meet only at
/// the last unclaimed buffer.
///
/// Back-pressure: the producer waits while every buffer is handed over and not given back (and none
/// is left to parse). Either side can end: the producer with ``finish()`` (it may still parse the
/// buffers nobody claimed: the consumer takes them as they are, then gets `nil`); the consumer with
/// ``stop()`` (the producer gets `nil` from its next ``nextWork(parses:)``, after the parse it is in,
/// if any: one buffer).
///
/// Thread safety: the producer's methods for one thread, the consumer's for another; every method
/// takes the lock (`monitor`).
@safe
final class HandOffRing: @unchecked Sendable {  // guarded by `monitor`
    /// What the producer does next.
    enum Work: Equatable {
        /// Frame into the free block at this index.
        case fill(Int)
        /// Parse the block at this index (claimed for the producer).
        case parse(Int)
    }

    /// Who holds a handed-over block's parse.
    private enum Claim: UInt8 {
        case nobody, producer, consumer, parsed
    }

    /// The blocks in the ring.
    let count: Int
    private let monitor = PosixMonitor(conditions: 3)
    /// Signalled when a block is handed over or the producer finished.
    private static let filled = PosixMonitor.Condition(0)
    /// Signalled when a block is given back or the consumer stopped.
    private static let freed = PosixMonitor.Condition(1)
    /// Signalled when the producer parsed a block.
    private static let parsedOne = PosixMonitor.Condition(2)
    // Guarded by `monitor`: blocks handed over and given back so far, whether the producer finished,
    // whether the consumer stopped, each block's claim.
    private var produced = 0
    private var released = 0
    private var done = false
    private var stopping = false
    private var claims: [Claim]
    /// Blocks parsed by each side (for tests and measurements).
    private var parsedByProducer = 0
    private var parsedByConsumer = 0

    /// - Precondition: `count > 0`.
    /// - Allocations: the lock and the claims, once.
    init(count: Int) {
        precondition(count > 0, "a ring holds at least one block")
        self.count = count
        claims = Array(repeating: .parsed, count: count)
    }

    // MARK: Producer

    /// The producer's next work: a free block to frame into when there is one, else the parse of the
    /// newest block handed over that nobody claimed (now the producer's), else it waits for a block
    /// given back. `nil` once the consumer stopped. With `parses` false it never parses (it only
    /// frames and waits: for tests, which make the consumer parse every block).
    ///
    /// - Complexity: O(blocks), one lock; waits for the consumer. - Allocations: none.
    func nextWork(parses: Bool = true) -> Work? {
        monitor.lock()
        defer { monitor.unlock() }
        while !stopping {
            if produced - released < count { return .fill(produced % count) }
            if parses, let index = claimNewest() { return .parse(index) }
            monitor.wait(Self.freed)
        }
        return nil
    }

    /// The newest block handed over that nobody claimed, now the producer's (without waiting);
    /// `nil` when there is none or the consumer stopped. For the producer's end, after ``finish()``.
    ///
    /// - Complexity: O(blocks), one lock. - Allocations: none.
    func nextUnclaimed() -> Int? {
        monitor.lock()
        defer { monitor.unlock() }
        return stopping ? nil : claimNewest()
    }

    /// Under the lock: claims the newest unclaimed block handed over, not taken by the consumer.
    private func claimNewest() -> Int? {
        var position = produced - 1
        while position >= released {
            let index = position % count
            if claims[index] == .nobody {
                claims[index] = .producer
                return index
            }
            position -= 1
        }
        return nil
    }

    /// The block from ``nextWork()``'s `.fill` is framed (`parsed`: or parsed too; `parsedNow`: the
    /// producer parsed it just now, counted in ``parses``): it goes to the consumer.
    ///
    /// - Complexity: O(1), one lock. - Allocations: none.
    func handOver(parsed: Bool, parsedNow: Bool = false) {
        update(signalling: Self.filled) {
            claims[produced % count] = parsed ? .parsed : .nobody
            produced += 1
            if parsedNow { parsedByProducer += 1 }
        }
    }

    /// The producer parsed the block it claimed (``nextWork()``'s `.parse`).
    ///
    /// - Complexity: O(1), one lock. - Allocations: none.
    func parsed(_ index: Int) {
        update(signalling: Self.parsedOne) {
            claims[index] = .parsed
            parsedByProducer += 1
        }
    }

    /// The index of the next buffer to fill, once it is free (waits while every buffer is handed over
    /// and not given back); `nil` once the consumer stopped. For a producer that hands every buffer
    /// over finished (``handOver()``).
    ///
    /// - Complexity: O(1), one lock; waits for the consumer. - Allocations: none.
    func nextFree() -> Int? {
        guard case .fill(let index) = nextWork(parses: false) else { return nil }
        return index
    }

    /// The buffer from ``nextFree()`` is filled and finished: it goes to the consumer.
    ///
    /// - Complexity: O(1), one lock. - Allocations: none.
    func handOver() { handOver(parsed: true) }

    /// The producer hands over nothing more (whether it ended or was stopped).
    ///
    /// - Complexity: O(1), one lock. - Allocations: none.
    func finish() {
        update(signalling: Self.filled) { done = true }
    }

    // MARK: Consumer

    /// The next block handed over (waits for it) and whether the consumer parses it (nobody had
    /// claimed it: now the consumer's); waits while the producer parses it. `nil` once the producer
    /// finished and every block it handed over was taken.
    ///
    /// - Complexity: O(1), one lock; waits for the producer. - Allocations: none.
    func take() -> (index: Int, parses: Bool)? {
        monitor.lock()
        defer { monitor.unlock() }
        while produced == released && !done { monitor.wait(Self.filled) }
        guard produced > released else { return nil }
        let index = released % count
        while claims[index] == .producer { monitor.wait(Self.parsedOne) }
        guard claims[index] == .nobody else { return (index, false) }
        claims[index] = .consumer
        parsedByConsumer += 1
        return (index, true)
    }

    /// The consumer is done with the block from ``take()``: the producer may fill it again.
    ///
    /// - Complexity: O(1), one lock. - Allocations: none.
    func giveBack() {
        update(signalling: Self.freed) { released += 1 }
    }

    /// The consumer stops: the producer gets `nil` from its next ``nextWork()`` (and from a wait in it).
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

    /// How many blocks were handed over so far.
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

    /// How many blocks each side parsed so far.
    var parses: (producer: Int, consumer: Int) {
        monitor.lock()
        defer { monitor.unlock() }
        return (parsedByProducer, parsedByConsumer)
    }
}
