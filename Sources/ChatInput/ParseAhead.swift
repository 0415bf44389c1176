public import ChatPosix

/// Runs a ``MergeReader`` on a thread of its own, a few blocks ahead of its owner: the reader thread
/// reads, frames, parses, times and merges the lines into blocks (``EventBlock``), and the owner lends
/// them a block per call, in the merge's order, to the same code that would take them from the reader
/// (``EventSource``): each parsed line borrowed in place as a ``LentLine``, the rare other events as
/// ``MergeEvent``s.
///
/// ```
///  reader thread                                               owner (appends, encodes, writes)
///  reader.next ──▶ block k: [line bytes][events] ──hand over──▶ next(lines:events:)
///        ▲                                                              │
///        └────────────────────────── given back ◀─────────────────────────┘
/// ```
/// Only whole blocks cross the threads (``HandOffRing``): one lock and one hand-off per block
/// (hundreds of lines), none per line. Each line's bytes are copied once, into its block. The blocks (``blockCount``, each
/// up to `blockBytes` of lines and `blockEvents` events) are allocated once and recycled: the reader
/// thread waits while every block is handed over and not yet given back (back-pressure).
///
/// The owner sees exactly what the reader would hand out, in the same order: every event with its
/// position and its bytes. The reader's state (``exhaustion``, ``statistics``) is read once the reader
/// thread has ended (``finish()``, which reading them calls).
///
/// ``finish()`` (or dropping the stage) ends the reader thread within one block: it stops at its next
/// block, however much input is left. An owner that fails (an output error) or is stopped calls it
/// and the thread does not read on.
///
/// For inputs whose reads end: regular files (plain or gzip), not followed. A reader of a pipe or a
/// terminal, or one that follows, runs its ``FollowMode/idle`` and waits on its own thread; those stay
/// with the owner (``suits(_:)``).
///
/// Thread safety: ``next(lines:events:)``, ``finish()`` and the properties are for the owner's thread
/// only; the reader is touched by the reader thread from `init` until ``finish()`` returns, then by
/// the owner.
@safe
public final class ParseAhead {
    /// The blocks filled ahead and the hand-off.
    private let shared: Shared
    private let thread: PosixThread
    private let box: ReaderBox
    /// The inputs' names by index: copies of the reader's own, so that lending an event touches
    /// only the owner's strings' reference counts.
    private let names: [String]
    /// The block being lent (`nil` between blocks) and the next event in it.
    private var current: EventBlock? = nil
    private var index = 0
    private var ended = false
    private var joined = false

    /// Blocks in the pool by default.
    public static let defaultBlockCount = 4
    /// Bytes of lines a block holds by default.
    public static let defaultBlockBytes = 256 * 1024
    /// Events a block holds by default.
    public static let defaultBlockEvents = 1024

    /// Starts reading `reader` ahead.
    ///
    /// - Parameters:
    ///   - blockBytes: bytes of lines per block (a longer line grows its block once).
    ///   - blockEvents: events per block.
    ///   - blockCount: blocks in the pool: at most this many are filled ahead (at least 1).
    /// - Precondition: `reader` is not read by anyone else from now on; it suits (``suits(_:)``).
    /// - Allocations: the blocks, the lock, the names and the thread, once; reading allocates nothing.
    public init(
        _ reader: MergeReader, blockBytes: Int = ParseAhead.defaultBlockBytes,
        blockEvents: Int = ParseAhead.defaultBlockEvents, blockCount: Int = ParseAhead.defaultBlockCount
    ) {
        precondition(blockBytes > 0 && blockEvents > 0 && blockCount > 0, "blocks must hold something")
        // Copies with storage of their own (a name of 16 bytes or more is a reference-counted buffer).
        names = reader.paths.map { path in
            path == "-" ? FileSource.standardInputName : String(decoding: Array(path.utf8), as: UTF8.self)
        }
        let shared = Shared(blockBytes: blockBytes, blockEvents: blockEvents, blockCount: blockCount)
        self.shared = shared
        let box = ReaderBox(reader)
        self.box = box
        thread = PosixThread { shared.produce(from: box) }
    }

    deinit {
        finish()
    }

    /// Whether `reader` may be read ahead: it does not follow its inputs, and every input is a
    /// regular file (reads that end, and no ``FollowMode/idle`` that would run on the reader thread).
    public static func suits(_ reader: MergeReader) -> Bool {
        reader.following == nil && reader.follow?.followsFiles != true
            && reader.paths.allSatisfy { MergeReader.isRegularFile($0) }
    }

