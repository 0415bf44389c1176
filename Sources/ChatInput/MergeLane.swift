import ChatPosix
import ChatStore
import IRCWire

/// One lane of a ``MergeReader``: a sequence of inputs read one after another through one framer, and
/// the event at the front of the lane waiting for its turn in the merge.
///
/// The waiting line stays in the framer's buffer (only its range, parsed offsets and location are
/// kept): the framer is filled again only after that line was handed out, so the range stays valid.
/// A reader with a single lane does not keep a head at all: ``pull(_:)`` frames, parses and lends
/// the next event in one go.
///
/// The lane's mutable state is plain stored properties (one owner, no overlapping access): release
/// builds skip the dynamic exclusivity checks (Package.swift), and the ~300-byte ``TwitchMessage`` is
/// written in place.
///
/// Before the lane opens an input, or reads from one whose descriptor was released, it calls
/// ``needsDescriptor`` so that its reader can keep the number of open inputs bounded (by releasing the
/// descriptor of another lane: ``releaseDescriptor()``).
///
/// Owned by its reader; confined to the reader's task.
@safe
final class MergeLane {
    /// The event at the front of the lane (a parsed line's message is kept beside it).
    enum Head {
        case line(FramedLine, MergedLine)
        case malformed(FramedLine, LineError, MergedLine)
        case skipped(FramingError, MergedLine)
        case failed(InputError, droppedByteCount: Int, MergedLine)

        var location: MergedLine {
            switch self {
            case .line(_, let at), .malformed(_, _, let at), .skipped(_, let at), .failed(_, _, let at): at
            }
        }
    }

    /// What the input loop found next, before parsing (with the CRs inside a line: see
    /// ``MergeEvent/bareCarriageReturns(_:count:)``).
    private enum Step {
        case line(FramedLine, carriageReturns: Int)
        case skipped(FramingError)
        case failed(InputError, droppedByteCount: Int, line: Int, offset: UInt64)
    }

    // All mutable state of the lane: plain stored properties, touched by the lane's task only.
    private var framer: LineFramer
    private var source: (any ByteSource)? = nil
    /// Whether ``source`` is set, asked once a line: `source == nil` copied the existential to compare
    /// it (a retain and a release of the source a line, about 1% of a replay; perf). Set beside
    /// ``source`` at each assignment (a `didSet` would not run for one in an initialiser).
    private var hasSource = false
    private var nextInput = 0
    private var sourceEnded = false
    private var sourceError: InputError? = nil
    private var name = ""
    private var inputIndex = 0
    /// The time of the latest line with a usable time in this lane (carried across its inputs).
    private var lastTimestamp: Timestamp? = nil
    private var head: Head? = nil
    /// The parsed message of a `.line` head.
    private var message: TwitchMessage? = nil
    private var headHasUnreadableTag = false
    /// CRs inside the head's line (0 for nearly every line).
    private var headCarriageReturns = 0
    /// Whether the current input had its ``MergeEvent/bareCarriageReturns(_:count:)`` warning.
    private var warnedCarriageReturns = false
    /// The merge order of the head: time (no time sorts first), then position in the reader's list.
    private(set) var sortKey: (milliseconds: Int64, inputIndex: Int) = (.min, 0)
    /// What this lane handed out so far.
    private(set) var statistics = MergeStatistics()
    /// The error of an input that could not be opened because descriptors ran out, once the lane met
    /// one (``InputError/isDescriptorExhaustion``); it was (or is about to be) handed out as an event.
    private(set) var exhaustion: InputError? = nil
    /// Following with pauses: since when the current input has been at a pause while a later input
    /// of the lane waits (``successorGrace``).
    private var pausedBeforeSuccessorSince: ContinuousClock.Instant? = nil

    /// How long a followed input at a pause whose gzip member is unfinished is waited on once a later
    /// input of the lane exists (capture finishes a rotated file's member on a thread of its own, just
    /// after it opened the next file); a file left unfinished for longer (a capture killed) is ended.
    static let successorGrace: Duration = .seconds(5)

