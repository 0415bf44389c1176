import ChatNet
import ChatPosix
import IRCWire
import TwitchSession

/// Closing a RECONNECT's retiring connection when the machine says `.closeRetired`: at once when it
/// has been read past a line its replacement carried after joining every channel
/// (``OverlapFilter/caughtUp``); otherwise (the settle time of quiet channels, a RECONNECT on the
/// replacement, the end) it can still hold chat the replacement never carried, sent before the
/// replacement joined and unread behind the per-wake-up read budget on a busy machine. It is then
/// read on while more comes within ``ConnectionSettings/retiredQuietMs``
/// (``ConnectionSettings/retiredDrainMs`` at most), until its end, or until it has caught up, and
/// closed.
///
/// The reading on is the ingest loop's, beside every other connection (``closingRetired``). It was a
/// wait of its own: each quiet connection held every other one, timers and PINGs for at least
/// `retiredQuietMs` (500 ms), one connection after another when Twitch restarts a server and sends
/// RECONNECT to every connection on it. Only a RECONNECT on the replacement while the connection
/// before it is still read on waits (``drainClosingRetired(of:)``): the overlap filter can follow one
/// pair of connections at a time.
extension LiveSession {
    /// `.closeRetired`: the retiring connection is closed now when it has caught up, or read on by
    /// the loop and closed later.
    func closeRetired(of c: Connection) {
        guard let old = c.retiring else { return }
        c.retiring = nil
        let now = Moment.now().monotonicMs
        c.overlapUntil = now + Self.overlapLingerMs
        if c.overlap?.caughtUp == true || stop.isRaised {
            finishRetired(old, of: c)
            return
        }
        // One at a time: a retiring connection exists only after ``handOver(_:)``, which finished
        // the one before.
        assert(c.closingRetired == nil, "a connection is still read on from the handover before")
        old.drainEnd = now + settings.retiredDrainMs
        old.quietUntil = now + settings.retiredQuietMs
        // What its socket already holds is read on the next turn of the loop.
        old.hasMore = true
        c.closingRetired = old
    }

    /// The loop's turn for `c`'s connection read on: forgotten once its end came, closed when it has
    /// caught up, when nothing came for ``ConnectionSettings/retiredQuietMs``, when
    /// ``ConnectionSettings/retiredDrainMs`` have passed, or when the session stops.
    func checkClosingRetired(of c: Connection, at now: Int64) {
        guard let old = c.closingRetired else { return }
        if old.stream == nil {
            c.closingRetired = nil
        } else if c.overlap?.caughtUp == true || stop.isRaised || now >= old.closingDeadline {
            finishRetired(old, of: c)
        }
    }

    /// Reads `c`'s connection read on to the end of what it holds, on while more comes (within its
    /// deadlines), and closes it; the ingest loop waits here. Before a new handover only.
    func drainClosingRetired(of c: Connection) {
        guard let old = c.closingRetired else { return }
        while let stream = old.stream, !stop.isRaised, c.overlap?.caughtUp != true {
            old.hasMore = false
            service(old, [])
            guard old.stream != nil else { break }
            let left = old.closingDeadline - Moment.now().monotonicMs
            guard left > 0 else { break }
            if old.hasMore { continue }
            guard waitReadable(stream.fileDescriptor, timeoutMs: left) else { break }
        }
        if old.stream == nil { c.closingRetired = nil } else { finishRetired(old, of: c) }
    }

    /// Closes `old`, retired by `c`. Read past a line the replacement carried after joining every
    /// channel, what it still holds or sends, a partial line included, the replacement carries too:
    /// that is no cut-off line.
    func finishRetired(_ old: Connection, of c: Connection) {
        if c.closingRetired === old { c.closingRetired = nil }
        if c.overlap?.caughtUp == true { old.framer.reset() }
        close(old, because: .serverRequestedReconnect)
    }
}
