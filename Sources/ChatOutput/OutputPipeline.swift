import CHint
import ChatFormat
public import ChatInput
public import ChatPosix
public import ChatStore
import IRCWire
public import TwitchSession

/// The output pipeline of `replay`, `dump` and `tail`: runs chat — recorded (a ``MergeReader``'s events)
/// or live (``handleLive(_:_:receivedAt:lineNumber:)``) — through the live path's channel rings and view
/// model, filters it, and writes it out in one of the output formats.
///
/// Without moderation each line is written as soon as it is appended (one line out per line in), into
/// the ``OutputSink``, which batches writes and flushes them within ``OutputSink/maxDelay``: the pacer's
/// waits and ``idle()`` (for follow polls and live ticks) give it the chance.
/// With ``PipelineOptions/applyModeration`` each line waits for its own channel's look-ahead (see
/// ``ModerationHold``): until its ring evicts it, until ``PipelineOptions/moderationWindow`` has passed,
/// or the end. Lines are written in input order, carrying the tombstone a later CLEARMSG/CLEARCHAT put
/// on them; a line released before its look-ahead ended (the hold's byte limit) is counted.
///
/// A line whose channel is past the store's ``ChatStore/channelLimit`` is reported with its position
/// and still written (counted as ``PipelineSummary/untracked``: no tombstone, no de-duplication; with
/// moderation held as a copy, in input order); with no sink (`dump`) it is counted as
/// ``PipelineSummary/dropped``. Problems are described through `diagnose` up to
/// ``PipelineOptions/reportLimit`` (0: all), then only counted.
///
/// Owns the store while it runs (the ingest thread); not `Sendable`.
///
/// The per-line state (output buffer, counters, held-back lines) is plain stored properties: release
/// builds skip the dynamic exclusivity checks (Package.swift), debug builds keep them.
@safe
public final class OutputPipeline {
    public let options: PipelineOptions
    public let store: ChatStore
    let sink: OutputSink?
    let diagnose: (String) -> Void
    private let text: TextRenderer
    let reader: Reader
    private let channelFilter: [[UInt8]]
    private let userFilter: [[UInt8]]
    /// Whether any filter is set (else ``passes(_:_:_:time:)`` is skipped).
    private let filters: Bool
    /// When the pipeline was made (monotonic milliseconds: an `Int64`, not a `ContinuousClock.Instant`,
    /// whose resilient type gave this class a layout known only at run time).
    private let startedMs = Moment.monotonicMilliseconds()
    /// Raised (e.g. by SIGINT) to end ``run(_:)`` early: what was written so far is flushed.
    public var stop: StopFlag? = nil
    /// The source ``run(_:)`` reads, while it runs: where a diagnostic looks up a line's input name.
    private var source: (any EventSource)? = nil

    // Per-line state: plain stored properties, touched by the owner thread only.
    var writer = JSONWriter()
    /// What happened so far.
    public internal(set) var summary = PipelineSummary()
    var reported = 0
    /// Lines appended but not yet written (moderation mode), in input order.
    var hold = ModerationHold()
    /// The moderation look-ahead's clock: the newest line time seen (and wall time for live input).
    var clock = Int64.min
    let pace: Pacer?
    /// An output error met in ``idle()``, thrown by the next ``handle(_:_:)``.
    var idleFailure: OutputError? = nil
    /// Events until the next look at the output's age (lines filtered out write nothing).
    var eventsUntilFlushCheck = 0
    /// Lines until the next view-model tick with a fresh clock reading.
    var linesUntilPublish = 0
    /// `--dedupe`'s memory of recent message ids and id-less lines, when asked for.
    var dedupe: RepeatFilter? = nil
    /// Lines between two clock readings for the view model's tick (its interval is tens of ms).
    private static let publishStride = 16

    /// - Parameters:
    ///   - sink: where lines go; `nil` to only fill the store (for `dump`).
    ///   - diagnose: receives one message per problem (file and line number included).
    public init(options: PipelineOptions, sink: OutputSink?, diagnose: @escaping (String) -> Void) {
        self.options = options
        // Nothing in replay or dump reads sender tokens (encoders read names from the entry bytes).
        store = ChatStore(
            capacity: options.capacity, dedupeSharedChat: options.dedupeShared, internsSenders: false,
            channelLimit: options.channelLimit, pages: .system, budget: options.budget)
        self.sink = sink
        self.diagnose = diagnose
        text = TextRenderer(color: options.color)
        reader = store.readers.makeReader()!
        channelFilter = options.channels.map { Array($0.utf8) }
        userFilter = options.users.map { Array($0.lowercased().utf8) }
        filters =
            options.dedupeShared || options.since != nil || options.until != nil || !options.channels.isEmpty
            || !options.users.isEmpty || !options.types.isEmpty || options.grep != nil
        pace = options.speed.map { Pacer(speed: $0) }
        if let window = options.dedupeWindowMs { dedupe = RepeatFilter(windowMs: window) }
        summary.channelLimit = store.channelLimit
        if options.applyModeration && options.budget != nil {
            // The budget never takes a line the look-ahead still holds: moderation must still reach it.
            store.budgetKeeps = { [unowned self] channel in self.hold.firstNeeded(channel) }
        }
    }