    /// The inputs of the lane: their paths and positions in the reader's list (a reader that follows
    /// a directory appends the files that appear: ``append(_:)``).
    private var inputs: [(index: Int, path: String)]
    private let follow: FollowMode?
    /// The lane's number in its reader (its group's index).
    let id: Int
    /// Called with the lane just before it opens a file or reads from a released one.
    var needsDescriptor: ((MergeLane) -> Void)? = nil
    /// Whether the reader lists the lane among those that may hold a descriptor (the reader's flag).
    var isListedHolder = false
    /// Whether a gzip input is inflated on a thread of its own (``PrefetchSource``): for a reader with
    /// one lane, which opens one input at a time and never takes descriptors back.
    var prefetchesGzip = false
    /// Which tags a line's parse sorts into slots (``MergeReader/tagScope``).
    var tagScope = TagScope.every

    init(
        id: Int = 0, inputs: [(index: Int, path: String)], follow: FollowMode?, maxLineLength: Int,
        bufferCapacity: Int
    ) {
        self.id = id
        self.inputs = inputs
        self.follow = follow
        framer = LineFramer(maxLineLength: maxLineLength, bufferCapacity: bufferCapacity)
    }

    /// Adds an input after the lane's last one (a file that appeared in a followed directory).
    func append(_ input: (index: Int, path: String)) { inputs.append(input) }

    /// Whether an event waits (after ``advance()``).
    var hasHead: Bool { self.head != nil }
    /// Whether the lane met ``exhaustion`` (the merge stops after handing that event out).
    var isStopped: Bool { exhaustion != nil }
    /// Whether the lane's current input holds a descriptor.
    var holdsDescriptor: Bool { self.source?.holdsDescriptor ?? false }

    /// Closes the current input's descriptor if it can be opened again later at the same place.
    ///
    /// - Returns: whether a descriptor was closed.
    @discardableResult
    func releaseDescriptor() -> Bool { self.source?.releaseDescriptor() ?? false }

    /// Single-lane reading: finds the next event, counts it and lends it (with a line's bytes) to
    /// `body` at once, without keeping a head. An error thrown by `body` is rethrown after the event
    /// counts as handed out.
    ///
    /// - Returns: `false` when the lane is exhausted (and `body` was not called).
    /// - Complexity: amortised O(bytes of the line), plus reads. - Allocations: none, except when an
    ///   input is opened (its buffers) or fails (the error's strings).
    func pull<E: Error>(_ body: (MergeEvent, Span<UInt8>) throws(E) -> Void) throws(E) -> Bool {
        try pull(
            lines: { line, bytes throws(E) in try body(.line(line.location(named: name), line.message), bytes) }, body)
    }

    /// ``pull(_:)`` with a parsed line lent to `lineBody` as a ``LentLine`` (no ``MergeEvent`` built
    /// around it, no input name copied); every other event goes to `body`, and so does a line holding
    /// CRs that no LF follows (after its warning), as a `.line` event.
    ///
    /// - Complexity: as ``pull(_:)``. - Allocations: as ``pull(_:)``.
    func pull<E: Error>(
        lines lineBody: (borrowing LentLine, Span<UInt8>) throws(E) -> Void,
        _ body: (MergeEvent, Span<UInt8>) throws(E) -> Void
    ) throws(E) -> Bool {
        guard let step = nextStep() else { return false }
        switch step {
        case .line(let line, let carriageReturns):
            try framer.withBytes(of: line) { bytes throws(E) in
                // Parsed where it is lent: a message parsed apart (`TwitchMessage.parse`) and then
                // stored in the line cost three copies of its 300 bytes a line (the throwing
                // initialiser's two and the line's); in place, `stats --parse-ahead off` takes 75
                // fewer instructions a line (2,947 -> 2,872, start-up included).
                var lent = LentLine(unparsedAt: line.number, byteOffset: line.offset, inputIndex: inputIndex)
                do throws(LineError) { try lent.message.reparse(bytes, tags: tagScope) } catch {
                    let at = location(line: line.number, offset: line.offset, timestamp: nil)
                    statistics.countMalformed()
                    try handOut(.malformed(at, error), bytes, carriageReturns: carriageReturns, body)
                    return
                }
                let time = LineTime(of: lent.message, in: bytes)
                (lent.timestamp, lent.timeSource) = timing(time)
                lent.terminator = line.terminator
                statistics.countParsed(time)
                if carriageReturns > 0 {
                    try handOut(
                        .line(lent.location(named: name), lent.message), bytes, carriageReturns: carriageReturns, body)
                } else {
                    try lineBody(lent, bytes)
                }
            }
        case .skipped(let error):
            let at = location(line: error.lineNumber, offset: error.offset, timestamp: nil)
            statistics.skippedLines += 1
            try framer.withBytes(in: 0..<0) { empty throws(E) in
                try handOut(.skipped(at, error), empty, carriageReturns: error.carriageReturns, body)
            }
        case .failed(let error, let dropped, let line, let offset):
            let at = location(line: line, offset: offset, timestamp: nil)
            statistics.failedInputs += 1
            try framer.withBytes(in: 0..<0) { empty throws(E) in
                try body(.inputFailed(at, error, droppedByteCount: dropped), empty)
            }
        }
        return true
    }

