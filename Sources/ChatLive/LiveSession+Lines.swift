import ChatNet
import ChatPosix
import IRCWire
import TwitchSession

/// Reading a connection and handing out its lines: each read drained into the machine and to
/// `onLine` (or the backfill), a RECONNECT overlap's second copies dropped, a writer that does not
/// read closed as dead.
extension LiveSession {
    func service(_ c: Connection, _ readiness: EventLoop.Readiness) {
        guard let stream = c.stream else { return }
        if readiness.contains(.writable) || stream.hasPendingWrites {
            do { try stream.flush() } catch {
                lost(c, .failed("\(error)"))
                return
            }
        }
        // Read until the stream would block — TLS may hold decrypted bytes the socket no longer
        // signals — but at most `readBudget` times per wake-up, so that a server sending without
        // pause cannot starve timers, other connections or the stop flag.
        var budget = Self.readBudget
        while c.stream != nil {
            if budget == 0 {
                c.hasMore = true
                return
            }
            budget -= 1
            let outcome: ReadOutcome
            do { outcome = try stream.read(into: &c.framer) } catch {
                lost(c, .failed("\(error)" + (c.receivedAny ? "" : mismatchHint)))
                return
            }
            // A read may queue (pongs): the bound holds whatever made the queue grow.
            if exceedsWriteQueueLimit(c) { return }
            switch outcome {
            case .bytes:
                c.receivedAny = true
                let now = Moment.now()
                // A connection read on after `.closeRetired` is closed once nothing comes for a while.
                if c.drainEnd != nil { c.quietUntil = now.monotonicMs + settings.retiredQuietMs }
                drain(c, receivedAt: now)
            case .wouldBlock:
                updateInterest(c)
                return
            case .endOfStream:
                lost(
                    c,
                    c.receivedAny || endpoint.tls != nil
                        ? .endOfStream : .failed("the server closed the connection" + mismatchHint))
                return
            }
        }
    }

    /// Services `c` again, its read budget having run out on the last wake-up; whether it still has
    /// more (the loop's wait then does not block).
    func serviceAgain(_ c: Connection) -> Bool {
        c.hasMore = false
        service(c, [])
        return c.hasMore
    }

    /// Hands every complete line to the machine and to `onLine`, all stamped with the time of the
    /// read that completed them.
    ///
    /// Every complete line is handled, also those after a line that closed the connection (RECONNECT:
    /// Twitch goes on sending until it closes): the machine has moved on and ignores them, `onLine`
    /// gets them. A partial line left at such a close is reported as cut off, as at any close.
    private func drain(_ c: Connection, receivedAt now: Moment) {
        c.isDraining = true
        defer {
            c.isDraining = false
            if c.handOverRequested {
                c.handOverRequested = false
                handOver(c)
            }
            if let reason = c.closedWhileDraining {
                c.closedWhileDraining = nil
                discardPartialLine(of: c, closedBecause: reason)
            }
            // A retiring connection that delivered a copy of a line its replacement carried after
            // joining everything: the handover is confirmed here, after its framer's loop (closing
            // it reads nothing more).
            if c.retires, let owner = c.owner, owner.retiring === c, owner.overlap?.caughtUp == true {
                actions.removeAll(keepingCapacity: true)
                owner.machine.handle(.overlapConfirmed, at: now, into: &actions, sharing: &pace)
                perform(actions, on: owner)
            }
        }
        while let event = c.framer.nextLine() {
            switch event {
            case .skipped(let error):
                onProblem(.skipped(error))
            case .line(let line):
                c.lines += 1
                // Emptied before the parse: a rejected line must perform nothing, in particular not
                // the actions of the line before it again.
                if !actions.isEmpty { actions.removeAll(keepingCapacity: true) }
                var answersHTTP = false
                c.framer.withBytes(of: line) { bytes in
                    let message: TwitchMessage
                    do throws(LineError) { message = try TwitchMessage.parse(bytes) } catch {
                        if line.number == 1 && endpoint.transport == .tcp && Self.isHTTPStatusLine(bytes) {
                            answersHTTP = true
                            return
                        }
                        onMalformedLine?(bytes, now)
                        onProblem(.malformed(lineNumber: line.number, error))
                        return
                    }
                    if c.retires {
                        // A retiring connection: chat only, but its PINGs are answered while it plays.
                        if case .ping(let token) = c.machine.classify(message, in: bytes), let stream = c.stream {
                            try? stream.enqueue(.pong(token))
                            _ = try? stream.flush()
                        }
                    } else if !ServerLine.mayControl(message.command) {
                        // Chat, most lines: it proves the connection alive and steers nothing (the
                        // loop's tick runs the machine's timers when they are due).
                        c.machine.chatReceived(at: now)
                    } else {
                        // Every line counts for liveness; control lines also drive the session.
                        c.machine.handle(
                            .lineReceived(c.machine.classify(message, in: bytes)), at: now, into: &actions,
                            sharing: &pace)
                        // Our JOIN echo ends a gap that the backfill is to fill: its wait begins before
                        // the echo is handed on, so the echo is held with the channel's next lines. Stored
                        // at once, it would be the channel's newest line while the gap's record waits for
                        // the service: a kill then would leave the gap in no record, and the next run's
                        // gap would start after it.
                        if startsBackfill(actions) {
                            perform(actions, on: c)
                            actions.removeAll(keepingCapacity: true)
                        }
                    }
                    deliver(bytes, message, from: c, receivedAt: now)
                }
                if answersHTTP {
                    // An HTTP answer (a WebSocket port) is one problem, not a malformed line per header.
                    while c.framer.nextLine() != nil {}
                    lost(c, .failed("the server answered in HTTP: a WebSocket port? (--transport websocket)"))
                    return
                }
                if !actions.isEmpty { perform(actions, on: c) }
            }
        }
    }

