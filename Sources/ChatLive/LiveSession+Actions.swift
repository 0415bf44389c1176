import ChatNet
import ChatPosix
import IRCWire
import TwitchSession

/// Performing what a connection's machine asks for (sends, connects, closes, records), a lost
/// connection told to its machine, and a RECONNECT's hand-over to a retiring connection.
extension LiveSession {
    func lost(_ c: Connection, _ reason: DisconnectReason) {
        close(c, because: reason)
        let now = Moment.now()
        if let owner = c.owner {
            // The retiring connection ended before the machine asked for it.
            guard owner.retiring === c else { return }
            owner.retiring = nil
            owner.overlapUntil = now.monotonicMs + Self.overlapLingerMs
            actions.removeAll(keepingCapacity: true)
            owner.machine.handle(.retiredClosed(reason), at: now, into: &actions, sharing: &pace)
            perform(actions, on: owner)
            return
        }
        actions.removeAll(keepingCapacity: true)
        c.machine.handle(.closed(reason), at: now, into: &actions, sharing: &pace)
        perform(actions, on: c)
    }

    func perform(_ list: [ConnectionAction], on c: Connection) {
        for action in list {
            switch action {
            case .send(let message):
                guard let stream = c.stream else { continue }
                do {
                    try stream.enqueue(message)
                    try stream.flush()
                } catch {
                    lost(c, .failed("\(error)"))
                    continue
                }
                if !exceedsWriteQueueLimit(c) { updateInterest(c) }
            case .connect(let after):
                c.connectAt = Moment.now().monotonicMs + after
            case .handOver:
                if c.isDraining { c.handOverRequested = true } else { handOver(c) }
            case .closeRetired:
                // A handover asked for in this same drain has not happened yet: nothing to close.
                c.handOverRequested = false
                closeRetired(of: c)
            case .close(let reason):
                close(c, because: reason)
            case .report(let record):
                if case .fatal(let message, _) = record { fatal = message }
                // A gap that ends with the channel rejoined (its `joined` record follows in the same
                // list) is recorded once the backfill has its answer.
                // A restart's gap is not asked about: the new run has not seen the previous run's last
                // lines, so the service's lines around the gap's start could not be told from them.
                if case .gap(let gap) = record, let backfill, asksBackfill(gap, in: list) {
                    backfill.begin(gap, now: Moment.now())
                    continue
                }
                onRecord(record)
            }
        }
    }

    /// Whether `list` holds a gap that the backfill is asked about (see ``perform(_:on:)``), and only
    /// sends and records besides: performing it before the line that caused it touches neither the
    /// stream's framer nor the connection's state.
    func startsBackfill(_ list: [ConnectionAction]) -> Bool {
        guard backfill != nil else { return false }
        var gap = false
        for action in list {
            switch action {
            case .send: continue
            case .report(.gap(let g)): gap = gap || asksBackfill(g, in: list)
            case .report: continue
            default: return false
            }
        }
        return gap
    }

    /// Whether `gap`, reported in `list`, is asked of the backfill: it ends with its channel rejoined
    /// (the `joined` record is in the same list) and is not a restart's.
    private func asksBackfill(_ gap: Gap, in list: [ConnectionAction]) -> Bool {
        Self.rejoins(gap.channel, list) && !gap.reason.isRestart
    }

    /// Whether `list` holds the `joined` record of `channel`.
    private static func rejoins(_ channel: String, _ list: [ConnectionAction]) -> Bool {
        list.contains {
            if case .report(.joined(let joined, _)) = $0 { return joined == channel }
            return false
        }
    }

    /// `.handOver`: the stream (with what its framer holds) moves to a retiring connection that goes
    /// on delivering chat; `c` is left without a stream for its replacement.
    func handOver(_ c: Connection) {
        guard let stream = c.stream else { return }
        // The connection before the retiring one, still read on: read to its end first, so that the
        // overlap filter turns to the new pair only once it is done.
        drainClosingRetired(of: c)
        let old = Connection(machine: c.machine)
        old.owner = c
        old.retires = true
        old.stream = stream
        old.registered = c.registered
        old.receivedAny = c.receivedAny
        old.lines = c.lines
        swap(&old.framer, &c.framer)
        // What the socket already holds is read on the next turn of the loop.
        old.hasMore = true
        connectionByDescriptor[stream.fileDescriptor] = old
        c.stream = nil
        c.registered = []
        c.hasMore = false
        c.retiring = old
        // A replacement handed over in its turn still delivers late copies of what the connection
        // before it delivered: the filter goes on, sides swapped, rather than starting empty.
        if c.overlap != nil { c.overlap!.handOver() } else { c.overlap = OverlapFilter() }
        c.overlapUntil = nil
    }
}