    /// Hands the next events in merged order (``EventSource/next(lines:events:)``): the rest of the
    /// current block, or of the next one, until `line` or `event` returns `false`. A line is lent in
    /// place in its block (plain bytes: no reference counted, nothing copied); the bytes are the
    /// block's and must not be used after the call returns.
    ///
    /// - Returns: `false` when the reader handed out everything (or ``finish()`` was called), and
    ///   neither closure was called.
    /// - Complexity: O(events lent), and one lock when a block is taken and given back; waits when
    ///   the reader thread is behind. - Allocations: none.
    public func next(
        lines line: (borrowing LentLine, Span<UInt8>) -> Bool, events event: (MergeEvent, Span<UInt8>) -> Bool
    ) -> Bool {
        if current == nil {
            guard !ended, let block = shared.take() else {
                ended = true
                return false
            }
            current = block
            index = 0
        }
        let block = current.unsafelyUnwrapped
        index = block.lend(from: index, names: names, lines: line, events: event)
        if index == block.count {
            current = nil
            shared.ring.giveBack()
        }
        return true
    }

    public func inputName(at index: Int) -> String { names[index] }

    /// Ends the reader thread (at its next block, if it is not done) and waits for it. Later calls do
    /// nothing; ``next(lines:events:)`` returns `false` from then on.
    public func finish() {
        guard !joined else { return }
        joined = true
        ended = true
        current = nil
        shared.ring.stop()
        thread.join()
    }

    /// The error that stopped the merge early (``MergeReader/exhaustion``); ends the stage first.
    public var exhaustion: InputError? {
        finish()
        return box.reader.exhaustion
    }

    /// What the reader handed out (``MergeReader/statistics``); ends the stage first.
    public var statistics: MergeStatistics {
        finish()
        return box.reader.statistics
    }

    /// How many blocks the reader thread handed over so far (for tests).
    package var blocksHandedOver: Int { shared.ring.handedOver }

    /// The reader, handed to the reader thread (it is not `Sendable`; only that thread touches it until
    /// the owner joined it).
    private final class ReaderBox: @unchecked Sendable {
        let reader: MergeReader
        init(_ reader: MergeReader) { self.reader = reader }
    }

    /// The blocks and their hand-off between the two threads (``HandOffRing``): block `i` belongs to
    /// whichever thread holds index `i`.
    private final class Shared: @unchecked Sendable {  // a block by the thread that holds its index
        let blocks: [EventBlock]
        let ring: HandOffRing

        init(blockBytes: Int, blockEvents: Int, blockCount: Int) {
            blocks = (0..<blockCount).map { _ in EventBlock(byteCapacity: blockBytes, eventCapacity: blockEvents) }
            ring = HandOffRing(count: blockCount)
        }

        /// The reader thread: fills blocks in turn with the reader's events until it ends or the owner
        /// stops.
        func produce(from box: ReaderBox) {
            defer { ring.finish() }
            let reader = box.reader
            guard var block = nextFree() else { return }
            var stopped = false
            /// Whether the block (or the next one, once this one is handed over) has room for
            /// `count` bytes more; `false` when the owner stopped.
            func room(for count: Int) -> Bool {
                if !block.fits(byteCount: count) {
                    if !block.isEmpty {
                        ring.handOver()
                        guard let free = nextFree() else {
                            stopped = true
                            return false
                        }
                        block = free
                    }
                    block.makeRoom(for: count)
                }
                return true
            }
            while !stopped {
                let more = reader.next(
                    lines: { line, bytes in
                        guard room(for: bytes.count) else { return false }
                        block.append(line, bytes)
                        return true
                    },
                    events: { event, bytes in
                        guard room(for: bytes.count) else { return false }
                        block.append(event, bytes)
                        return true
                    })
                if !more { break }
            }
            if !stopped && !block.isEmpty { ring.handOver() }
        }

        /// The next block to fill, emptied (waits while every block is handed over); `nil` when the
        /// owner stopped.
        private func nextFree() -> EventBlock? {
            guard let index = ring.nextFree() else { return nil }
            let block = blocks[index]
            block.reset()
            return block
        }

        /// The owner's next block (waits for it); `nil` once the reader thread is done and every block
        /// it handed over was taken.
        func take() -> EventBlock? {
            ring.take().map { blocks[$0] }
        }
    }
}

@available(*, unavailable)
extension ParseAhead: Sendable {}
