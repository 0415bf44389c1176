public import ChatStore

/// Which lines of a recent-messages service's answer fill a gap, and whether they fill all of it:
/// the pure decision of a backfill (``choose(_:had:seen:gapFrom:gapTo:lastSeen:)``).
///
/// The service's lines come oldest first. Kept are the lines after the **anchor** (the newest line of
/// the answer with an `id` that chatcap had before the gap, found by its fingerprint: the last line
/// before the gap may be one the service does not keep, such as our own JOIN echo; a line without an
/// id anchors only when no line with one does, since the same JOIN or PART can come again) that
/// chatcap has not seen (their
/// fingerprint is neither among the lines it had before the gap nor among the live lines since the
/// rejoin). When the answer holds no line chatcap had (the service keeps fewer lines than the gap
/// held, or the channel was quiet), the lines received from ``slackMs`` before the last line chatcap
/// had (or the gap's start) on are kept instead, again only those not seen. The kept lines are returned in time order
/// (by the service's receive time; a line without one keeps its place after the line before it).
public enum BackfillSelection: Sendable {
    /// How far before the last line chatcap had an unanchored answer is still read (clocks of two
    /// machines differ); lines chatcap had are recognised by fingerprint anyway.
    public static let slackMs: Int64 = 1_000

    /// One line of the service's answer, as the selection sees it.
    public struct Candidate: Sendable, Equatable {
        public var fingerprint: UInt64
        /// The service's receive time (``LineFingerprint/serviceTime(_:_:)``).
        public var time: Timestamp?
        /// Whether the line has an `id` (its fingerprint is the id's, unique).
        public var hasId: Bool
        public init(fingerprint: UInt64, time: Timestamp?, hasId: Bool = true) {
            self.fingerprint = fingerprint
            self.time = time
            self.hasId = hasId
        }
    }

    /// What the selection decided.
    public struct Choice: Sendable, Equatable {
        /// Indices into the candidates of the lines to write, in time order.
        public var kept: [Int]
        /// Whether the answer reaches back before the gap.
        public var coverage: BackfillCoverage
    }

    /// Chooses the lines of `candidates` (the service's answer, oldest first) that fill a gap.
    ///
    /// - Parameters:
    ///   - had: fingerprints of the last lines chatcap had in the channel before the gap.
    ///   - seen: fingerprints of the live lines received since the rejoin.
    ///   - gapFrom: the gap's start; `gapTo` its end (the rejoin).
    ///   - lastSeen: when that last line came.
    /// - Complexity: O(n log n) in the answer's length. - Allocations: the result.
    public static func choose(
        _ candidates: [Candidate], had: Set<UInt64>, seen: Set<UInt64>, gapFrom: Timestamp, gapTo: Timestamp,
        lastSeen: Timestamp?
    ) -> Choice {
        let gapFromMs = gapFrom.milliseconds
        let gapToMs = gapTo.milliseconds
        var start = 0
        var anchored = false
        if let i = candidates.lastIndex(where: { $0.hasId && had.contains($0.fingerprint) })
            ?? candidates.lastIndex(where: { had.contains($0.fingerprint) })
        {
            start = i + 1
            anchored = true
        }
        let since = min(lastSeen?.milliseconds ?? gapFromMs, gapFromMs) - slackMs
        var kept: [(index: Int, time: Int64)] = []
        var time = Int64.min
        var written = Set<UInt64>()
        for i in candidates.indices {
            if let t = candidates[i].time?.milliseconds { time = max(time, t) }
            guard i >= start else { continue }
            let c = candidates[i]
            if had.contains(c.fingerprint) || seen.contains(c.fingerprint) || written.contains(c.fingerprint) {
                continue
            }
            if !anchored, let t = c.time?.milliseconds, t < since { continue }
            if !anchored, c.time == nil, time < since { continue }
            written.insert(c.fingerprint)
            kept.append((i, c.time?.milliseconds ?? time))
        }
        // Stable: equal times keep the service's order.
        let ordered = kept.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
        let oldest = candidates.lazy.compactMap(\.time?.milliseconds).min()
        let coverage: BackfillCoverage
        if anchored {
            coverage = .closed
        } else if let oldest, oldest < gapFromMs {
            coverage = .closed
        } else {
            coverage = .partial(
                missingFrom: gapFrom, missingTo: Timestamp(milliseconds: min(oldest ?? gapToMs, gapToMs)))
        }
        return Choice(kept: ordered.map(\.element.index), coverage: coverage)
    }
}

