import ChatFormat
import ChatStore
import IRCWire
import TwitchSession

/// The backfill of gaps, on the ingest thread: remembers the last lines of each channel, and when a
/// channel is rejoined after a gap, asks the ``BackfillFetcher`` for its recent messages, holds the
/// channel's live lines meanwhile (bounded in time, lines and bytes), then writes in order: the
/// gap's record (saying what the backfill recovered), the recovered lines (the service's copies,
/// tagged `historical=1`, stamped with the service's receive time), and the held live lines.
///
/// Confined to the ingest thread, like ``LiveSession``.
final class BackfillCoordinator {
    /// A live line held while its channel's backfill is fetched.
    struct Held {
        var bytes: [UInt8]
        var receivedAt: Moment
        var lineNumber: Int
    }

    /// A gap waiting for the service's answer.
    struct Pending {
        var id: Int
        var gap: Gap
        var lastSeen: Timestamp?
        var deadlineMs: Int64
        var held: [Held] = []
        var heldBytes = 0
        /// Fingerprints of the held lines: seen live, so never written again as historical.
        var seen: Set<UInt64> = []
        /// Fingerprints of the held lines with an `id` tag: chat a service records, each line once. What
        /// tells that an answer has caught up (``reaches(_:_:)``); a line without an id (a JOIN, PART or
        /// ROOMSTATE) can come again word for word, so its copy in an answer may be an older one.
        var seenWithId: Set<UInt64> = []
        /// An answer that had not caught up with the live chat yet (it holds none of the held lines),
        /// kept in case no later one does before the wait ends; and when to ask again.
        var behindAnswer: BackfillFetcher.Outcome? = nil
        /// The first answer that had caught up, kept while a second one is asked for
        /// (``confirmMs``); used when that one does not come.
        var reachedAnswer: BackfillFetcher.Outcome? = nil
        var retryAtMs: Int64? = nil
        var retries = 0
    }

    final class ChannelState {
        let name: String
        var recent = RecentLines()
        var pending: Pending? = nil
        /// Ids (by fingerprint) of the lines the last backfill wrote: the service may be ahead of the
        /// live connection, so some of them are still to arrive live, and are then dropped (once each).
        var recovered: Set<UInt64> = []
        /// Until when (monotonic milliseconds) ``recovered`` is looked at.
        var recoveredUntilMs: Int64 = 0
        init(name: String) { self.name = name }
    }

    let source: RecentMessagesSource
    private let fetcher: any BackfillFetching
    private let onLine: LiveSession.LineHandler
    private let onRecord: LiveSession.RecordHandler
    private let onProblem: LiveSession.ProblemHandler
    /// Channels by the FNV-1a hash of their login: no string is made per line.
    private var channels: [UInt64: ChannelState] = [:]
    private var nextId = 1
    /// The channels waiting for an answer, by request id: what the loop looks at each turn.
    private var waiting: [Int: ChannelState] = [:]
    private(set) var counters = BackfillCounters()

    init(
        source: RecentMessagesSource, fetcher: any BackfillFetching, onLine: @escaping LiveSession.LineHandler,
        onRecord: @escaping LiveSession.RecordHandler, onProblem: @escaping LiveSession.ProblemHandler
    ) {
        self.source = source
        self.fetcher = fetcher
        self.onLine = onLine
        self.onRecord = onRecord
        self.onProblem = onProblem
    }

    private static func key(_ bytes: Span<UInt8>, _ range: Range<Int>) -> UInt64 {
        var hash = FNV1a64()
        hash.add(bytes, range)
        return hash.value
    }

    private func state(named name: String) -> ChannelState {
        let utf8 = Array(name.utf8)
        let key = Self.key(utf8.span, 0..<utf8.count)
        if let s = channels[key] { return s }
        let s = ChannelState(name: name)
        channels[key] = s
        return s
    }