    /// Single-lane framing without parsing (``ParseAhead``'s shared parse): the next line goes to
    /// `lineBody` as a ``PendingLine`` (its place and CRs), with its bytes; every other event (an
    /// over-long line, after its ``MergeEvent/bareCarriageReturns(_:count:)`` warning; a failed input)
    /// to `body`, timed as if no line had a time (timestamp `nil`, ``MergedLine/TimeSource/none``): the
    /// times are resolved in order where the events are lent (``EventBlock``). Counts what it frames
    /// (over-long lines, failed inputs, lines holding CRs); the parse counts the rest.
    ///
    /// - Returns: `false` when the lane is exhausted (and neither closure was called).
    /// - Complexity: amortised O(bytes of the line), plus reads. - Allocations: as ``pull(_:)``.
    func frame(
        lines lineBody: (PendingLine, Span<UInt8>) -> Void, _ body: (MergeEvent, Span<UInt8>) -> Void
    ) -> Bool {
        guard let step = nextStep() else { return false }
        switch step {
        case .line(let line, let carriageReturns):
            let warning = carriageReturns > 0 && countsCarriageReturnLine() ? carriageReturns : 0
            let pending = PendingLine(
                lineNumber: line.number, byteOffset: line.offset, inputIndex: inputIndex, terminator: line.terminator,
                warning: warning)
            framer.withBytes(of: line) { bytes in lineBody(pending, bytes) }
        case .skipped(let error):
            let at = MergedLine(
                inputName: name, inputIndex: inputIndex, lineNumber: error.lineNumber, byteOffset: error.offset,
                timestamp: nil, timeSource: .none)
            statistics.skippedLines += 1
            framer.withBytes(in: 0..<0) { empty in
                handOut(.skipped(at, error), empty, carriageReturns: error.carriageReturns, body)
            }
        case .failed(let error, let dropped, let line, let offset):
            let at = MergedLine(
                inputName: name, inputIndex: inputIndex, lineNumber: line, byteOffset: offset, timestamp: nil,
                timeSource: .none)
            statistics.failedInputs += 1
            framer.withBytes(in: 0..<0) { empty in body(.inputFailed(at, error, droppedByteCount: dropped), empty) }
        }
        return true
    }

    /// Counts the waiting event and lends it, and for lines their bytes, to `body`.
    ///
    /// - Precondition: ``hasHead``.
    func withHead<E: Error>(_ body: (MergeEvent, Span<UInt8>) throws(E) -> Void) throws(E) {
        guard let head = self.head else { preconditionFailure("withHead() on an exhausted lane") }
        let carriageReturns = headCarriageReturns
        switch head {
        case .line(let line, let at):
            statistics.lines += 1
            if at.timeSource == .inherited || at.timeSource == .none {
                statistics.untimedLines += 1
            }
            if headHasUnreadableTag { statistics.unreadableTimeTags += 1 }
            try framer.withBytes(of: line) { bytes throws(E) in
                try handOut(.line(at, self.message!), bytes, carriageReturns: carriageReturns, body)
            }
        case .malformed(let line, let error, let at):
            statistics.countMalformed()
            try framer.withBytes(of: line) { bytes throws(E) in
                try handOut(.malformed(at, error), bytes, carriageReturns: carriageReturns, body)
            }
        case .skipped(let error, let at):
            statistics.skippedLines += 1
            try framer.withBytes(in: 0..<0) { empty throws(E) in
                try handOut(.skipped(at, error), empty, carriageReturns: carriageReturns, body)
            }
        case .failed(let error, let dropped, let at):
            statistics.failedInputs += 1
            try framer.withBytes(in: 0..<0) { empty throws(E) in
                try body(.inputFailed(at, error, droppedByteCount: dropped), empty)
            }
        }
    }

