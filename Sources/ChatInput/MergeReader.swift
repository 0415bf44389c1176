import ChatPosix
public import IRCWire

#if canImport(Glibc)
    import Glibc
#endif

/// Reads several chat logs at once and hands out their lines in time order, without copying them.
///
/// Each input (a file, `-`, a gzip file) is framed by its own `LineFramer`. A line's time is its IRCv3
/// `time` tag, else its `tmi-sent-ts` tag, else the time of the previous line of the same input (so a
/// line without a time keeps its place within its input; lines before the first time sort first).
/// The merge never reorders the lines of one input; between inputs the earlier time goes first, and
/// equal times go to the input that came first in the list.
///
/// Inputs named by date (and hour) in one directory (`DIR/<channel>/<YYYY-MM-DD>.log.gz`,
/// `<YYYY-MM-DDTHH>.log.gz`) are read one after another in one lane (see
/// ``InputPaths/sequentialGroups(_:)``), so only one file per channel is open at a time; lanes are
/// merged with a binary heap.
///
/// Any number of inputs can be merged with a bounded number of descriptors:
/// - With more than ``eagerLaneLimit`` lanes, a lane starts only when the merge reaches the time of its
///   first event: at the start, the first line of each lane is read once (the file is closed again) to
///   learn that time. Lanes that have not started or have ended hold no descriptor and no buffer.
/// - At most ``maxOpenInputs`` inputs of the reader hold a descriptor at once (by default
///   ``InputDescriptors/limit``, half of `ulimit -n`), and the process's inputs together no more than
///   ``InputDescriptors/limit``: before a lane opens a file with that many open, the open lane whose next
///   event comes last closes its file, and opens it again (at the same offset) when it needs more bytes.
/// - An input that cannot be opened because descriptors ran out anyway (`EMFILE`, `ENFILE`) is handed
///   out as an ``MergeEvent/inputFailed(_:_:droppedByteCount:)`` event like any other, and then the merge
///   stops: ``exhaustion`` tells why (commands exit 66).
///
/// Nothing is dropped silently: over-long lines, lines the parser rejects, and inputs that cannot be
/// opened or end in damage are handed out as events (``MergeEvent``) at the place where they happened,
/// and counted in ``statistics``.
///
/// ```swift
/// let reader = try MergeReader(arguments: ["captures/"])
/// reader.forEachEvent { event, bytes in
///     if case .line(let at, let message) = event { print(at.inputName, at.lineNumber, message.command) }
/// }
/// ```
///
/// With a ``FollowMode`` each input is followed at its end. A single file is read straight on, waiting
/// at its end (as `tail -f` does). A directory (a capture still being written) is followed without
/// waiting on any one file: each file is read up to its end, a line is released once every lane has
/// one waiting or ``FollowMode/settle`` has passed since its time, and files that appear (new
/// channels, rotations) join the merge; see `MergeReader+Following.swift`.
///
/// Confined to one task; not `Sendable`.
public final class MergeReader {
    /// The merge key of a lane's waiting event: its time (none sorts first), then its input's position.
    typealias SortKey = (milliseconds: Int64, inputIndex: Int)

    /// Up to this many lanes all start at once; with more, each starts when the merge reaches it.
    public static let eagerLaneLimit = 64

    /// The inputs, in the order given (and, following a directory, in the order they appeared);
    /// ``MergedLine/inputIndex`` indexes this list.
    public internal(set) var paths: [String]
    /// At most this many inputs of this reader hold a descriptor at once.
    public let maxOpenInputs: Int
    /// The error that stopped the merge early: an input that could not be opened because descriptors
    /// ran out (``InputError/isDescriptorExhaustion``). It was handed out as an event before.
    public internal(set) var exhaustion: InputError? = nil

    /// The inputs of each lane, by lane number.
    var groups: [[(index: Int, path: String)]]
    let follow: FollowMode?
    private let maxLineLength: Int
    private let bufferCapacity: Int
    /// The lanes by number: `nil` before a lane starts (lazy start) and after it ended.
    var lanes: [MergeLane?]
    /// The only lane, when there is one: read straight through (no heap, no head kept).
    private(set) var single: MergeLane?