    /// Reads every event of `input` (until ``stop`` is raised), then writes what is still held back
    /// and flushes. On the way out (the end, ``stop``, an output error) `input` is ended
    /// (``EventSource/finish()``) before anything is flushed: a ``ParseAhead`` stage's thread never
    /// reads on.
    @_specialize(where Events == MergeReader)
    @_specialize(where Events == ParseAhead)
    public func run<Events: EventSource>(_ input: Events) throws(OutputError) {
        var failure: OutputError? = nil
        let stop = self.stop  // set before the run; read once
        source = input
        defer { source = nil }
        while failure == nil && stop?.isRaised != true {
            // Lines go to `handleLine` borrowed where the source keeps them; the rare other events, in
            // their place between the lines, to `handle`.
            let more = input.next(
                rendered: { line, bytes, rendered in
                    do throws(OutputError) { try handleLine(line, bytes, rendered: rendered, inputName: nil) } catch {
                        failure = error
                        return false
                    }
                    return stop?.isRaised != true
                },
                ahead: { channel, bytes in
                    store.lookahead(channel, in: bytes) { lines in
                        // SAFETY: a prefetch only hints; it reads nothing and never faults.
                        for i in lines.indices { unsafe chint_prefetch_write(UnsafeRawPointer(bitPattern: lines[i])) }
                    }
                },
                events: { event, bytes in
                    do throws(OutputError) { try handle(event, bytes) } catch {
                        failure = error
                        return false
                    }
                    return stop?.isRaised != true
                })
            if !more { break }
        }
        input.finish()
        if let failure { throw failure }
        try finish()
    }

    /// What renders lines where a ``ParseAhead`` stage parses them (``ParseAhead/init(_:blockBytes:blockEvents:blockCount:renderer:)``),
    /// so that ``run(_:)`` copies each line's output instead of encoding it: for the json, irc and
    /// text formats written without moderation, where a line's output depends on the line alone (its
    /// own time; no tombstone; a shared-chat mirror, whose output differs, is encoded here again).
    /// `nil` when rendering ahead does not apply: raw output (the line itself), moderation (lines
    /// are written with the marks later lines put on them), no sink (`dump`).
    ///
    /// - Complexity: O(1); the factory allocates a renderer and its output.
    public func renderer() -> (() -> any LineRendering)? {
        guard sink != nil, options.format != .raw, !options.applyModeration else { return nil }
        let format = options.format
        let json = options.json
        let text = self.text
        return { OutputRenderer(format: format, json: json, text: text) }
    }

    /// For idle points (a pacer wait, a follow poll, a live loop tick): flushes the output when its
    /// oldest byte is ``OutputSink/maxDelay`` old.
    ///
    /// - Returns: when to call again (`nil`: nothing is waiting). An output error is thrown by the
    ///   next ``handle(_:_:)``.
    @discardableResult
    public func idle() -> ContinuousClock.Instant? {
        guard self.idleFailure == nil, let sink else { return nil }
        do throws(OutputError) { return try sink.flushIfDue(now: .now) } catch {
            self.idleFailure = error
            return nil
        }
    }

    /// Handles one event of a ``MergeReader``.
    public func handle(_ event: MergeEvent, _ bytes: Span<UInt8>) throws(OutputError) {
        if case .line(let at, let message) = event {
            try handleLine(LentLine(at, message), bytes, inputName: at.inputName)
            return
        }
        try beginEvent()
        switch event {
        case .line:
            break  // handled above
        case .malformed:
            summary.malformed += 1
            report(event.diagnostic)
        case .skipped:
            summary.skipped += 1
            report(event.diagnostic)
        case .inputFailed(_, let error, _):
            if error.isDamage {
                summary.damagedInputs += 1
            } else {
                summary.failedInputs += 1
            }
            diagnose(event.diagnostic)
        case .bareCarriageReturns:
            summary.bareCarriageReturnInputs += 1
            diagnose(event.diagnostic)
        }
    }