extension BackfillSelection {
    /// Where a recovered line is written in time.
    public struct Placement: Sendable, Equatable {
        /// The receive time the line is stored with (it names the file it goes to).
        public var time: Timestamp
        /// The service's time lay outside the gap by more than ``slackMs``: the line was moved to the
        /// gap's edge (counted and said; a service clock ahead, or a line dated years away).
        public var misdated: Bool

        public init(time: Timestamp, misdated: Bool) {
            self.time = time
            self.misdated = misdated
        }
    }

    /// How far the service's clock is ahead of ours (milliseconds; negative when behind), from the one
    /// line both recorded the time of: the last line chatcap had before the gap (`lastHad`, received at
    /// `lastSeen`), when the answer holds it with a time. 0 when it does not: then times are taken as
    /// they are, and ``placement(of:gapFrom:gapTo:lastSeen:answeredAt:)`` still keeps them in the gap.
    ///
    /// Subtracted from the service's times before they are compared with ours, so a service clock
    /// minutes ahead neither dates its lines after the gap nor looks caught up with the live chat
    /// before it is.
    ///
    /// - Complexity: O(n). - Allocations: none.
    public static func clockOffset(_ candidates: [Candidate], lastHad: UInt64?, lastSeen: Timestamp?) -> Int64 {
        guard let lastHad, let lastSeen,
            let theirs = candidates.last(where: { $0.fingerprint == lastHad })?.time
        else { return 0 }
        // Bounded: a line dated years away says nothing about the clock.
        let offset = theirs.milliseconds &- lastSeen.milliseconds
        return offset >= -maxClockOffsetMs && offset <= maxClockOffsetMs ? offset : 0
    }

    /// The largest clock difference ``clockOffset(_:lastHad:lastSeen:)`` corrects: a day.
    public static let maxClockOffsetMs: Int64 = 86_400_000

    /// Places a recovered line: at the service's receive time `time` (``LineFingerprint/serviceTime(_:_:)``),
    /// kept within the gap it fills: no earlier than the last line chatcap had before the gap (or the
    /// gap's start, whichever is older), no later than when the answer came (`answeredAt`, or the gap's
    /// end if later). A line without a time is placed at the gap's end, as before.
    ///
    /// A line of the answer dated in 2100 would otherwise open the channel's `2100-01-01` file, and a
    /// service clock a few seconds ahead at 23:59:59 would put a line in tomorrow's file.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public static func placement(
        of time: Timestamp?, gapFrom: Timestamp, gapTo: Timestamp, lastSeen: Timestamp?, answeredAt: Timestamp
    ) -> Placement {
        guard let time else { return Placement(time: gapTo, misdated: false) }
        let lower = min(lastSeen?.milliseconds ?? gapFrom.milliseconds, gapFrom.milliseconds)
        let upper = max(answeredAt.milliseconds, gapTo.milliseconds)
        let t = time.milliseconds
        let placed = min(max(t, lower), upper)
        // Compared with the bounds, not subtracted from them: a tag may hold any 64-bit number.
        return Placement(time: Timestamp(milliseconds: placed), misdated: t < lower - slackMs || t > upper + slackMs)
    }
}

/// Whether a backfill's answer covers the whole gap.
public enum BackfillCoverage: Sendable, Equatable {
    /// The service's answer reaches back before the gap's start (or holds the last line chatcap had
    /// before it): every line of the gap the service kept is now in the output.
    case closed
    /// The service's oldest line is younger than the gap's start: from `missingFrom` to
    /// `missingTo` chat may still be missing.
    case partial(missingFrom: Timestamp, missingTo: Timestamp)
}

/// What became of the backfill of one gap.
public enum BackfillResult: Sendable, Equatable, CustomStringConvertible {
    /// The service answered: `recovered` lines were written, marked historical.
    case recovered(Int, BackfillCoverage)
    /// No usable answer (down, slow, an error, an answer that is not the API's): the gap stays open.
    case failed(String)

    /// `closed`, `partial` or `failed`, as stored in a capture and written in the JSON.
    public var state: String {
        switch self {
        case .recovered(_, .closed): "closed"
        case .recovered(_, .partial): "partial"
        case .failed: "failed"
        }
    }

    /// How many lines were recovered (0 after a failure).
    public var recoveredCount: Int {
        if case .recovered(let n, _) = self { return n }
        return 0
    }

    public var description: String {
        switch self {
        case .recovered(let n, .closed):
            "backfill closed it: \(n) line\(n == 1 ? "" : "s") recovered"
        case .recovered(let n, .partial(let from, let to)):
            "backfill partial: \(n) line\(n == 1 ? "" : "s") recovered, still missing from "
                + "\(from.rfc3339) to \(to.rfc3339)"
        case .failed(let why): "backfill failed: \(why)"
        }
    }
}