    /// Whether an input is named as gzip (`.gz`): what the commands weigh before reading ahead.
    public var hasGzipInput: Bool { paths.contains { $0.hasSuffix(".gz") } }

    /// Which tags the parse of each line sorts into slots: ``TagScope/every`` (the default), or
    /// ``TagScope/times`` for a reader of lines' commands, channels and times alone (`stats`), whose
    /// lines then carry no other tag. Set before reading; a ``ParseAhead`` made afterwards parses
    /// the same way.
    public var tagScope = TagScope.every {
        didSet { for case let lane? in lanes { lane.tagScope = tagScope } }
    }

    /// Whether the one lane's gzip inputs are inflated on a thread of their own (``PrefetchSource``).
    package var prefetchesGzip: Bool { single?.prefetchesGzip ?? false }

    /// Inflates the one lane's gzip inputs on the thread that reads, without a ``PrefetchSource``: for
    /// a ``ParseAhead`` stage, whose reader thread is already a thread of its own. A third busy thread
    /// on two cores made `replay --format json` of the `.gz` bench log about 1.2× slower (1.30 s
    /// against 1.07 s, best of 4).
    ///
    /// - Precondition: nothing was read yet (an input already open keeps its source).
    func inflatesInline() { single?.prefetchesGzip = false }
    /// Lanes with a waiting event, as a binary min-heap on ``MergeLane/sortKey``.
    var heap: [Int] = []
    /// Lanes not started yet with the key of their first event, the next one due last.
    private var pending: [(key: SortKey, lane: Int)] = []
    /// Lanes that opened an input, each once (some may have closed it since: pruned when the list
    /// looks full or has doubled since the last pruning).
    private var holders: [Int] = []
    /// The length of ``holders`` at which it is pruned even when not full.
    private var pruneAt = MergeReader.eagerLaneLimit
    /// What lanes that ended handed out.
    private var ended = MergeStatistics()
    var started = false
    /// Following a directory: its arguments, the files known, the lanes with nothing to hand out yet
    /// (see `MergeReader+Following.swift`); `nil` otherwise.
    var following: Following? = nil

    /// What was handed out so far.
    ///
    /// - Complexity: O(lanes).
    public var statistics: MergeStatistics {
        var total = ended
        for case let lane? in lanes { total.add(lane.statistics) }
        return total
    }

    /// How many of this reader's inputs hold a descriptor now (at most ``maxOpenInputs``, but for an
    /// input that cannot give it back: a pipe).
    ///
    /// - Complexity: O(lanes).
    public var openInputCount: Int {
        var count = 0
        for case let lane? in lanes where lane.holdsDescriptor { count += 1 }
        return count
    }

    /// A reader over `paths` (files, or `-` for standard input), each opened when its lane reaches it.
    ///
    /// - Parameters:
    ///   - groups: which inputs are read one after another (indices into `paths`); by default
    ///     ``InputPaths/sequentialGroups(_:)``. Pass `paths.indices.map { [$0] }` to merge every input
    ///     with every other.
    ///   - follow: follow each input at its end, like `tail -f`.
    ///   - maxLineLength: the framers' line limit.
    ///   - maxOpenInputs: at most this many inputs hold a descriptor at once (at least 1); by default
    ///     ``InputDescriptors/limit``.
    ///   - prefetchesGzip: with one lane (one input, or one sequence of them), inflate its gzip files on
    ///     a reader thread (``PrefetchSource``: a thread and 1 MiB while a file is open). For a
    ///     process that reads one log at a time; `serve`, which may open a reader per timeline, leaves it off.
    /// - Precondition: `groups` holds every index of `paths` exactly once.
    /// - Allocations: the lane list; each lane's framer buffer when it starts, each input's buffers
    ///   when it is opened.
    public init(
        paths: [String], groups: [[Int]]? = nil, follow: FollowMode? = nil,
        maxLineLength: Int = LineFramer.defaultMaxLineLength, bufferCapacity: Int = 64 * 1024,
        maxOpenInputs: Int? = nil, prefetchesGzip: Bool = false
    ) {
        let groups = groups ?? InputPaths.sequentialGroups(paths)
        precondition(groups.flatMap { $0 }.sorted() == Array(paths.indices), "groups must cover every path once")
        precondition(maxOpenInputs ?? 1 >= 1, "maxOpenInputs must be at least 1")
        self.paths = paths
        self.groups = groups.map { group in group.map { (index: $0, path: paths[$0]) } }
        self.follow = follow
        self.maxLineLength = maxLineLength
        self.bufferCapacity = bufferCapacity
        self.maxOpenInputs = maxOpenInputs ?? InputDescriptors.limit
        lanes = Array(repeating: nil, count: groups.count)
        if groups.count == 1 {
            let lane = MergeLane(
                inputs: self.groups[0], follow: follow, maxLineLength: maxLineLength, bufferCapacity: bufferCapacity)
            lane.prefetchesGzip = prefetchesGzip
            lanes[0] = lane
            single = lane
        } else {
            single = nil
        }
    }

