import ChatFormat
import ChatInput
public import ChatStore
import IRCWire

/// The lines `--apply-moderation` holds back (``ModerationHold``) and the lines of channels past the
/// store's limit: when they are written, and how.
extension OutputPipeline {
    /// A line the store refused (its channel is past the store's channel limit), reported with its
    /// position and counted: written without the store — at once, or with moderation held (as a copy,
    /// final at once) in input order among the other held lines — or, with no output (`dump`: only
    /// windows are written), dropped.
    ///
    /// - Complexity: O(line). - Allocations: the report; with moderation, amortised none.
    func refused(
        _ bytes: Span<UInt8>, _ message: TwitchMessage, _ at: MergedLine, _ error: StoreError
    ) throws(OutputError) {
        guard let sink else {
            summary.dropped += 1
            report(
                Self.refusal(
                    at, message.channel.map { String(decoding: bytes, in: $0) }, error, "dropped (it is in no window)"))
            return
        }
        summary.untracked += 1
        report(
            Self.refusal(
                at, message.channel.map { String(decoding: bytes, in: $0) }, error,
                "written without moderation or de-duplication"))
        guard options.applyModeration else {
            let context = LineContext(timestamp: ownTime(at), tombstone: nil, isMirror: false)
            try write(bytes, message, context, time: at.timestamp, terminator: at.terminator, to: sink)
            return
        }
        // No ring holds it, so no mark can reach it: it is final as soon as it is first.
        hold.hold(
            bytes,
            ModerationHold.Line(
                channel: ModerationHold.untracked, seq: 0, start: 0, count: 0, due: Int64.min, parsed: message.line,
                terminator: at.terminator, isMirror: false, time: at.timestamp?.milliseconds ?? 0))
        try releaseHeld(force: false)
    }

    /// The report of a refused line: where it is, why, and what became of it.
    private static func refusal(_ at: MergedLine, _ channel: String?, _ error: StoreError, _ outcome: String) -> String
    {
        let why =
            switch error {
            case .tooManyChannels(let limit):
                "channel \(channel.map { "#" + $0 } ?? "(none)") is past the limit of \(limit) channels"
            case .malformed: "\(error)"
            }
        return "\(at.inputName):\(at.lineNumber): \(why): \(outcome)"
    }

    /// For live input: advances the moderation look-ahead's clock to `now` (the wall clock) and writes the
    /// held lines whose window has passed, so a quiet live channel's lines keep flowing. Call it from
    /// the live loop's tick.
    ///
    /// - Complexity: O(lines released). - Allocations: none.
    public func releaseDue(now: Timestamp) throws(OutputError) {
        guard options.applyModeration, sink != nil else { return }
        let clock = self.clock
        if now.milliseconds > clock { self.clock = now.milliseconds }
        try releaseHeld(force: false)
    }

    /// Writes the held lines from the first one on while they are final (all of them with `force`).
    func releaseHeld(force: Bool) throws(OutputError) {
        guard let sink else { return }
        while let first = hold.first {
            let evicted = store.log(at: first.channel).map { $0.ring.liveRange.lowerBound > first.seq } ?? true
            let held = hold.heldBytes
            let clock = self.clock
            let early = held > options.moderationHoldLimit
            guard force || evicted || early || clock >= first.due else { return }
            if early && !evicted { noteEarlyRelease() }
            try writeHeld(first, to: sink)
        }
    }

    /// Writes the first held line: from its ring while the ring has it (with its current tombstone),
    /// else from the hold's copy with the tombstone frozen at its eviction.
    private func writeHeld(_ line: ModerationHold.Line, to sink: OutputSink) throws(OutputError) {
        var failure: OutputError? = nil
        var found = false
        if let log = store.log(at: line.channel) {
            let lookup = log.ring.withEntry(line.seq, reader: reader) { info, bytes in
                do throws(OutputError) { try writeEntry(info, bytes, to: sink) } catch { failure = error }
            }
            if case .found = lookup { found = true }
        }
        if let failure { throw failure }
        let tombstone = found ? .none : hold.takeFrozen(channel: line.channel, seq: line.seq)
        try hold.popFirst { (held, bytes) throws(OutputError) in
            guard !found else { return }
            let message = TwitchMessage(held.parsed, in: bytes)
            let time = LineTime(of: message, in: bytes).timestamp
            let context = LineContext(timestamp: time, tombstone: tombstone, isMirror: held.isMirror)
            let filterTime = held.time == 0 ? nil : Timestamp(milliseconds: held.time)
            try write(bytes, message, context, time: filterTime, terminator: .crlf, to: sink)
        }
    }

    /// Counts a line released before its look-ahead ended; says so on stderr the first time.
    private func noteEarlyRelease() {
        summary.releasedEarly += 1
        if summary.releasedEarly == 1 {
            diagnose(
                "moderation look-ahead: more than \(options.moderationHoldLimit >> 20) MiB held; releasing lines "
                    + "before their look-ahead ended (counted in the summary)")
        }
    }
}
