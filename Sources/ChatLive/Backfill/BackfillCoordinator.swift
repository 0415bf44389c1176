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
        var lastSeenWallMs: Int64?
        var deadlineMs: Int64
        var held: [Held] = []
        var heldBytes = 0
        /// Fingerprints of the held lines: seen live, so never written again as historical.
        var seen: Set<UInt64> = []
    }

    final class ChannelState {
        let name: String
        var recent = RecentLines()
        var pending: Pending? = nil
        init(name: String) { self.name = name }
    }

    let source: RecentMessagesSource
    private let fetcher: BackfillFetcher
    private let onLine: LiveSession.LineHandler
    private let onRecord: LiveSession.RecordHandler
    private let onProblem: LiveSession.ProblemHandler
    /// Channels by the FNV-1a hash of their login: no string is made per line.
    private var channels: [UInt64: ChannelState] = [:]
    private var nextId = 1
    private var pendingCount = 0
    private(set) var counters = BackfillCounters()

    init(
        source: RecentMessagesSource, fetcher: BackfillFetcher, onLine: @escaping LiveSession.LineHandler,
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
    /// fingerprint either way.
    ///
    /// - Complexity: O(line length). - Allocations: none for a line passed on once its channel's ring
    ///   is full; a copy for a held line.
    func deliver(_ bytes: Span<UInt8>, _ message: TwitchMessage, receivedAt: Moment, lineNumber: Int) {
        guard let range = message.channel else {
            onLine(bytes, message, receivedAt, lineNumber)
            return
        }
        let key = Self.key(bytes, range.range)
        let fingerprint = LineFingerprint.of(bytes, message.line)
        guard let state = channels[key] else {
            let utf8 = bytes.extracting(range.range)
            var name = [UInt8]()
            for i in utf8.indices { name.append(utf8[i]) }
            let fresh = ChannelState(name: String(decoding: name, as: UTF8.self))
            fresh.recent.append(fingerprint, wallMs: receivedAt.wallMs)
            channels[key] = fresh
            onLine(bytes, message, receivedAt, lineNumber)
            return
        }
        guard var pending = state.pending else {
            state.recent.append(fingerprint, wallMs: receivedAt.wallMs)
            onLine(bytes, message, receivedAt, lineNumber)
            return
        }
        var copy = [UInt8]()
        copy.reserveCapacity(bytes.count)
        for i in bytes.indices { copy.append(bytes[i]) }
        pending.held.append(Held(bytes: copy, receivedAt: receivedAt, lineNumber: lineNumber))
        pending.heldBytes += bytes.count
        pending.seen.insert(fingerprint)
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
    /// the answer or the wait's end. A backfill still waiting for the channel ends first, unanswered.
    func begin(_ gap: Gap, now: Moment) {
        let state = state(named: gap.channel)
        if state.pending != nil { finish(state, .failed("a new gap began before the service answered"), now: now) }
        let id = nextId
        nextId += 1
        state.pending = Pending(
            id: id, gap: gap, lastSeenWallMs: state.recent.newestWallMs,
            deadlineMs: now.monotonicMs + source.waitMs)
        pendingCount += 1
        counters.requested += 1
        fetcher.request(.init(id: id, channel: gap.channel))
    }

    /// When the next wait ends (monotonic milliseconds), `nil` when nothing waits.
    ///
    /// - Complexity: O(channels) while a backfill waits, O(1) otherwise.
    var nextDeadline: Int64? {
        guard pendingCount > 0 else { return nil }
        return channels.values.lazy.compactMap(\.pending?.deadlineMs).min()
    }

    /// Takes the answers that came, and ends the waits that ran out.
    ///
    /// - Complexity: O(channels) while a backfill waits, O(1) otherwise.
    func poll(now: Moment) {
        for result in fetcher.results() {
            guard let state = channels.values.first(where: { $0.pending?.id == result.id }) else {
                counters.late += 1
                continue
            }
            finish(state, result.outcome, now: now)
        }
        guard pendingCount > 0 else { return }
        for state in channels.values {
            if let p = state.pending, p.deadlineMs <= now.monotonicMs {
                finish(state, .failed("no answer within \(Double(source.waitMs) / 1_000) s"), now: now)
            }
        }
    }

    /// Ends every wait (the session stops): their gaps are recorded unanswered, held lines released.
    func finishAll(now: Moment) {
        for state in channels.values where state.pending != nil {
            finish(state, .failed("the session stopped before the service answered"), now: now)
        }
    }

    /// Records the gap with what the answer gave, writes the recovered lines, then the held ones.
    private func finish(_ state: ChannelState, _ outcome: BackfillFetcher.Outcome, now: Moment) {
        guard let pending = state.pending else { return }
        state.pending = nil
        pendingCount -= 1
        var recovered: [(bytes: [UInt8], timeMs: Int64?)] = []
        let result: BackfillResult
        switch outcome {
        case .failed(let why):
            result = .failed(why)
        case .answer(_, _, true):
            result = .failed("the answer was longer than \(source.maxAnswerBytes) bytes")
        case .answer(let status, let body, false):
            let decoded: RecentMessagesResponse
            do throws(RecentMessagesResponse.DecodeError) { decoded = try .decode(body) } catch {
                result = .failed(status == 200 ? error.description : "HTTP status \(status)")
                break
            }
            let said = (decoded.error ?? "") + (decoded.errorCode.map { " (\($0))" } ?? "")
            guard status == 200 else {
                result = .failed("HTTP status \(status)" + (said.isEmpty ? "" : ": " + said))
                break
            }
            if decoded.messages.isEmpty && !said.isEmpty {
                result = .failed("the service answered: " + said)
                break
            }
            (recovered, result) = select(decoded.messages, for: pending, in: state)
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
        for line in recovered {
            let at = Moment(monotonicMs: now.monotonicMs, wallMs: line.timeMs ?? gap.toWallMs)
            emit(line.bytes, receivedAt: at, lineNumber: 0, into: state)
        }
        for held in pending.held {
            emit(held.bytes, receivedAt: held.receivedAt, lineNumber: held.lineNumber, into: state)
        }
    }

    /// Parses a stored line again and hands it on.
    private func emit(_ bytes: [UInt8], receivedAt: Moment, lineNumber: Int, into state: ChannelState) {
        let span = bytes.span
        guard let message = try? TwitchMessage.parse(span) else { return }
        state.recent.append(LineFingerprint.of(span, message.line), wallMs: receivedAt.wallMs)
        onLine(span, message, receivedAt, lineNumber)
    }

    /// The service's lines to write for `pending` (``BackfillSelection``), with the result to record.
    private func select(_ messages: [[UInt8]], for pending: Pending, in state: ChannelState) -> (
        [(bytes: [UInt8], timeMs: Int64?)], BackfillResult
    ) {
        var candidates: [BackfillSelection.Candidate] = []
        var lines: [(bytes: [UInt8], timeMs: Int64?)] = []
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
            let time = LineFingerprint.serviceTimeMs(span, message.line)
            candidates.append(.init(fingerprint: LineFingerprint.of(span, message.line), timeMs: time))
            lines.append((Self.marked(bytes, message), time))
        }
        let choice = BackfillSelection.choose(
            candidates, had: Set(state.recent.fingerprints), seen: pending.seen, gapFromMs: pending.gap.fromWallMs,
            gapToMs: pending.gap.toWallMs, lastSeenWallMs: pending.lastSeenWallMs)
        return (choice.kept.map { lines[$0] }, .recovered(choice.kept.count, choice.coverage))
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
    /// Lines of an answer that could not be parsed or were of another channel (not written).
    public var unusable = 0

    public init() {}

    /// `3 gaps asked about: 2 closed, 1 partial, 0 failed; 120 lines recovered`.
    public var summary: String {
        "\(requested) gap\(requested == 1 ? "" : "s") asked about: \(closed) closed, \(partial) partial, "
            + "\(failed) failed; \(recoveredLines) line\(recoveredLines == 1 ? "" : "s") recovered"
            + (late > 0 ? ", \(late) late answers discarded" : "")
            + (releasedEarly > 0 ? ", \(releasedEarly) waits ended early (too many held lines)" : "")
            + (unusable > 0 ? ", \(unusable) unusable lines in answers" : "")
    }
}