    /// A reader over the inputs the command-line `arguments` (`FILE|DIR|-`) name; see ``InputPaths/expand(_:)``.
    ///
    /// - Throws: the errors of ``InputPaths/expand(_:)``.
    public convenience init(
        arguments: [String], follow: FollowMode? = nil, prefetchesGzip: Bool = false
    ) throws(InputError) {
        guard let follow, follow.followsFiles, arguments.contains(where: Self.isDirectory) else {
            let expansion = try InputPaths.expansion(of: arguments)
            self.init(paths: expansion.paths, follow: follow, prefetchesGzip: prefetchesGzip)
            expansionNotes = expansion.notes
            return
        }
        // Following a directory: every file is read up to its end and paused there, and the merge
        // releases lines by time (FollowMode.settle) and picks up the files that appear. Directories
        // without logs yet (a capture that has not flushed) are waited on.
        let expansion: InputPaths.Expansion
        do {
            expansion = try InputPaths.expansion(of: arguments)
        } catch {
            guard case .noLogs = error, arguments.allSatisfy(Self.isDirectory) else { throw error }
            expansion = InputPaths.Expansion()
        }
        var paused = follow
        paused.pausesAtEnd = true
        self.init(paths: expansion.paths, follow: paused)
        expansionNotes = expansion.notes
        single = nil
        following = Following(arguments: arguments, known: Set(expansion.paths))
    }

    /// What the expansion of the arguments left out or read once (``InputPaths/Expansion/notes``),
    /// to be said once.
    public private(set) var expansionNotes: [String] = []

    /// Hands the next event in merged order to `body`, with the line's bytes for `.line` and
    /// `.malformed` (an empty span otherwise).
    ///
    /// The bytes stay in their framer's buffer while `body` runs and must not be used after it
    /// returns. An error thrown by `body` is rethrown after the event counts as handed out.
    ///
    /// - Returns: `false` when every input is exhausted, or the merge stopped (``exhaustion``), and
    ///   `body` was not called.
    /// - Complexity: O(log lanes) plus amortised O(bytes of the line) to frame and parse it, and the
    ///   reads; with a single lane no merge work at all. Starting a lane, and (over the bound) opening
    ///   an input, costs O(open inputs) more. - Allocations: none per line; a lane's and an input's
    ///   buffers when they start.
    public func next<E: Error>(_ body: (MergeEvent, Span<UInt8>) throws(E) -> Void) throws(E) -> Bool {
        try nextEvent(body)
    }

    /// ``next(_:)``, for both of its public forms.
    @inline(__always)
    func nextEvent<E: Error>(_ body: (MergeEvent, Span<UInt8>) throws(E) -> Void) throws(E) -> Bool {
        if single != nil { return try pullSingle { lane throws(E) in try lane.pull(body) } }
        if following != nil { return try nextFollowed(body) }
        return try nextMerged(body)
    }