    /// Hands a live line on, or holds it while its channel waits for a backfill; remembers its
    /// fingerprint (``LineFingerprint/of(_:_:)``, computed once by the caller) either way. A live copy
    /// of a line the channel's last backfill wrote (by `id`, within ``recoveredWindowMs``) is dropped
    /// and counted instead.
    ///
    /// - Complexity: O(line length). - Allocations: none for a line passed on once its channel's ring
    ///   is full; a copy for a held line.
    func deliver(
        _ bytes: Span<UInt8>, _ message: TwitchMessage, fingerprint: UInt64, receivedAt: Moment, lineNumber: Int
    ) {
        guard let range = message.channel else {
            onLine(bytes, message, receivedAt, lineNumber)
            return
        }
        let key = Self.key(bytes, range.range)
        guard let state = channels[key] else {
            let utf8 = bytes.extracting(range.range)
            var name = [UInt8]()
            for i in utf8.indices { name.append(utf8[i]) }
            let fresh = ChannelState(name: String(decoding: name, as: UTF8.self))
            fresh.recent.append(fingerprint, receivedAt: receivedAt.wall)
            channels[key] = fresh
            onLine(bytes, message, receivedAt, lineNumber)
            return
        }
        if !state.recovered.isEmpty {
            if receivedAt.monotonicMs > state.recoveredUntilMs {
                state.recovered.removeAll()
            } else if state.recovered.remove(fingerprint) != nil {
                // Written already, from the service's answer, which was ahead of this connection.
                counters.liveCopiesDropped += 1
                return
            }
        }
        guard var pending = state.pending else {
            state.recent.append(fingerprint, receivedAt: receivedAt.wall)
            onLine(bytes, message, receivedAt, lineNumber)
            return
        }
        var copy = [UInt8]()
        copy.reserveCapacity(bytes.count)
        for i in bytes.indices { copy.append(bytes[i]) }
        pending.held.append(Held(bytes: copy, receivedAt: receivedAt, lineNumber: lineNumber))
        pending.heldBytes += bytes.count
        pending.seen.insert(fingerprint)
        if LineFingerprint.hasId(message) { pending.seenWithId.insert(fingerprint) }
        state.pending = pending
        if pending.held.count >= source.maxHeldLines || pending.heldBytes >= source.maxHeldBytes {
            counters.releasedEarly += 1
            finish(
                state,
                .failed(
                    "\(pending.held.count) live lines (\(pending.heldBytes) bytes) arrived before the service "
                        + "answered, the most held (--recent-messages-wait)"),
                now: receivedAt)
        }
    }

    /// A channel was rejoined after `gap`: asks the service, and holds the channel's live lines until
    /// the answer or the wait's end. A backfill still waiting for the channel ends first: with the
    /// last answer it had, which had not caught up (the gap closed in part), or unanswered.
    func begin(_ gap: Gap, now: Moment) {
        let state = state(named: gap.channel)
        if state.pending != nil {
            finishWithBest(state, failure: "a new gap began before the service answered", now: now)
        }
        let id = nextId
        nextId += 1
        state.pending = Pending(
            id: id, gap: gap, lastSeen: state.recent.newestReceivedAt,
            deadlineMs: now.monotonicMs + source.waitMs)
        waiting[id] = state
        counters.requested += 1
        fetcher.request(.init(id: id, channel: gap.channel))
    }

    /// When the next wait ends (monotonic milliseconds), `nil` when nothing waits.
    ///
    /// - Complexity: O(channels waiting).
    var nextDeadline: Int64? {
        waiting.values.lazy.compactMap { $0.pending.map { min($0.deadlineMs, $0.retryAtMs ?? .max) } }.min()
    }

    /// How long the live copies of recovered lines are looked for: far longer than a live connection
    /// lags behind a service (a fraction of a second), short enough that the set is not kept for long.
    static let recoveredWindowMs: Int64 = 30_000

    /// How long to wait before asking again a service whose answer had not caught up with the live chat.
    static let retryMs: Int64 = 200

    /// How long after the first answer that has caught up the service is asked once more, and the
    /// gap filled from that second answer. A service that records over several connections (as
    /// recent-messages services do across their own reconnects) may store a line a little after a later
    /// one: the first answer can hold a line received since the rejoin and still lack one before it.
    static let confirmMs: Int64 = 500

