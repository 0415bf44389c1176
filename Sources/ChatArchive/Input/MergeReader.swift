public import ChatPosix
public import IRCWire

/// Reads several chat logs at once and hands out their lines in time order, without copying them.
///
/// Each input (a file, `-`, a gzip file) is framed by its own `LineFramer`. A line's time is its IRCv3
/// `time` tag, else its `tmi-sent-ts` tag, else the time of the previous line of the same input (so a
/// line without a time keeps its place within its input; lines before the first time sort first).
/// The merge never reorders the lines of one input; between inputs the earlier time goes first, and
/// equal times go to the input that came first in the list.
///
/// Inputs named by date in one directory (`DIR/<channel>/<YYYY-MM-DD>.log.gz`) are read one after
/// another in one lane (see ``InputPaths/sequentialGroups(_:)``), so only one file per channel is open
/// at a time; lanes are merged with a binary heap.
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
/// With a ``FollowMode`` each input is followed at its end; since the merge needs the next line of
/// every lane to decide, following suits a single input (as `tail -f` does).
///
/// Confined to one task; not `Sendable`.
public final class MergeReader {
    /// The inputs, in the order given; ``MergedLine/inputIndex`` indexes this list.
    public let paths: [String]
    private let lanes: [MergeLane]
    /// The only lane, when there is one: read straight through (no heap, no head kept).
    private let single: MergeLane?
    /// Lanes with a waiting event, as a binary min-heap on ``MergeLane/sortKey``.
    private var heap: [Int] = []
    private var started = false

    /// What was handed out so far.
    public var statistics: MergeStatistics {
        var total = MergeStatistics()
        for lane in lanes { total.add(lane.statistics) }
        return total
    }

    /// A reader over `paths` (files, or `-` for standard input), each opened when its lane reaches it.
    ///
    /// - Parameters:
    ///   - groups: which inputs are read one after another (indices into `paths`); by default
    ///     ``InputPaths/sequentialGroups(_:)``. Pass `paths.indices.map { [$0] }` to merge every input
    ///     with every other.
    ///   - follow: follow each input at its end, like `tail -f`.
    ///   - maxLineLength: the framers' line limit.
    /// - Precondition: `groups` holds every index of `paths` exactly once.
    /// - Allocations: the lanes and their framers' buffers; each input's buffers when it is opened.
    public init(
        paths: [String], groups: [[Int]]? = nil, follow: FollowMode? = nil,
        maxLineLength: Int = LineFramer.defaultMaxLineLength, bufferCapacity: Int = 64 * 1024
    ) {
        let groups = groups ?? InputPaths.sequentialGroups(paths)
        precondition(groups.flatMap { $0 }.sorted() == Array(paths.indices), "groups must cover every path once")
        self.paths = paths
        lanes = groups.map { group in
            MergeLane(
                inputs: group.map { (index: $0, path: paths[$0]) }, follow: follow, maxLineLength: maxLineLength,
                bufferCapacity: bufferCapacity)
        }
        single = lanes.count == 1 ? lanes[0] : nil
        heap.reserveCapacity(lanes.count)
    }

    /// A reader over the inputs the command-line `arguments` (`FILE|DIR|-`) name; see ``InputPaths/expand(_:)``.
    ///
    /// - Throws: the errors of ``InputPaths/expand(_:)``.
    public convenience init(arguments: [String], follow: FollowMode? = nil) throws(InputError) {
        self.init(paths: try InputPaths.expand(arguments), follow: follow)
    }

    /// Hands the next event in merged order to `body`, with the line's bytes for `.line` and
    /// `.malformed` (an empty span otherwise).
    ///
    /// The bytes stay in their framer's buffer while `body` runs and must not be used after it
    /// returns. An error thrown by `body` is rethrown after the event counts as handed out.
    ///
    /// - Returns: `false` when every input is exhausted (and `body` was not called).
    /// - Complexity: O(log lanes) plus amortised O(bytes of the line) to frame and parse it, and the
    ///   reads; with a single lane no merge work at all. - Allocations: none per line; an input's
    ///   buffers when it is opened.
    public func next<E: Error>(_ body: (MergeEvent, Span<UInt8>) throws(E) -> Void) throws(E) -> Bool {
        if let single { return try single.pull(body) }
        if !started { start() }
        guard let top = heap.first else { return false }
        let lane = lanes[top]
        var failure: E? = nil
        do {
            try lane.withHead(body)
        } catch {
            failure = error
        }
        lane.advance()
        if !lane.hasHead {
            let last = heap.removeLast()
            if !heap.isEmpty {
                heap[0] = last
                siftDown(from: 0)
            }
        } else {
            siftDown(from: 0)
        }
        if let failure { throw failure }
        return true
    }

    /// Hands every remaining event to `body`, in merged order; see ``next(_:)``.
    public func forEachEvent<E: Error>(_ body: (MergeEvent, Span<UInt8>) throws(E) -> Void) throws(E) {
        while try next(body) {}
    }

    private func start() {
        started = true
        for (index, lane) in lanes.enumerated() {
            lane.advance()
            if lane.hasHead {
                heap.append(index)
                siftUp(from: heap.count - 1)
            }
        }
    }

    // MARK: - Heap

    private func precedes(_ a: Int, _ b: Int) -> Bool {
        let x = lanes[heap[a]].sortKey
        let y = lanes[heap[b]].sortKey
        return x.milliseconds != y.milliseconds ? x.milliseconds < y.milliseconds : x.inputIndex < y.inputIndex
    }

    private func siftUp(from start: Int) {
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