    /// The one lane's next event, through `pull` (events, or lines lent apart): nothing once the
    /// merge was stopped, and the lane's ``exhaustion`` taken over when it stops.
    @inline(__always)
    func pullSingle<E: Error>(_ pull: (MergeLane) throws(E) -> Bool) throws(E) -> Bool {
        guard exhaustion == nil, let lane = unsafe single.map({ unsafe Unmanaged.passUnretained($0) }) else {
            return false
        }
        // Borrowed, not bound: `if let single` of the property retained and released the lane a line
        // (`make alloc` counts it). `_withUnsafeGuaranteedRef` rethrows untyped: the typed error
        // comes back through a `Result`.
        let pulled: Result<Bool, E> = unsafe lane._withUnsafeGuaranteedRef { single in
            do throws(E) {
                let more = try pull(single)
                if single.isStopped { exhaustion = single.exhaustion }
                return .success(more)
            } catch { return .failure(error) }
        }
        return try pulled.get()
    }

    /// ``next(_:)`` over several lanes. Apart from the one-lane path, so that the latter needs no
    /// run-time metadata for `E?` (unspecialised across modules, that lookup cost ~3% of a replay):
    /// never inlined, or its `E?` slot would be allocated in the caller's prologue.
    @inline(never)
    private func nextMerged<E: Error>(_ body: (MergeEvent, Span<UInt8>) throws(E) -> Void) throws(E) -> Bool {
        guard exhaustion == nil else { return false }
        if !started { start() }
        startDueLanes()
        guard !heap.isEmpty else { return false }
        try handOutTop(body)
        return true
    }

    /// Hands the heap's top event to `body` and moves its lane on (re-sorted, or off the heap when it
    /// has nothing more: retired, or waiting when following a directory). Always inlined: in
    /// ``nextMerged(_:)`` it is the code that stood there before it was shared.
    ///
    /// - Precondition: the heap is not empty.
    @inline(__always)
    func handOutTop<E: Error>(_ body: (MergeEvent, Span<UInt8>) throws(E) -> Void) throws(E) {
        let top = heap[0]
        let lane = lanes[top]!
        var failure: E? = nil
        do {
            try lane.withHead(body)
        } catch {
            failure = error
        }
        if lane.isStopped {
            exhaustion = lane.exhaustion
            heap.removeAll()
            pending.removeAll()
        } else {
            lane.advance()
            if !lane.hasHead {
                let last = heap.removeLast()
                if !heap.isEmpty {
                    heap[0] = last
                    siftDown(from: 0)
                }
                ranDry(top)
            } else {
                siftDown(from: 0)
            }
        }
        if let failure { throw failure }
    }

    /// Hands every remaining event to `body`, in merged order; see ``next(_:)``.
    public func forEachEvent<E: Error>(_ body: (MergeEvent, Span<UInt8>) throws(E) -> Void) throws(E) {
        while try next(body) {}
    }

    // MARK: - Lanes

    func makeLane(_ number: Int) -> MergeLane {
        let lane = MergeLane(
            id: number, inputs: groups[number], follow: follow, maxLineLength: maxLineLength,
            bufferCapacity: bufferCapacity)
        lane.tagScope = tagScope
        lane.needsDescriptor = { [unowned self] lane in makeRoom(for: lane) }
        return lane
    }

    /// Starts every lane (up to ``eagerLaneLimit``, or when following files), or else learns the time of
    /// each lane's first event and starts the ones that cannot be peeked at (standard input, pipes).
    func start() {
        started = true
        let lazy = groups.count > Self.eagerLaneLimit && follow?.followsFiles != true
        var due: [(key: SortKey, lane: Int)] = []
        for number in groups.indices {
            guard lazy, groups[number].allSatisfy({ Self.isRegularFile($0.path) }) else {
                startLane(number)
                continue
            }
            // The first event's key; the lane (and its file) is closed again until the merge gets there.
            let lane = makeLane(number)
            lane.advance()
            if lane.hasHead { due.append((lane.sortKey, number)) }
        }
        pending = due.sorted { Self.precedes($1.key, $0.key) }
    }