    /// Takes the answers that came, and ends the waits that ran out.
    ///
    /// - Complexity: O(answers + channels waiting).
    func poll(now: Moment) {
        for result in fetcher.results() {
            guard let state = waiting[result.id], var pending = state.pending else {
                counters.late += 1
                continue
            }
            // The service records the chat as it comes, a little after us or before us: an answer that
            // holds none of the live lines received since the rejoin may lack the gap's last lines. Ask
            // again shortly, while the wait allows; past it, the answer can close the gap only in part.
            // One that has caught up is confirmed by a second answer ``confirmMs`` later.
            guard case .answer(200, let body, false) = result.outcome else {
                finish(state, pending.reachedAnswer ?? result.outcome, now: now)
                continue
            }
            if reaches(body, pending) {
                guard pending.reachedAnswer == nil, now.monotonicMs + Self.confirmMs < pending.deadlineMs else {
                    finish(state, result.outcome, now: now)
                    continue
                }
                pending.reachedAnswer = result.outcome
                pending.retryAtMs = now.monotonicMs + Self.confirmMs
                state.pending = pending
                counters.confirmations += 1
                continue
            }
            if let reached = pending.reachedAnswer {
                // The confirmation did not reach (the service lost its window?): the first answer did.
                finish(state, reached, now: now)
                continue
            }
            let delay = Self.retryMs << min(pending.retries, 4)
            guard now.monotonicMs + delay < pending.deadlineMs else {
                finish(state, result.outcome, now: now, behind: !pending.seenWithId.isEmpty)
                continue
            }
            pending.behindAnswer = result.outcome
            pending.retryAtMs = now.monotonicMs + delay
            pending.retries += 1
            state.pending = pending
            counters.retries += 1
        }
        guard !waiting.isEmpty else { return }
        for state in Array(waiting.values) {
            guard var p = state.pending else { continue }
            if p.deadlineMs <= now.monotonicMs {
                finishWithBest(state, failure: "no answer within \(Double(source.waitMs) / 1_000) s", now: now)
            } else if let at = p.retryAtMs, at <= now.monotonicMs {
                p.retryAtMs = nil
                state.pending = p
                fetcher.request(.init(id: p.id, channel: state.name))
            }
        }
    }

    /// Ends every wait (the session stops) with what each had (``finishWithBest(_:failure:now:)``),
    /// held lines released.
    func finishAll(now: Moment) {
        for state in Array(waiting.values) {
            finishWithBest(state, failure: "the session stopped before the service answered", now: now)
        }
    }

    /// Ends `state`'s wait before its answers are done: with the answer that had caught up (its
    /// confirmation not come), else the last one that had not (the gap closed in part when a chat line
    /// since the rejoin shows it was behind; a channel without one gives nothing to tell by, and the
    /// service had its chance), else as `failure`.
    private func finishWithBest(_ state: ChannelState, failure: String, now: Moment) {
        guard let p = state.pending else { return }
        if let reached = p.reachedAnswer {
            finish(state, reached, now: now)
        } else if let behind = p.behindAnswer {
            finish(state, behind, now: now, behind: !p.seenWithId.isEmpty)
        } else {
            finish(state, .failed(failure), now: now)
        }
    }