    /// Handles one parsed line (``EventSource/next(lines:events:)``), borrowed where its source keeps
    /// it: the line event of ``handle(_:_:)`` without the event around it.
    ///
    /// - Parameter inputName: the input's name for a diagnostic about the line; by default looked up
    ///   (by ``LentLine/inputIndex``) in the source ``run(_:)`` reads.
    /// - Complexity: O(line length). - Allocations: none per line.
    public func handleLine(_ line: borrowing LentLine, _ bytes: Span<UInt8>, inputName: String? = nil)
        throws(OutputError)
    {
        try handleLine(line, bytes, rendered: bytes.extracting(0..<0), inputName: inputName)
    }

    /// ``handleLine(_:_:inputName:)`` with the line's rendering (``renderer()``; empty: none), which
    /// is written as the line's output when it is what ``write(_:_:_:time:terminator:rendered:to:)``
    /// would encode.
    private func handleLine(
        _ line: borrowing LentLine, _ bytes: Span<UInt8>, rendered: Span<UInt8>, inputName: String?
    ) throws(OutputError) {
        try beginEvent()
        // `options.speed` first: an unpaced run (the common case) copies no `Pacer?` per line.
        // Only lines inside `--since`/`--until` are paced: the time the window excludes is skipped.
        if options.speed != nil, let t = line.timestamp, isInTimeWindow(t), let pace = self.pace {
            // The pacer calls `idle()` while it waits.
            let go = pace.wait(until: t.milliseconds, stop: stop, idle: { self.idle() })
            guard go else { return }
            if let idleFailure = self.idleFailure { throw idleFailure }
        }
        summary.lines += 1
        if options.dedupeWindowMs != nil {
            switch dedupe!.check(line.message, in: bytes, at: line.timestamp?.milliseconds, input: line.inputIndex) {
            case .new: break
            case .repeatedId:
                summary.duplicates += 1
                return
            case .repeatedLine:
                summary.duplicateLines += 1
                return
            }
        }
        try ingest(bytes, line, inputName, rendered: rendered)
    }

    /// What every event does first: an output error met in ``idle()`` is thrown, and now and then the
    /// output is flushed if it is due.
    @inline(__always)
    private func beginEvent() throws(OutputError) {
        if let idleFailure = self.idleFailure { throw idleFailure }
        eventsUntilFlushCheck -= 1
        if eventsUntilFlushCheck <= 0, let sink {
            eventsUntilFlushCheck = 1024
            try sink.flushIfDue(now: .now)
        }
    }

    /// Writes a session record of a live source: always on stderr, and as a JSON object in the
    /// `json` format (so that a gap is never a silent hole in the data).
    public func record(_ record: SessionRecord) throws(OutputError) {
        diagnose("\(record)")
        guard options.format == .json, let sink else { return }
        writer.reset()
        RecordEncoder.encode(record, into: &writer)
        try writer.withBytes { bytes throws(OutputError) in try sink.write(bytes) }
        try sink.endLine()
    }

    /// Reports and counts a partial line of a live source that its connection cut off (it counts as
    /// ``PipelineSummary/cutOff``, not as an over-long line).
    public func noteCutOff(_ message: String) {
        summary.cutOff += 1
        report(message)
    }

    /// Writes every held-back line and flushes.
    public func finish() throws(OutputError) {
        try releaseHeld(force: true)
        store.publish(now: elapsedMilliseconds(), force: true)
        try sink?.flush()
    }