    /// Starts the lanes whose first event comes before the heap's top.
    ///
    /// - Complexity: O(1) when none is due.
    private func startDueLanes() {
        while let next = pending.last, heap.isEmpty || Self.precedes(next.key, lanes[heap[0]]!.sortKey) {
            pending.removeLast()
            startLane(next.lane)
        }
    }

    /// Creates lane `number`, reads its first event and puts it on the heap (or ends it, if empty).
    func startLane(_ number: Int) {
        let lane = lanes[number] ?? makeLane(number)
        lanes[number] = lane
        lane.advance()
        if lane.hasHead {
            heap.append(number)
            siftUp(from: heap.count - 1)
        } else {
            ranDry(number)
        }
    }

    /// A lane without an event: exhausted (retired), or when following a directory, waiting for more.
    private func ranDry(_ number: Int) {
        if following != nil && follow?.isOver != true {
            following!.waiting.append(number)
        } else {
            retire(number)
        }
    }

    /// Keeps what an exhausted lane handed out, and lets it go (its buffers with it).
    func retire(_ number: Int) {
        guard let lane = lanes[number] else { return }
        ended.add(lane.statistics)
        lanes[number] = nil
    }

    /// Before `lane` opens an input (or reads a released one): while this reader holds
    /// ``maxOpenInputs`` descriptors, or the process ``InputDescriptors/limit``, the open lane whose
    /// next event comes last gives its descriptor back. A lane that is only peeked at (not started) is
    /// not listed: it is closed again at once.
    ///
    /// - Complexity: amortised O(1) under the bound; O(open inputs) when the bound is reached.
    ///   - Allocations: none once `holders` has grown.
    private func makeRoom(for lane: MergeLane) {
        guard lanes[lane.id] === lane else { return }
        let full = holders.count >= maxOpenInputs || InputDescriptors.held >= InputDescriptors.limit
        if full || holders.count >= pruneAt {
            holders.removeAll { number in
                guard let listed = lanes[number], listed !== lane, listed.holdsDescriptor else {
                    lanes[number]?.isListedHolder = false
                    return true
                }
                return false
            }
            pruneAt = max(Self.eagerLaneLimit, 2 * holders.count)
            // Holders that cannot give their descriptor back (a pipe) are moved to the front.
            var pinned = 0
            while holders.count > pinned
                && (holders.count >= maxOpenInputs || InputDescriptors.held >= InputDescriptors.limit)
            {
                var latest = pinned
                for i in (pinned + 1)..<holders.count
                where Self.precedes(lanes[holders[latest]]!.sortKey, lanes[holders[i]]!.sortKey) {
                    latest = i
                }
                let victim = lanes[holders[latest]]!
                if victim.releaseDescriptor() {
                    victim.isListedHolder = false
                    holders.swapAt(latest, holders.count - 1)
                    holders.removeLast()
                } else {
                    holders.swapAt(latest, pinned)
                    pinned += 1
                }
            }
        }
        if !lane.isListedHolder {
            lane.isListedHolder = true
            holders.append(lane.id)
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        guard path != "-" else { return false }
        var info = stat()
        // SAFETY: `path` is bridged to a NUL-terminated C string for the call; `info` is a local `stat`.
        return unsafe stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    static func isRegularFile(_ path: String) -> Bool {
        guard path != "-" else { return false }
        var info = stat()
        // SAFETY: `path` is bridged to a NUL-terminated C string for the call; `info` is a local `stat`.
        return unsafe stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    // MARK: - Heap

    private static func precedes(_ x: SortKey, _ y: SortKey) -> Bool {
        x.milliseconds != y.milliseconds ? x.milliseconds < y.milliseconds : x.inputIndex < y.inputIndex
    }

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        Self.precedes(lanes[heap[a]]!.sortKey, lanes[heap[b]]!.sortKey)
    }

    func siftUp(from start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(child, parent) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var best = left
            if left + 1 < heap.count && precedes(left + 1, left) { best = left + 1 }
            guard precedes(best, parent) else { return }
            heap.swapAt(best, parent)
            parent = best
        }
    }
}

@available(*, unavailable)
extension MergeReader: Sendable {}