    /// Records the gap with what the answer gave, writes the recovered lines, then the held ones.
    ///
    /// - Parameter behind: the answer had not caught up with the live chat (see ``poll(now:)``): the
    ///   gap's end may be missing from it, so it can close the gap only in part.
    private func finish(_ state: ChannelState, _ outcome: BackfillFetcher.Outcome, now: Moment, behind: Bool = false) {
        guard let pending = state.pending else { return }
        state.pending = nil
        waiting[pending.id] = nil
        var recovered: [(bytes: [UInt8], time: Timestamp?)] = []
        var recoveredIds: [UInt64] = []
        let result: BackfillResult
        switch outcome {
        case .failed(let why):
            result = .failed(why)
        case .answer(_, _, true):
            result = .failed("the answer was longer than \(source.maxAnswerBytes) bytes")
        case .answer(let status, let body, false):
            let decoded: RecentMessagesResponse
            do throws(RecentMessagesResponse.DecodeError) { decoded = try .decode(body) } catch {
                result = .failed(
                    status == 200
                        ? error.description : "HTTP status \(status) from \(source.url(for: pending.gap.channel))")
                break
            }
            let said = (decoded.error ?? "") + (decoded.errorCode.map { " (\($0))" } ?? "")
            guard status == 200 else {
                result = .failed(
                    "HTTP status \(status) from \(source.url(for: pending.gap.channel))"
                        + (said.isEmpty ? "" : ": " + said))
                break
            }
            if decoded.messages.isEmpty && !said.isEmpty {
                result = .failed("the service answered: " + said)
                break
            }
            (recovered, recoveredIds, result) = select(decoded.messages, for: pending, in: state, behind: behind)
        }
        if case .failed(let why) = result {
            counters.failed += 1
            if counters.failed == 1 {
                onProblem(.backfillFailed(channel: pending.gap.channel, reason: why))
            }
        } else if case .recovered(let n, let coverage) = result {
            counters.recoveredLines += n
            if coverage == .closed { counters.closed += 1 } else { counters.partial += 1 }
        }
        var gap = pending.gap
        gap.backfill = result
        onRecord(.gap(gap))
        var misdated = 0
        for line in recovered {
            // Within the gap it fills (a line dated ahead, even in 2100, never opens a later file).
            let placed = BackfillSelection.placement(
                of: line.time, gapFrom: gap.from, gapTo: gap.to, lastSeen: pending.lastSeen, answeredAt: now.wall)
            if placed.misdated { misdated += 1 }
            emit(
                line.bytes, receivedAt: Moment(monotonicMs: now.monotonicMs, wall: placed.time), lineNumber: 0,
                into: state)
        }
        if misdated > 0 {
            counters.misdated += misdated
            counters.misdatedGaps += 1
            if counters.misdatedGaps == 1 { onProblem(.backfillMisdated(channel: gap.channel, lines: misdated)) }
        }
        state.recovered = Set(recoveredIds)
        state.recoveredUntilMs = now.monotonicMs + Self.recoveredWindowMs
        for held in pending.held {
            emit(held.bytes, receivedAt: held.receivedAt, lineNumber: held.lineNumber, into: state)
        }
    }

    /// Parses a stored line again and hands it on.
    private func emit(_ bytes: [UInt8], receivedAt: Moment, lineNumber: Int, into state: ChannelState) {
        let span = bytes.span
        guard let message = try? TwitchMessage.parse(span) else { return }
        state.recent.append(LineFingerprint.of(span, message), receivedAt: receivedAt.wall)
        onLine(span, message, receivedAt, lineNumber)
    }

    /// The service's lines to write for `pending` (``BackfillSelection``), the fingerprints of those
    /// of them with an `id` (unique, so a later live copy is known for one), and the result to record.
    private func select(_ messages: [[UInt8]], for pending: Pending, in state: ChannelState, behind: Bool) -> (
        [(bytes: [UInt8], time: Timestamp?)], [UInt64], BackfillResult
    ) {
        var candidates: [BackfillSelection.Candidate] = []
        var lines: [(bytes: [UInt8], time: Timestamp?)] = []
        candidates.reserveCapacity(messages.count)
        for var bytes in messages {
            // A line with its CR LF still on (some services keep it).
            while let last = bytes.last, last == 10 || last == 13 { bytes.removeLast() }
            let span = bytes.span
            guard let message = try? TwitchMessage.parse(span),
                message.channel.map({ span.equals(Array(state.name.utf8), at: $0.range) }) ?? true
            else {
                counters.unusable += 1
                continue
            }
            let time = LineFingerprint.serviceTime(span, message.line)
            candidates.append(
                .init(
                    fingerprint: LineFingerprint.of(span, message), time: time,
                    hasId: LineFingerprint.hasId(message)))
            lines.append((Self.marked(bytes, message), time))
        }
        // The service's clock against ours, from the last line we had: its times are ours from here on.
        let offset = BackfillSelection.clockOffset(candidates, lastHad: state.recent.newest, lastSeen: pending.lastSeen)
        if offset != 0 {
            for i in candidates.indices {
                candidates[i].time = candidates[i].time.map { Timestamp(milliseconds: $0.milliseconds &- offset) }
                lines[i].time = candidates[i].time
            }
        }
        let choice = BackfillSelection.choose(
            candidates, had: Set(state.recent.fingerprints), seen: pending.seen,
            gapFrom: pending.gap.from, gapTo: pending.gap.to, lastSeen: pending.lastSeen)
        var coverage = choice.coverage
        if behind {
            // What came after the answer's newest line may be missing.
            let newest = max(candidates.lazy.compactMap(\.time).max() ?? pending.gap.from, pending.gap.from)
            let from = coverage == .closed ? newest : pending.gap.from
            if from < pending.gap.to {
                coverage = .partial(missingFrom: from, missingTo: pending.gap.to)
            }
        }
        let ids = choice.kept.lazy.filter { candidates[$0].hasId }.map { candidates[$0].fingerprint }
        return (choice.kept.map { lines[$0] }, Array(ids), .recovered(choice.kept.count, coverage))
    }

