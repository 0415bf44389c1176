import ChatPosix
import ChatStore
public import IRCWire

/// Runs a ``MergeReader`` on a thread of its own, a few blocks ahead of its owner: the reader thread
/// reads and frames the lines into blocks (``EventBlock``), parsed by either thread (below), and the owner lends
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
/// With one lane (one input, or one sequence of them: ``MergeReader/framesAlone``), the common case,
/// the reader thread only frames: it copies each line into a block with its place, and the parse of
/// each block (``EventBlock/parse()``) is claimed by whichever thread gets to it first (``Sharing``,
/// ``HandOffRing``): the reader thread when every block is filled and not given back, the owner
/// when it takes a block nobody parsed, instead of waiting. Times are resolved where the events are
/// lent, in order (a line without a time of its own takes the latest one before it), and the counts
/// of each parse are added up by the owner, so the events, their times and the counts are the
/// reader's own. A merge of several lanes needs each line's time for its order: its reader thread
/// parses and times every line as it reads.
///
/// Only whole blocks cross the threads (``HandOffRing``): one lock per block and side for the
/// hand-off and the claim (hundreds of lines), none per line. Each line's bytes are copied once, into
/// its block. The blocks (``blockCount``, each up to `blockBytes` of lines and `blockEvents` events)
/// are allocated once and recycled: the reader thread parses or waits while every block is handed
/// over and not yet given back (back-pressure).
///
/// The owner sees exactly what the reader would hand out, in the same order: every event with its
/// position and its bytes. The reader's state (``exhaustion``, ``statistics``) is read once the reader
/// thread has ended (``finish()``, which reading them calls).
///
/// ``finish()`` (or dropping the stage) ends the reader thread within one block: it stops at its next
/// block (or after the block it is parsing), however much input is left. An owner that fails (an output error) or is stopped calls it
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
    /// The time of the latest line lent with a time of its own, for the lines and events after it
    /// that have none (a block that defers its times: see ``EventBlock``).
    private var lastTimestamp: Timestamp? = nil
    /// What the parses of the blocks taken so far counted (blocks that defer their times).
    private var parsed = MergeStatistics()
    /// Blocks taken from the reader thread so far, and how many of them the owner parsed itself.
    public private(set) var blocksTaken = 0
    public private(set) var blocksParsedByOwner = 0

    /// Who parses the blocks of a reader with one lane, which the reader thread only frames (a
    /// merge of several lanes is parsed on the reader thread, which needs the times for its order).
    package enum Sharing: Sendable, Equatable {
        /// Whichever thread gets to a block first: the reader thread when it has no free block to
        /// frame into, the owner when it takes a block nobody parsed.
        case claimed
        /// The owner, always (the reader thread only frames): for tests.
        case owner
        /// The reader thread parses every second block before handing it over, the owner the
        /// others: for tests, which need blocks parsed by each thread in turn.
        case alternate
        /// Neither: the reader thread parses and times every line as it reads, as a merge of
        /// several lanes is read.
        case off
    }

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
    ///   - renderer: makes each block's ``LineRendering`` (called `blockCount` times, here): every
    ///     line is then rendered where it is parsed, and lent with its rendering
    ///     (``next(rendered:ahead:events:)``); `nil` renders nothing.
    /// - Precondition: `reader` is not read by anyone else from now on; it suits (``suits(_:)``).
    /// - Allocations: the blocks, the lock, the names and the thread, once; reading allocates nothing
    ///   (a renderer's output grows to its largest block's, then stays).
    public convenience init(
        _ reader: MergeReader, blockBytes: Int = ParseAhead.defaultBlockBytes,
        blockEvents: Int = ParseAhead.defaultBlockEvents, blockCount: Int = ParseAhead.defaultBlockCount,
        renderer: (() -> any LineRendering)? = nil
    ) {
        self.init(
            reader, blockBytes: blockBytes, blockEvents: blockEvents, blockCount: blockCount, sharing: .claimed,
            renderer: renderer)
    }

    /// ``init(_:blockBytes:blockEvents:blockCount:)`` with the parse shared as `sharing` says, when
    /// the reader has one lane (``MergeReader/framesAlone``); otherwise the reader thread parses.
    package init(
        _ reader: MergeReader, blockBytes: Int = ParseAhead.defaultBlockBytes,
        blockEvents: Int = ParseAhead.defaultBlockEvents, blockCount: Int = ParseAhead.defaultBlockCount,
        sharing: Sharing, renderer: (() -> any LineRendering)? = nil
    ) {
        precondition(blockBytes > 0 && blockEvents > 0 && blockCount > 0, "blocks must hold something")
        // Copies with storage of their own (a name of 16 bytes or more is a reference-counted buffer).
        names = reader.paths.map { path in
            path == "-" ? FileSource.standardInputName : String(decoding: Array(path.utf8), as: UTF8.self)
        }
        let shared = Shared(
            blockBytes: blockBytes, blockEvents: blockEvents, blockCount: blockCount,
            sharing: reader.framesAlone ? sharing : .off, renderer: renderer, tagScope: reader.tagScope)
        self.shared = shared
        // The reader thread inflates gzip inputs itself: two busy threads on two cores, not three.
        reader.inflatesInline()
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

    /// Whether a stage over `reader` shares the parse with its owner (``suits(_:)``, and one lane:
    /// the reader thread only frames), rather than parsing every line on the reader thread.
    public static func sharesParse(_ reader: MergeReader) -> Bool {
        reader.framesAlone && suits(reader)
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
        next(rendered: { l, bytes, _ in line(l, bytes) }, events: event)
    }

    /// ``next(lines:events:)`` with each line's rendering (``LineRendering``): the bytes its block's
    /// renderer wrote for it, lent with the line (empty when the line was not rendered, or the stage
    /// has no renderers). The bytes are the block's and must not be used after the call returns.
    /// Each line's channel is shown to `ahead` ``aheadDistance`` events before the line is lent
    /// (``EventSource/next(rendered:ahead:events:)``); a block's first lines are not shown.
    ///
    /// - Returns: `false` when the reader handed out everything (or ``finish()`` was called), and
    ///   neither closure was called.
    /// - Complexity: O(events lent), and one lock when a block is taken and given back; waits when
    ///   the reader thread is behind. - Allocations: none.
    public func next(
        rendered line: (borrowing LentLine, Span<UInt8>, Span<UInt8>) -> Bool,
        ahead: (ByteRange?, Span<UInt8>) -> Void = { _, _ in },
        events event: (MergeEvent, Span<UInt8>) -> Bool
    ) -> Bool {
        if current == nil {
            guard !ended, let (block, parses) = shared.take() else {
                ended = true
                return false
            }
            blocksTaken += 1
            if parses {
                block.parse()
                blocksParsedByOwner += 1
            }
            if block.defersTiming { parsed.add(block.parseStatistics) }
            current = block
            index = 0
        }
        let block = unsafe current.unsafelyUnwrapped
        index = block.lend(
            from: index, names: names, lastTimestamp: &lastTimestamp, lines: line, ahead: ahead, events: event)
        if index == block.count {
            current = nil
            shared.ring.giveBack()
        }
        return true
    }

    /// How many events before its turn ``next(rendered:ahead:events:)`` shows a line: as far ahead as
    /// ``ChatStore/lookahead(_:in:_:)`` wants it.
    public static let aheadDistance = ChatStore.lookaheadDistance

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

    /// What the reader handed out (``MergeReader/statistics``); ends the stage first. When the
    /// reader thread only frames, the lines' counts are the parses' of the blocks the owner took.
    public var statistics: MergeStatistics {
        finish()
        var total = box.reader.statistics
        total.add(parsed)
        return total
    }

    /// How many blocks the reader thread handed over so far (for tests).
    package var blocksHandedOver: Int { shared.ring.handedOver }

    /// How many blocks each thread parsed so far, when the reader thread only frames (for tests).
    package var blocksParsed: (reader: Int, owner: Int) {
        let parses = shared.ring.parses
        return (parses.producer, parses.consumer)
    }

    /// Who parses the blocks (``Sharing/off`` for a reader of several lanes).
    package var sharing: Sharing { shared.sharing }

    /// The reader, handed to the reader thread (it is not `Sendable`; only that thread touches it until
    /// the owner joined it).
    private final class ReaderBox: @unchecked Sendable {
        let reader: MergeReader
        init(_ reader: MergeReader) { self.reader = reader }
    }

    /// The blocks and their hand-off between the two threads (``HandOffRing``): block `i` belongs
    /// to whichever thread holds index `i` (or its parse's claim).
    private final class Shared: @unchecked Sendable {  // a block by the thread that holds its index
        let blocks: [EventBlock]
        let ring: HandOffRing
        let sharing: Sharing

        init(
            blockBytes: Int, blockEvents: Int, blockCount: Int, sharing: Sharing,
            renderer: (() -> any LineRendering)?, tagScope: TagScope
        ) {
            blocks = (0..<blockCount).map { _ in
                EventBlock(
                    byteCapacity: blockBytes, eventCapacity: blockEvents, renderer: renderer?(), tagScope: tagScope)
            }
            ring = HandOffRing(count: blockCount)
            self.sharing = sharing
        }

        /// The reader thread: fills blocks in turn with the reader's events until it ends or the owner
        /// stops; framed only (their parse shared: ``Sharing``), or parsed and timed (``Sharing/off``).
        func produce(from box: ReaderBox) {
            defer { ring.finish() }
            let reader = box.reader
            let defers = sharing != .off
            guard var block = nextFree() else { return }
            var stopped = false
            var filled = 0
            /// Hands the block over: framed only, or parsed here (``Sharing/alternate``'s odd blocks).
            func handOver() {
                if sharing == .alternate && filled % 2 == 1 {
                    block.parse()
                    ring.handOver(parsed: true, parsedNow: true)
                } else {
                    ring.handOver(parsed: !defers)
                }
                filled += 1
            }
            /// Whether the block (or the next one, once this one is handed over) has room for
            /// `count` bytes more; `false` when the owner stopped.
            func room(for count: Int) -> Bool {
                if !block.fits(byteCount: count) {
                    if !block.isEmpty {
                        handOver()
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
            /// Copies an event other than a framed or parsed line into the block; `false` when the
            /// owner stopped.
            func put(_ event: MergeEvent, _ bytes: Span<UInt8>) -> Bool {
                guard room(for: bytes.count) else { return false }
                block.append(event, bytes)
                return true
            }
            while !stopped {
                let more =
                    defers
                    ? reader.frame(
                        lines: { line, bytes in
                            guard room(for: bytes.count) else { return false }
                            block.appendPending(line, bytes)
                            return true
                        }, events: put)
                    : reader.next(
                        lines: { line, bytes in
                            guard room(for: bytes.count) else { return false }
                            block.append(line, bytes)
                            return true
                        }, events: put)
                if !more { break }
            }
            if stopped { return }
            if !block.isEmpty { handOver() }
            ring.finish()
            // The blocks nobody claimed yet: parsed here while the owner works through the others.
            guard sharing == .claimed else { return }
            while let index = ring.nextUnclaimed() {
                blocks[index].parse()
                ring.parsed(index)
            }
        }

        /// The next block to fill, emptied (meanwhile parses the blocks nobody claimed, or waits while
        /// every block is handed over); `nil` when the owner stopped.
        private func nextFree() -> EventBlock? {
            while let work = ring.nextWork(parses: sharing == .claimed) {
                switch work {
                case .fill(let index):
                    let block = blocks[index]
                    block.reset(defersTiming: sharing != .off)
                    return block
                case .parse(let index):
                    blocks[index].parse()
                    ring.parsed(index)
                }
            }
            return nil
        }

        /// The owner's next block (waits for it) and whether the owner parses it; `nil` once the
        /// reader thread is done and every block it handed over was taken.
        func take() -> (block: EventBlock, parses: Bool)? {
            ring.take().map { (blocks[$0.index], $0.parses) }
        }
    }
}

@available(*, unavailable)
extension ParseAhead: Sendable {}