    /// Writes the newest `count` entries of every channel with a name, channels in order of first
    /// sight, to `sink` in the output format (what `dump` prints after the replay), then flushes.
    ///
    /// - Complexity: O(entries written). - Allocations: none once the line buffer has grown.
    public func writeWindows(last count: Int, to sink: OutputSink) throws(OutputError) {
        for c in 0..<store.channelCount {
            guard let log = store.log(at: c), !log.name.isEmpty else { continue }
            let live = log.ring.liveRange
            let lower = max(live.lowerBound, live.upperBound >= UInt64(count) ? live.upperBound - UInt64(count) : 0)
            var failure: OutputError? = nil
            log.ring.withEntries(in: lower..<live.upperBound, reader: reader) { info, bytes in
                guard failure == nil else { return }
                do throws(OutputError) { try writeEntry(info, bytes, to: sink) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        try sink.flush()
    }

    private func ingest(
        _ bytes: Span<UInt8>, _ at: borrowing LentLine, _ inputName: String?, rendered: Span<UInt8>
    ) throws(OutputError) {
        let holds = options.applyModeration && sink != nil
        let placement: ChatStore.Placement
        do throws(StoreError) {
            // `at.message` is copied for the call (305 bytes, a `memcpy`): a borrowed argument passed
            // into another module is copied unless it is a whole borrowed parameter of the caller (a
            // field, a pointee or an `inout` one is; measured). Only an `inout` or pointer chain down
            // to every reader of the message in ChatStore would avoid it.
            placement = try store.append(bytes, message: at.message, receivedAt: at.timestamp ?? .epoch)
        } catch {
            let index = at.inputIndex
            let name = inputName ?? source?.inputName(at: index) ?? ""
            try refused(bytes, at.message, at.location(named: name), error)
            return
        }
        if holds, let evicted = placement.evicted {
            // The append evicted the channel's oldest entry: keep its marks if it is still held.
            hold.noteEviction(
                channel: placement.channel, seq: evicted, tombstone: placement.evictedTombstone)
        }
        // O(1) between ticks; a tick visits dirty channels only. The clock is read every few lines.
        // Unobserved (replay, dump), no ticks: each visited every changed channel's log and ring,
        // a few cache misses a channel, 4% of replay's profile at 10,000 channels for no reader.
        linesUntilPublish -= 1
        if linesUntilPublish <= 0 && store.viewModel.isObserved {
            linesUntilPublish = Self.publishStride
            store.publish(now: elapsedMilliseconds())
        }
        // Borrowed when written (below): bound here (`guard let sink`), the sink was retained and released
        // a line, the release a locked instruction right after the line's JSON.
        guard let sinkRef = unsafe sink.map({ unsafe Unmanaged.passUnretained($0) }) else { return }
        if holds {
            var clock = self.clock
            if let t = at.timestamp?.milliseconds, t > clock {
                clock = t
                self.clock = t
            }
            let due = options.moderationWindow.map { clock == Int64.min ? Int64.max : clock &+ $0 } ?? Int64.max
            hold.hold(
                bytes,
                ModerationHold.Line(
                    channel: placement.channel, seq: placement.seq, start: 0, count: 0, due: due,
                    parsed: at.message.line, terminator: at.terminator, isMirror: placement.isMirror,
                    time: at.timestamp?.milliseconds ?? 0))
            try releaseHeld(force: false)
            return
        }
        let context = LineContext(
            timestamp: Self.ownTime(at.timeSource, at.timestamp), tombstone: nil, isMirror: placement.isMirror)
        let (message, time, terminator) = (at.message, at.timestamp, at.terminator)
        var failure: OutputError? = nil
        unsafe sinkRef._withUnsafeGuaranteedRef { sink in
            do throws(OutputError) {
                try write(bytes, message, context, time: time, terminator: terminator, rendered: rendered, to: sink)
            } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Writes an entry read back from its ring, with its tombstone.
    func writeEntry(_ info: EntryInfo, _ bytes: Span<UInt8>, to sink: OutputSink) throws(OutputError) {
        let message = TwitchMessage(info.parsed, in: bytes)
        let time = LineTime(of: message, in: bytes).timestamp
        let context = LineContext(timestamp: time, tombstone: info.tombstone, isMirror: info.isMirror)
        // The entry's receipt time is the line's time or, without one, the time of the line before it.
        let filterTime = info.receivedAt == .epoch ? time : info.receivedAt
        // The ring keeps no terminator: raw output uses CRLF.
        try write(bytes, message, context, time: filterTime, terminator: .crlf, to: sink)
    }

    /// Writes one line in the output format, if it passes the filters.
    ///
    /// - Parameters:
    ///   - time: the time `--since`/`--until` compare: the line's own time or, for a line without
    ///     one (JOIN, NOTICE, …), the time of the line before it in its input.
    ///   - rendered: the line's output made ahead (``renderer()``) for a context without tombstone
    ///     and mirror mark, copied instead of encoding the line when `context` is such; empty: none.
    func write(
        _ bytes: Span<UInt8>, _ message: TwitchMessage, _ context: LineContext, time: Timestamp?,
        terminator: LineTerminator, rendered: Span<UInt8>? = nil, to sink: OutputSink
    ) throws(OutputError) {
        if filters { guard passes(bytes, message, context, time: time) else { return } }
        if let rendered, !rendered.isEmpty, context.tombstone == nil, !context.isMirror {
            try sink.write(rendered)
            try sink.endLine()
            summary.written += 1
            return
        }
        if options.format == .raw {
            // The line as it came, straight into the sink's buffer.
            try sink.write(bytes)
            switch terminator {
            case .crlf: try sink.write(byte: 0x0D, 0x0A)
            case .lf, .none: try sink.write(byte: 0x0A)  // a last line without terminator still ends the output line
            }
            try sink.endLine()
            summary.written += 1
            return
        }
        writer.reset()
        Self.encode(bytes, message, context, format: options.format, json: options.json, text: text, into: &writer)
        try writer.withBytes { bytes throws(OutputError) in try sink.write(bytes) }
        try sink.endLine()
        summary.written += 1
    }

    /// Appends a line's output in `format` (and its newline) to `writer`; nothing for raw output,
    /// which is the line itself. What ``write(_:_:_:time:terminator:rendered:to:)`` writes, and an
    /// ``OutputRenderer`` renders ahead.
    ///
    /// - Complexity: O(line). - Allocations: none once the writer's buffer has grown.
    @inline(__always)
    static func encode(
        _ bytes: Span<UInt8>, _ message: TwitchMessage, _ context: LineContext, format: OutputFormat,
        json: JSONOptions, text: TextRenderer, into writer: inout JSONWriter
    ) {
        switch format {
        case .raw:
            break
        case .irc:
            IRCAtomsEncoder.encode(bytes, message, into: &writer)
            writer.raw(byte: 0x0A)
        case .json:
            TypedJSONEncoder.encode(bytes, message, context, options: json, into: &writer)
            writer.raw(byte: 0x0A)
        case .text:
            text.render(bytes, message, context, into: &writer.buffer)
        }
    }

    // MARK: Filters

    /// Whether `t` is inside `--since`/`--until` (always, without them).
    ///
    /// - Complexity: O(1). - Allocations: none.
    private func isInTimeWindow(_ t: Timestamp) -> Bool {
        if let since = options.since, t < since { return false }
        if let until = options.until, t >= until { return false }
        return true
    }

    private func passes(_ bytes: Span<UInt8>, _ message: TwitchMessage, _ context: LineContext, time: Timestamp?)
        -> Bool
    {
        if options.dedupeShared && context.isMirror { return false }
        if options.since != nil || options.until != nil {
            // A line before the input's first timed line has no time: it is before any `--until`,
            // and not known to be at or after a `--since`.
            guard let t = time else { return options.since == nil }
            guard isInTimeWindow(t) else { return false }
        }
        if !channelFilter.isEmpty {
            // A capture record counts for the channel it names.
            guard let channel = message.recordChannel(in: bytes),
                channelFilter.contains(where: { bytes.equals($0, at: channel.range) })
            else { return false }
        }
        if !userFilter.isEmpty {
            // The sender, or the user the line is about (the target of a CLEARCHAT or CLEARMSG, the
            // recipient of a gift).
            let login = message.command == .usernotice ? message.tags[.login]?.raw : message.senderLogin(in: bytes)
            let about = message.about(in: bytes)?.raw
            guard
                userFilter.contains(where: { user in
                    login.map { bytes.equals(lowercased: user, at: $0.range) } == true
                        || about.map { bytes.equals(lowercased: user, at: $0.range) } == true
                })
            else { return false }
        }
        if !options.types.isEmpty && !options.types.contains(message.typeName(in: bytes).description) { return false }
        if let grep = options.grep {
            guard let t = message.text(in: bytes) ?? message.privmsg(in: bytes)?.text else { return false }
            guard String(decoding: bytes, in: t).contains(grep) else { return false }
        }
        return true
    }

    // MARK: Helpers

    /// The line's own time (not one inherited from an earlier line).
    func ownTime(_ at: MergedLine) -> Timestamp? { Self.ownTime(at.timeSource, at.timestamp) }

    /// The own time of a line whose time is `timestamp`, found as `source` says.
    static func ownTime(_ source: MergedLine.TimeSource, _ timestamp: Timestamp?) -> Timestamp? {
        switch source {
        case .timeTag, .tmiSentTs: timestamp
        // A live line without a time tag has the time we received it for ordering and filters, but
        // its `ts` is `null`, as in a replay of its capture (docs/ndjson.md: never an invented time).
        case .received, .inherited, .none: nil
        }
    }

    /// Counts a problem and describes it while under ``PipelineOptions/reportLimit``; the message is
    /// built only then (past the limit a problem costs a count, not a String).
    public func report(_ message: @autoclosure () -> String) {
        self.reported += 1
        let reported = self.reported
        if options.reportLimit <= 0 || reported <= options.reportLimit {
            diagnose(message())
        } else if reported == options.reportLimit + 1 {
            diagnose("(further problems are only counted; see the summary)")
        }
    }

    private func elapsedMilliseconds() -> Int64 { Moment.monotonicMilliseconds() - startedMs }
}

@available(*, unavailable)
extension OutputPipeline: Sendable {}