    /// Closes `c` as dead (``DisconnectReason/peerNotReading(queuedBytes:limit:)``) when more than
    /// ``writeQueueLimit`` bytes wait to be written, WebSocket pongs owed included.
    ///
    /// - Returns: whether it did.
    func exceedsWriteQueueLimit(_ c: Connection) -> Bool {
        guard let stream = c.stream, stream.pendingWriteCount > writeQueueLimit else { return false }
        lost(c, .peerNotReading(queuedBytes: stream.pendingWriteCount, limit: writeQueueLimit))
        return true
    }

    /// Whether `bytes` starts like an HTTP status line (`HTTP/1.1 400 …`).
    private static func isHTTPStatusLine(_ bytes: Span<UInt8>) -> Bool {
        let prefix: [UInt8] = Array("HTTP/".utf8)
        guard bytes.count >= prefix.count else { return false }
        for i in 0..<prefix.count where bytes[i] != prefix[i] { return false }
        return true
    }

    /// Hands a line to the backfill or `onLine`, once: during a RECONNECT overlap a copy the other
    /// side already delivered is dropped (and counted in ``overlapDuplicates``).
    private func deliver(_ bytes: Span<UInt8>, _ message: TwitchMessage, from c: Connection, receivedAt now: Moment) {
        // The owner passed down, not held in a local: `c.owner ?? c` was a retain and a release of the
        // connection a line, and the release, after the line was stored, waited for the store's
        // writes to drain (a locked instruction: 4.4% of capture's perf samples at 10,000 channels; its lines/s
        // did not move beyond noise).
        if c.retires, let owner = c.owner {
            deliver(bytes, message, from: c, owner: owner, receivedAt: now)
        } else {
            deliver(bytes, message, from: c, owner: c, receivedAt: now)
        }
    }

    /// ``deliver(_:_:from:receivedAt:)`` given `c`'s owner (`c` itself unless it retires).
    @inline(__always)
    private func deliver(
        _ bytes: Span<UInt8>, _ message: TwitchMessage, from c: Connection, owner: Connection, receivedAt now: Moment
    ) {
        // Computed once when the overlap or the backfill needs it, never on a plain live line.
        let fingerprint = owner.overlap != nil || backfill != nil ? LineFingerprint.of(bytes, message) : 0
        if owner.overlap != nil {
            let side: OverlapFilter.Side = c.retires ? .retiring : .replacement
            // From the replacement's first line after it joined every channel on, a line on both
            // connections tells how far the retiring one has been read (``OverlapFilter/caughtUp``).
            if side == .replacement, c.retiring != nil, c.machine.isHandoverSettled { owner.overlap!.settle() }
            let kept = owner.overlap!.admit(fingerprint, from: side, identified: LineFingerprint.hasId(message))
            guard kept else {
                overlapDuplicates += 1
                // Read far enough: the retiring connection is closed after this line's actions (a
                // copy on the retiring connection confirms at the end of its read: ``drain``).
                if side == .replacement, c.retiring != nil, owner.overlap!.caughtUp {
                    c.machine.handle(.overlapConfirmed, at: now, into: &actions, sharing: &pace)
                }
                return
            }
        }
        if let backfill {
            backfill.deliver(bytes, message, fingerprint: fingerprint, receivedAt: now, lineNumber: c.lines)
        } else {
            onLine(bytes, message, now, c.lines)
        }
    }
}