    /// Moves to the next event of the lane and keeps it as the head (parsed, with its time, for the
    /// merge order). ``hasHead`` is `false` afterwards only when the lane is exhausted.
    ///
    /// - Complexity: amortised O(bytes of the next line), plus reads. - Allocations: none, except
    ///   when an input is opened (its buffers) or fails (the error's strings).
    func advance() {
        self.head = nil
        self.message = nil
        headHasUnreadableTag = false
        headCarriageReturns = 0
        guard let step = nextStep() else { return }
        let head: Head
        switch step {
        case .line(let line, let carriageReturns):
            headCarriageReturns = carriageReturns
            head = framer.withBytes(of: line) { bytes -> Head in
                do throws(LineError) {
                    let message = try TwitchMessage.parse(bytes, tags: tagScope)
                    let time = LineTime(of: message, in: bytes)
                    headHasUnreadableTag = time.hasUnreadableTag
                    var at = location(line: line.number, offset: line.offset, timestamp: time)
                    at.terminator = line.terminator
                    self.message = message
                    return .line(line, at)
                } catch {
                    return .malformed(line, error, location(line: line.number, offset: line.offset, timestamp: nil))
                }
            }
        case .skipped(let error):
            headCarriageReturns = error.carriageReturns
            head = .skipped(error, location(line: error.lineNumber, offset: error.offset, timestamp: nil))
        case .failed(let error, let dropped, let line, let offset):
            head = .failed(error, droppedByteCount: dropped, location(line: line, offset: offset, timestamp: nil))
        }
        let at = head.location
        sortKey = (at.timestamp?.milliseconds ?? .min, at.inputIndex)
        self.head = head
    }

    /// Lends `event` to `body`, after the input's ``MergeEvent/bareCarriageReturns(_:count:)``
    /// warning when the line holds CRs and is the input's first that does; counts such lines. Both
    /// events are handed out even when `body` throws at the first; the first error is rethrown.
    @inline(__always)
    private func handOut<E: Error>(
        _ event: MergeEvent, _ bytes: Span<UInt8>, carriageReturns: Int,
        _ body: (MergeEvent, Span<UInt8>) throws(E) -> Void
    ) throws(E) {
        if carriageReturns > 0 {
            try handOut(event, bytes, carriageReturnsFirst: carriageReturns, body)
        } else {
            try body(event, bytes)
        }
    }

    /// ``handOut(_:_:carriageReturns:_:)`` of a line holding CRs: apart, so that the common path needs
    /// no run-time metadata for `E?` (the function is unspecialised across modules). Never inlined,
    /// or its `E?` slot would be allocated (its metadata looked up) in every caller's prologue.
    @inline(never)
    private func handOut<E: Error>(
        _ event: MergeEvent, _ bytes: Span<UInt8>, carriageReturnsFirst carriageReturns: Int,
        _ body: (MergeEvent, Span<UInt8>) throws(E) -> Void
    ) throws(E) {
        var failure: E? = nil
        if countsCarriageReturnLine() {
            do throws(E) {
                try body(.bareCarriageReturns(event.location, count: carriageReturns), bytes.extracting(0..<0))
            } catch {
                failure = error
            }
        }
        do throws(E) { try body(event, bytes) } catch { if failure == nil { failure = error } }
        if let failure { throw failure }
    }

    /// Counts a line holding CRs (``MergeStatistics/bareCarriageReturnLines``); whether it is its
    /// input's first, whose ``MergeEvent/bareCarriageReturns(_:count:)`` warning is due (then counted
    /// in ``MergeStatistics/bareCarriageReturnInputs``).
    private func countsCarriageReturnLine() -> Bool {
        statistics.bareCarriageReturnLines += 1
        guard !warnedCarriageReturns else { return false }
        warnedCarriageReturns = true
        statistics.bareCarriageReturnInputs += 1
        return true
    }