    /// Whether an answer has caught up with the live chat: it holds a line with an id received live
    /// since the rejoin. The service records in order, so it then holds every line sent before the
    /// rejoin. A line without an id is no evidence: an identical one may have come before the gap.
    ///
    /// Times are not evidence: the service's clock, corrected by the last line both had, still reads
    /// our delivery lag of that moment as a clock difference, and a line the service dated after the
    /// rejoin may have been sent before it (issue #35's busy runs lost a line that way).
    private func reaches(_ body: [UInt8], _ pending: Pending) -> Bool {
        guard let decoded = try? RecentMessagesResponse.decode(body) else { return true }
        for var bytes in decoded.messages.reversed() {
            while let last = bytes.last, last == 10 || last == 13 { bytes.removeLast() }
            guard let message = try? TwitchMessage.parse(bytes.span) else { continue }
            if pending.seenWithId.contains(LineFingerprint.of(bytes.span, message)) { return true }
        }
        return false
    }

    /// `bytes` with a `historical=1` tag when the service did not add one: every recovered line says
    /// it is one.
    static func marked(_ bytes: [UInt8], _ message: TwitchMessage) -> [UInt8] {
        let span = bytes.span
        if message.line.tag("historical", in: span) != nil { return bytes }
        if message.line.hasTags { return Array("@historical=1;".utf8) + bytes.dropFirst() }
        return Array("@historical=1 ".utf8) + bytes
    }
}

/// What the backfill did in a session, for the commands' summaries.
public struct BackfillCounters: Sendable, Equatable {
    /// Gaps the service was asked about.
    public var requested = 0
    /// Gaps it closed, and those it filled only in part.
    public var closed = 0
    public var partial = 0
    /// Gaps it could not help with (down, slow, an error, an unreadable answer).
    public var failed = 0
    /// Lines recovered and written, marked historical.
    public var recoveredLines = 0
    /// Answers that came after their wait had ended (discarded).
    public var late = 0
    /// Waits ended early because too many live lines were held.
    public var releasedEarly = 0
    /// Answers that had not caught up with the live chat, asked again.
    public var retries = 0
    /// Answers that had caught up, asked once more to confirm (``BackfillCoordinator/confirmMs``).
    public var confirmations = 0
    /// Lines of an answer that could not be parsed or were of another channel (not written).
    public var unusable = 0
    /// Live lines dropped because the backfill had written them already: the service's answer was
    /// ahead of the live connection.
    public var liveCopiesDropped = 0
    /// Recovered lines the service dated outside their gap (its clock ahead, or a line dated years
    /// away), written at the gap's edge instead (``BackfillSelection/placement(of:gapFrom:gapTo:lastSeen:answeredAt:)``),
    /// and the gaps that had any.
    public var misdated = 0
    public var misdatedGaps = 0

    public init() {}

    /// `3 gaps asked about: 2 closed, 1 partial, 0 failed; 120 lines recovered`.
    public var summary: String {
        "\(requested) gap\(requested == 1 ? "" : "s") asked about: \(closed) closed, \(partial) partial, "
            + "\(failed) failed; \(recoveredLines) line\(recoveredLines == 1 ? "" : "s") recovered"
            + (late > 0 ? ", \(late) late answers discarded" : "")
            + (releasedEarly > 0 ? ", \(releasedEarly) waits ended early (too many held lines)" : "")
            + (unusable > 0 ? ", \(unusable) unusable lines in answers" : "")
            + (misdated > 0
                ? ", \(misdated) recovered line\(misdated == 1 ? "" : "s") dated outside \(misdatedGaps == 1 ? "its gap" : "their gaps") "
                    + "(placed at the gap's edge)"
                : "")
            + (liveCopiesDropped > 0
                ? ", \(liveCopiesDropped) live line\(liveCopiesDropped == 1 ? "" : "s") already recovered (written once)"
                : "")
    }
}
