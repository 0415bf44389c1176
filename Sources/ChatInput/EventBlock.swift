import ChatStore
import IRCWire

/// A block of merged events and the bytes of their lines: what the parse-ahead thread fills and the
/// owner reads (``ParseAhead``), handed over whole, then recycled.
///
/// ```
///  bytes:  [ line 0 ][ line 1 ][ line 2 ] … [ line k ]   free …       (byteCapacity)
///  slots:  [ s0 0..<a ][ s1 a..<b ][ s2 b..<b ] …                      (eventCapacity)
///            │ a slot's range into `bytes` (empty for events that lend no bytes)
///  rare:   [ the events that are not lines (malformed, over-long, failed inputs, bare CRs) ]
/// ```
/// Each line's bytes are copied into the block once, one after another. A parsed line is kept as a
/// ``LentLine`` (its message and location, without the input's name): plain bytes, so no reference
/// is counted and no value witness runs to write it, and the owner borrows it in place
/// (``lend(from:names:lines:events:)``). The rare other events are kept whole beside the slots, and
/// their slot points at them; the owner puts back an input name of its own, so the two threads never
/// touch the same string's reference count.
///
/// Filling and reading allocate nothing once the block exists (its bytes grow only for a line longer
/// than the whole block; the list of rare events grows only past its first 64 in one block).
///
/// Thread safety: touched by one thread at a time; ``ParseAhead`` hands it from the filling thread
/// to the owner and back under its lock, which orders every access.
@safe
final class EventBlock {
    /// One event: its bytes in the block, and for an event that is not a parsed line the index of the
    /// whole event in ``rare`` (-1 for a line, whose ``LentLine`` is at the same index in `lines`).
    struct Slot {
        var start: Int32
        var count: Int32
        var rare: Int32
        /// For a block that defers its times: the CRs of the warning lent right before the event
        /// (``PendingLine/warning``), else 0.
        var warning: Int32 = 0
        /// For a line its ``renderer`` rendered: where its output starts in the renderer's output, and
        /// how many bytes it holds (0: not rendered).
        var outputStart: Int32 = 0
        var outputCount: Int32 = 0
    }

    /// At most this many events.
    let eventCapacity: Int
    /// Events in the block.
    private(set) var count = 0
    private let slots: UnsafeMutablePointer<Slot>
    /// The parsed lines, at their event's index (the entries of other events are not initialised).
    private let lines: UnsafeMutablePointer<LentLine>
    /// The framed lines waiting for their parse, at their event's index (``appendPending(_:_:)``).
    private let pending: UnsafeMutablePointer<PendingLine>
    /// The events that are not parsed lines, whole (their names left out).
    private var rare: [MergeEvent] = []
    /// Whether the block holds framed lines whose parse comes later (``parse()``), and lends events
    /// with times resolved in order (``lend(from:names:lastTimestamp:lines:events:)``); otherwise it
    /// holds parsed and timed events only.
    private(set) var defersTiming = false
    /// Whether ``parse()`` ran since the block was emptied (or there was nothing to parse).
    private(set) var isParsed = true
    /// Renders each line as it is parsed (or appended parsed), when the stage was given renderers.
    private let renderer: (any LineRendering)?
    /// Which tags ``parse()`` sorts into slots (the reader's ``MergeReader/tagScope``).
    private let tagScope: TagScope
    /// What ``parse()`` counted: lines, malformed lines, lines without a time of their own, unreadable
    /// time tags.
    private(set) var parseStatistics = MergeStatistics()
    private var storage: UnsafeMutableRawPointer
    /// The bytes the storage holds.
    private(set) var byteCapacity: Int
    /// Bytes of lines copied in so far.
    private(set) var byteCount = 0

    /// - Parameter renderer: renders each line where it is parsed (``LineRendering``); `nil` for none.
    /// - Allocations: the byte storage, the slots and the list of rare events, once.
    init(byteCapacity: Int, eventCapacity: Int, renderer: (any LineRendering)? = nil, tagScope: TagScope = .every) {
        precondition(byteCapacity > 0 && eventCapacity > 0, "a block holds something")
        precondition(byteCapacity <= Int(Int32.max), "a block's ranges are 32-bit")
        precondition(
            _isPOD(Slot.self) && _isPOD(LentLine.self) && _isPOD(PendingLine.self),
            "a slot is plain bytes: written and read without reference counts")
        self.byteCapacity = byteCapacity
        self.eventCapacity = eventCapacity
        self.renderer = renderer
        self.tagScope = tagScope
        unsafe storage = .allocate(byteCount: byteCapacity, alignment: 64)
        unsafe slots = .allocate(capacity: eventCapacity)
        // Lines are parsed where they lie (`parse()`), assigned field by field over whatever the
        // memory held: only a trivial type may be.
        precondition(_isPOD(LentLine.self), "a lent line is plain bytes")
        unsafe lines = .allocate(capacity: eventCapacity)
        unsafe pending = .allocate(capacity: eventCapacity)
        rare.reserveCapacity(64)
    }