    /// The next thing in the lane: reads and frames more bytes as needed, opens the lane's next input
    /// when one ends, and turns every problem into a step; `nil` when the lane is exhausted.
    private func nextStep() -> Step? {
        while true {
            if !hasSource {
                guard nextInput < inputs.count else { return nil }
                let input = inputs[nextInput]
                nextInput += 1
                framer.reset()
                sourceEnded = false
                sourceError = nil
                pausedBeforeSuccessorSince = nil
                warnedCarriageReturns = false
                self.inputIndex = input.index
                name = input.path == "-" ? FileSource.standardInputName : input.path
                if input.path != "-" { needsDescriptor?(self) }
                do {
                    self.source = try makeByteSource(
                        path: input.path, follow: follow, prefetchesGzip: prefetchesGzip)
                    hasSource = true
                } catch {
                    if error.isDescriptorExhaustion { exhaustion = error }
                    return .failed(error, droppedByteCount: 0, line: 0, offset: 0)
                }
            }
            if let event = framer.nextLine() {
                switch event {
                // The CRs inside the line, counted by the framer's scan for its end.
                case .line(let line):
                    return .line(line, carriageReturns: framer.carriageReturns(in: line))
                case .skipped(let error): return .skipped(error)
                }
            }
            if sourceEnded {
                if let error = sourceError {
                    // Damage or a read error: a partial line after the last complete one is not a line.
                    if error.isDescriptorExhaustion { exhaustion = error }
                    let line = framer.lineCount + framer.skippedCount + 1
                    let offset = framer.streamOffset
                    let dropped = framer.reset()
                    self.source = nil
                    hasSource = false
                    return .failed(error, droppedByteCount: dropped, line: line, offset: offset)
                }
                if let event = framer.finish() {
                    switch event {
                    case .line(let line):
                        return .line(line, carriageReturns: framer.carriageReturns(in: line))
                    case .skipped(let error): return .skipped(error)
                    }
                }
                self.source = nil
                hasSource = false
                continue
            }
            if self.source!.isReleased { needsDescriptor?(self) }
            do {
                let read = unsafe try framer.fill { free throws(InputError) -> Int in
                    unsafe try self.source!.read(into: free)
                }
                if read == 0 {
                    if let follow, follow.pausesAtEnd, endsFollowedInput(over: follow.isOver) == false { return nil }
                    sourceEnded = true
                } else {
                    pausedBeforeSuccessorSince = nil
                }
            } catch {
                sourceEnded = true
                sourceError = error
            }
        }
    }

    /// At a pause of a followed input (``FollowMode/pausesAtEnd``): whether the input ends here.
    ///
    /// While following, it ends only when a later input of the lane has appeared (a rotation) and this
    /// one is finished — its gzip member complete, no partial line — or was left unfinished for
    /// ``successorGrace`` (a capture killed): then an open member is reported as truncated. When
    /// following has ended (`over`), it ends; an open member is normal for a capture still running,
    /// but a partial line in it is reported as truncated (its bytes counted as dropped), never handed
    /// out as a line.
    private func endsFollowedInput(over: Bool) -> Bool {
        let open = !self.source!.endsCleanlyHere
        let partial = framer.pendingByteCount > 0
        var truncated = open && partial
        if !over {
            guard nextInput < inputs.count else { return false }
            let now = ContinuousClock.now
            let since = pausedBeforeSuccessorSince ?? now
            pausedBeforeSuccessorSince = since
            if open || partial {
                guard now - since >= Self.successorGrace else { return false }
                truncated = open
            }
        }
        if truncated, let gzip = self.source as? GzipSource {
            sourceError = .truncated(name: gzip.name, compressedOffset: gzip.compressedOffset)
        }
        return true
    }

    /// Where an event of the current input happened, with the time it is merged by: its own when it
    /// has one (which then carries over to later lines), else the latest one before it.
    private func location(line: Int, offset: UInt64, timestamp time: LineTime?) -> MergedLine {
        let (timestamp, source) = timing(time)
        return MergedLine(
            inputName: name, inputIndex: self.inputIndex, lineNumber: line, byteOffset: offset, timestamp: timestamp,
            timeSource: source)
    }

    /// The time an event of the current input is merged by, and where it came from (see
    /// ``location(line:offset:timestamp:)``); a time of its own carries over to later lines.
    @inline(__always)
    private func timing(_ time: LineTime?) -> (Timestamp?, MergedLine.TimeSource) {
        if let time, let own = time.timestamp {
            lastTimestamp = own
            return (own, .own(time))
        }
        return (lastTimestamp, .inheriting(lastTimestamp))
    }
}

@available(*, unavailable)
extension MergeLane: Sendable {}