    deinit {
        // SAFETY: allocated in init or `makeRoom(for:)`; no other thread holds the block any more.
        // Slots and lines are plain bytes: nothing to deinitialise.
        unsafe storage.deallocate()
        unsafe slots.deallocate()
        unsafe lines.deallocate()
        unsafe pending.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// Whether one more event with `byteCount` bytes fits.
    func fits(byteCount n: Int) -> Bool { count < eventCapacity && byteCount + n <= byteCapacity }

    /// Empties the block, keeping its storage; it will hold framed lines to parse later when
    /// `defersTiming`, else parsed events.
    ///
    /// - Complexity: O(1), O(rare events) when there were any. - Allocations: none.
    func reset(defersTiming: Bool = false) {
        count = 0
        byteCount = 0
        if !rare.isEmpty { rare.removeAll(keepingCapacity: true) }
        self.defersTiming = defersTiming
        isParsed = !defersTiming
        parseStatistics = MergeStatistics()
        renderer?.reset()
    }

    /// Grows the byte storage of an empty block to hold `byteCount` bytes (a line longer than the
    /// whole block; for blocks smaller than the framer's line limit).
    ///
    /// - Precondition: the block is empty.
    /// - Allocations: the new storage, when it grows.
    func makeRoom(for n: Int) {
        precondition(isEmpty, "only an empty block grows")
        guard n > byteCapacity else { return }
        precondition(n <= Int(Int32.max), "a block's ranges are 32-bit")
        // SAFETY: the block is empty: nothing refers to the old storage.
        unsafe storage.deallocate()
        unsafe storage = .allocate(byteCount: n, alignment: 64)
        byteCapacity = n
    }

    /// Appends `event` (its input's name left out) and a copy of `bytes`.
    ///
    /// - Precondition: ``fits(byteCount:)`` for `bytes.count`.
    /// - Complexity: O(`bytes.count`). - Allocations: none for a line.
    func append(_ event: MergeEvent, _ bytes: Span<UInt8>) {
        if case .line(let at, let message) = event {
            append(LentLine(at, message), bytes)
            return
        }
        let start = copy(bytes)
        // SAFETY: `count < eventCapacity` (checked by `copy`); a slot is plain bytes, so initialising over
        // an old one leaks nothing.
        unsafe (slots + count).initialize(
            to: Slot(start: Int32(start), count: Int32(bytes.count), rare: Int32(rare.count)))
        rare.append(event.named(""))
        count += 1
    }

    /// Appends a parsed line and a copy of its bytes.
    ///
    /// - Precondition: ``fits(byteCount:)`` for `bytes.count`.
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    func append(_ line: borrowing LentLine, _ bytes: Span<UInt8>) {
        let start = copy(bytes)
        // SAFETY: `count < eventCapacity` (checked by `copy`); a slot and a line are plain bytes, so
        // initialising over old ones leaks nothing.
        unsafe (lines + count).initialize(to: copy line)
        unsafe (slots + count).initialize(to: Slot(start: Int32(start), count: Int32(bytes.count), rare: -1))
        if let renderer {
            // SAFETY: both initialised just above; the copy of the bytes lies in the storage.
            unsafe render(renderer, count, storage.assumingMemoryBound(to: UInt8.self))
        }
        count += 1
    }

    /// Appends a framed line to parse later (``parse()``) and a copy of its bytes.
    ///
    /// - Precondition: ``defersTiming``; ``fits(byteCount:)`` for `bytes.count`.
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    func appendPending(_ line: PendingLine, _ bytes: Span<UInt8>) {
        precondition(defersTiming, "a block of parsed events takes no pending line")
        let start = copy(bytes)
        // SAFETY: `count < eventCapacity` (checked by `copy`); a slot and a pending line are plain
        // bytes, so initialising over old ones leaks nothing.
        unsafe (pending + count).initialize(to: line)
        unsafe (slots + count).initialize(
            to: Slot(start: Int32(start), count: Int32(bytes.count), rare: -1, warning: Int32(line.warning)))
        count += 1
    }

    /// Parses the block's framed lines in place (``appendPending(_:_:)``): each one becomes a
    /// ``LentLine`` with its own time if it has one (``MergedLine/TimeSource/none`` and no timestamp
    /// otherwise, inherited when lent), or a `.malformed` event in its place. Counts them in
    /// ``parseStatistics``, as ``MergeLane`` counts the lines it hands out. Run by whichever thread
    /// holds the block (``ParseAhead``).
    ///
    /// - Complexity: O(bytes of the lines). - Allocations: none, but past the block's first 64 rare
    ///   events (malformed lines).
    func parse() {
        guard !isParsed else { return }
        isParsed = true
        let base = unsafe storage.assumingMemoryBound(to: UInt8.self)
        var statistics = MergeStatistics()
        // Bound once a block: `if let renderer` of the property, a line, retained and released the
        // renderer a line (on the reader thread, while the owner reads the renderer's output: up to
        // 9% of a replay's samples; perf).
        let renderer = self.renderer
        let renders = renderer != nil
        let scope = tagScope
        for i in 0..<count {
            // SAFETY: `i < count`: the slot was initialised by an append.
            let slot = unsafe slots[i]
            guard slot.rare < 0 else { continue }
            // SAFETY: a line's slot in a deferring block: `appendPending` initialised `pending[i]`.
            let at = unsafe pending[i]
            // SAFETY: the slot's bytes were copied into the storage by `appendPending` (inside
            // `byteCount`); the span does not outlive this iteration.
            let bytes = unsafe Span(
                _unsafeElements: UnsafeBufferPointer(start: base + Int(slot.start), count: Int(slot.count)))
            // SAFETY: `i < count <= eventCapacity`. A lent line is plain bytes (checked in `init`), so
            // it is parsed and then assigned field by field where it lies, over an old line or memory
            // never written (every field is written before it is read): a message parsed apart and
            // stored cost two copies of its 300 bytes a line, a third inside the throwing parse.
            let line = unsafe lines + i
            do throws(LineError) {
                try unsafe line.pointee.message.reparse(bytes, tags: scope)
                let time = unsafe LineTime(
                    timeTag: line.pointee.message.tags[.time], sentTs: line.pointee.message.tags[.tmiSentTs], in: bytes)
                statistics.countParsed(time)
                unsafe line.pointee.timestamp = time.timestamp
                unsafe line.pointee.lineNumber = at.lineNumber
                unsafe line.pointee.byteOffset = at.byteOffset
                unsafe line.pointee.inputIndex = at.inputIndex
                // Without a time of its own: `.none` for now, inherited when lent.
                unsafe line.pointee.timeSource = MergedLine.TimeSource.own(time)
                unsafe line.pointee.terminator = at.terminator
                // SAFETY: `lines[i]` and `slots[i]` are initialised (above, and by `appendPending`).
                if renders { unsafe render(renderer.unsafelyUnwrapped, i, base) }
            } catch {
                statistics.countMalformed()
                let location = MergedLine(
                    inputName: "", inputIndex: at.inputIndex, lineNumber: at.lineNumber, byteOffset: at.byteOffset,
                    timestamp: nil, timeSource: .none)
                // SAFETY: `i < count`: the slot is initialised; it now points at the rare event.
                unsafe slots[i].rare = Int32(rare.count)
                rare.append(.malformed(location, error))
            }
        }
        parseStatistics = statistics
    }

    /// Renders line `i` (its ``LentLine`` and slot initialised, its bytes in the storage at `base`)
    /// and notes where its output lies in the slot.
    ///
    /// - Complexity: O(line). - Allocations: none once the renderer's output has grown.
    @unsafe
    @inline(__always)
    private func render(_ renderer: any LineRendering, _ i: Int, _ base: UnsafeMutablePointer<UInt8>) {
        // SAFETY (caller): `i < count` or `i == count` right after its append: the slot and line are initialised.
        let slot = unsafe slots[i]
        // SAFETY: the slot's bytes lie in the storage (copied in by an append); the span lives for the call.
        let bytes = unsafe Span(
            _unsafeElements: UnsafeBufferPointer(start: base + Int(slot.start), count: Int(slot.count)))
        let start = renderer.count
        // SAFETY: as above.
        guard unsafe renderer.render(&lines[i], bytes) else { return }
        precondition(renderer.count - start <= Int(Int32.max) && renderer.count <= Int(Int32.max), "output past 2 GiB")
        unsafe slots[i].outputStart = Int32(start)
        unsafe slots[i].outputCount = Int32(renderer.count - start)
    }

    /// Copies `bytes` after the block's bytes so far; where they start.
    ///
    /// - Precondition: ``fits(byteCount:)`` for `bytes.count`.
    @inline(__always)
    private func copy(_ bytes: Span<UInt8>) -> Int {
        precondition(fits(byteCount: bytes.count), "the event does not fit the block")
        let start = byteCount
        if !bytes.isEmpty {
            unsafe bytes.withUnsafeBytes { source in
                // SAFETY: `start + source.count <= byteCapacity` (checked above): the copy stays inside
                // the storage; the source is the lent line, which does not overlap it.
                unsafe (storage + start).copyMemory(from: source.baseAddress!, byteCount: source.count)
            }
            byteCount += bytes.count
        }
        return start
    }

    /// Lends the events from `index` on, in order: each parsed line in place to `line` with its
    /// rendering (the bytes its ``LineRendering`` wrote for it; empty when it was not rendered), each
    /// other event to `event` with its input's name from `names` (by ``MergedLine/inputIndex``), and
    /// their bytes; until a call returns `false` or the block ends.
    ///
    /// In a block that defers its times (``defersTiming``) each event's time is resolved here, in
    /// order, as ``MergeLane`` does: a line's own time becomes `lastTimestamp`; a line without one,
    /// and every other event, takes `lastTimestamp` (``MergedLine/TimeSource/inherited``, or
    /// ``MergedLine/TimeSource/none`` before any). A line's ``MergeEvent/bareCarriageReturns(_:count:)``
    /// warning is lent right before it (and the line after it, whatever the warning's call returned).
    ///
    /// Before a line is lent, the channel of the event ``ParseAhead/aheadDistance`` after it (when that
    /// is a line of the block) is shown to `ahead` with its bytes: a caller that prefetches what that
    /// line will need (``ChatStore/lookahead(_:in:_:)``) has it near when it comes.
    ///
    /// - Returns: the index after the last event lent.
    /// - Precondition: `index < count`; the block is parsed (``isParsed``).
    /// - Complexity: O(events lent). - Allocations: none.
    @inline(__always)
    func lend(
        from index: Int, names: [String], lastTimestamp last: inout Timestamp?,
        lines line: (borrowing LentLine, Span<UInt8>, Span<UInt8>) -> Bool,
        ahead: (ByteRange?, Span<UInt8>) -> Void,
        events event: (MergeEvent, Span<UInt8>) -> Bool
    ) -> Int {
        guard let renderer else {
            // No renderings: every line's is the empty span at the storage's start.
            // SAFETY: an empty span at an allocated address.
            let none = unsafe Span(
                _unsafeElements: UnsafeBufferPointer(
                    start: UnsafePointer(storage.assumingMemoryBound(to: UInt8.self)), count: 0))
            return lend(
                from: index, names: names, lastTimestamp: &last, output: none, lines: line, ahead: ahead, events: event)
        }
        var next = index
        renderer.withOutput { output in
            next = lend(
                from: index, names: names, lastTimestamp: &last, output: output, lines: line, ahead: ahead,
                events: event)
        }
        return next
    }

    /// ``lend(from:names:lastTimestamp:lines:events:)`` with the renderer's `output` at hand.
    @inline(__always)
    private func lend(
        from index: Int, names: [String], lastTimestamp last: inout Timestamp?, output: Span<UInt8>,
        lines line: (borrowing LentLine, Span<UInt8>, Span<UInt8>) -> Bool,
        ahead: (ByteRange?, Span<UInt8>) -> Void,
        events event: (MergeEvent, Span<UInt8>) -> Bool
    ) -> Int {
        precondition(index >= 0 && index < count, "no such event in the block")
        precondition(isParsed, "a block is parsed before it is lent")
        let defers = defersTiming
        let base = unsafe storage.assumingMemoryBound(to: UInt8.self)
        var i = index
        while i < count {
            // SAFETY: `i < count <= eventCapacity`: the slot was initialised by an append (or the
            // parse) before the block was handed to this thread (the ring's lock orders them).
            let slot = unsafe slots[i]
            let start = Int(slot.start)
            let length = Int(slot.count)
            precondition(start + length <= byteCount, "an event's bytes lie in the block")
            // SAFETY: `start + length <= byteCount <= byteCapacity`: the bytes were copied in by an append
            // before the block was handed over, and are not written again until the block is given back,
            // after this call. The span does not outlive the call it is lent to.
            let bytes = unsafe Span(_unsafeElements: UnsafeBufferPointer(start: base + start, count: length))
            var go = true
            let shown = i &+ ParseAhead.aheadDistance
            if shown < count {
                // SAFETY: below `count`: initialised as the slot above; a line's (`rare < 0`) bytes
                // lie in the block (checked as the line's own are when it is lent).
                let next = unsafe slots[shown]
                if next.rare < 0, Int(next.start) + Int(next.count) <= byteCount {
                    unsafe ahead(
                        lines[shown].message.channel,
                        Span(
                            _unsafeElements: UnsafeBufferPointer(start: base + Int(next.start), count: Int(next.count)))
                    )
                }
            }
            if slot.rare < 0 {
                if defers {
                    // SAFETY: a line's slot (`rare < 0`): an append or the parse initialised `lines[i]`;
                    // the block is this thread's until it is given back.
                    unsafe Self.inherit(&lines[i], last: &last)
                    if slot.warning > 0 {
                        // SAFETY: as above.
                        let at = unsafe lines[i].location(named: names[lines[i].inputIndex])
                        go = event(.bareCarriageReturns(at, count: Int(slot.warning)), bytes.extracting(0..<0))
                    }
                }
                // A line's output lies in `output` (noted by `render`, which checked the renderer's count).
                let rendered = output.extracting(Int(slot.outputStart)..<Int(slot.outputStart + slot.outputCount))
                // SAFETY: a line's slot (`rare < 0`): `lines[i]` is initialised; it is lent in place.
                // The pointee is copied for the call (a large struct borrowed from anywhere but a
                // whole parameter is; see ``OutputPipeline``'s `ingest`). Passed `inout` it is not,
                // but an `inout` argument passed on borrowed is copied in turn: the copy only moves
                // unless every step down to the store's readers takes the line `inout` (measured).
                go = unsafe line(lines[i], bytes, rendered) && go
            } else {
                let whole = rare[Int(slot.rare)]
                let name = names[whole.location.inputIndex]
                if defers {
                    let timed = whole.named(name, inheriting: last)
                    if slot.warning > 0 {
                        go = event(
                            .bareCarriageReturns(timed.location, count: Int(slot.warning)), bytes.extracting(0..<0))
                    }
                    go = event(timed, bytes) && go
                } else {
                    go = event(whole.named(name), bytes)
                }
            }
            i += 1
            if !go { break }
        }
        return i
    }

    /// A line's time, resolved in order: its own becomes `last`; without one it takes `last`.
    @inline(__always)
    private static func inherit(_ line: inout LentLine, last: inout Timestamp?) {
        if line.timeSource == MergedLine.TimeSource.none {
            line.timestamp = last
            line.timeSource = .inheriting(last)
        } else {
            last = line.timestamp
        }
    }
}

@available(*, unavailable)
extension EventBlock: Sendable {}

extension MergeEvent {
    /// The same event with `name` as its input's name; the other fields are copied one by one, so the
    /// old name is not retained.
    func named(_ name: String) -> MergeEvent {
        switch self {
        case .line(let at, let message): .line(at.named(name), message)
        case .malformed(let at, let error): .malformed(at.named(name), error)
        case .skipped(let at, let error): .skipped(at.named(name), error)
        case .inputFailed(let at, let error, let dropped):
            .inputFailed(at.named(name), error, droppedByteCount: dropped)
        case .bareCarriageReturns(let at, let count): .bareCarriageReturns(at.named(name), count: count)
        }
    }
}

extension MergeEvent {
    /// The same event with `name` as its input's name, timed by `last` (the latest time before it:
    /// ``MergedLine/TimeSource/inherited``, or ``MergedLine/TimeSource/none`` when there is none).
    fileprivate func named(_ name: String, inheriting last: Timestamp?) -> MergeEvent {
        let source = MergedLine.TimeSource.inheriting(last)
        return switch self {
        case .line(let at, let message): .line(at.named(name, last, source), message)
        case .malformed(let at, let error): .malformed(at.named(name, last, source), error)
        case .skipped(let at, let error): .skipped(at.named(name, last, source), error)
        case .inputFailed(let at, let error, let dropped):
            .inputFailed(at.named(name, last, source), error, droppedByteCount: dropped)
        case .bareCarriageReturns(let at, let count): .bareCarriageReturns(at.named(name, last, source), count: count)
        }
    }
}

extension MergedLine {
    fileprivate func named(_ name: String) -> MergedLine {
        named(name, timestamp, timeSource)
    }

    fileprivate func named(_ name: String, _ timestamp: Timestamp?, _ timeSource: TimeSource) -> MergedLine {
        MergedLine(
            inputName: name, inputIndex: inputIndex, lineNumber: lineNumber, byteOffset: byteOffset,
            timestamp: timestamp, timeSource: timeSource, terminator: terminator)
    }
}
