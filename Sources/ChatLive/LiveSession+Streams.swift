import ChatNet
import ChatPosix
import IRCWire
import TwitchSession

/// Opening and closing a connection's stream: TCP, TLS and WebSocket connects within the run's
/// deadline, the TLS/plain mismatch hint on a failure, epoll registration, and the partial line a
/// close leaves.
extension LiveSession {
    /// Added to a failure that looks like the two ends disagreeing on TLS: a plain connection closed
    /// or reset before the server sent a byte (a TLS port waits for a handshake, then gives up), or a
    /// TLS handshake that failed or timed out (a plain IRC port does not answer one).
    var mismatchHint: String {
        endpoint.tls == nil
            ? " (TLS/plain mismatch? the port may expect TLS: drop --plain)"
            : " (TLS/plain mismatch? the port may speak plain IRC: --plain)"
    }

    /// Whether a connect failed in the TLS handshake (it failed, or did not finish in time): what a
    /// plain IRC port does to a handshake. A name that does not resolve or a refused connection
    /// (``TLSError/socket(_:)``) is no sign of a mismatch.
    private static func handshakeFailed(_ error: any Error) -> Bool {
        switch error as? TLSError {
        case .handshakeFailed, .timedOut: true
        default: false
        }
    }

    func open(_ c: Connection) {
        let now = Moment.now()
        do {
            let stream = try connect()
            c.stream = stream
            c.receivedAny = false
            c.framer.reset()
            c.registered = stream.interest
            try loop.register(stream.fileDescriptor, interest: c.registered)
            connectionByDescriptor[stream.fileDescriptor] = c
            actions.removeAll(keepingCapacity: true)
            c.machine.handle(.connected, at: now, into: &actions, sharing: &pace)
        } catch {
            c.stream = nil
            actions.removeAll(keepingCapacity: true)
            // A handshake cut short by the run's deadline says nothing about TLS against plain.
            let cutShort = runDeadline.map { Moment.now().monotonicMs >= $0 } ?? false
            let reason: DisconnectReason =
                (error as? TLSError)?.isCertificateRejection == true
                ? .certificateRejected("\(error)")
                : .connectFailed("\(error)" + (looksLikeTLSMismatch(error) && !cutShort ? mismatchHint : ""))
            c.machine.handle(.closed(reason), at: now, into: &actions, sharing: &pace)
        }
        perform(actions, on: c)
    }

    /// Whether a failure to open looks like the two ends disagreeing on TLS: a TLS handshake that
    /// failed, or (a plain WebSocket) a server that closed or reset the connection without a byte of
    /// answer to the Upgrade request, as a TLS port does.
    private func looksLikeTLSMismatch(_ error: any Error) -> Bool {
        if endpoint.tls != nil { return Self.handshakeFailed(error) }
        return (error as? WebSocketError)?.isUnanswered == true
    }

    /// Connects to the endpoint, over TLS when it has a context, then (WebSocket transport) does the
    /// Upgrade handshake: blocks for at most its timeout in all, and never past the run's deadline.
    private func connect() throws -> any ByteStream {
        let start = Moment.now().monotonicMs
        let timeoutMs = runDeadline.map { min(endpoint.timeoutMs, max(1, $0 - start)) } ?? endpoint.timeoutMs
        let base: any ByteStream
        if let tlsContext {
            base = try TLSConnection.connect(
                host: endpoint.host, port: endpoint.port, context: tlsContext, timeoutMs: timeoutMs, stop: stop)
        } else {
            base = try TCPConnection.connect(host: endpoint.host, port: endpoint.port, timeoutMs: timeoutMs, stop: stop)
        }
        guard endpoint.transport == .websocket else { return base }
        return try WebSocketStream.connect(
            over: base, host: endpoint.host, port: endpoint.port, secure: tlsContext != nil, path: endpoint.path,
            peer: endpoint.description,
            timeoutMs: max(1, timeoutMs - (Moment.now().monotonicMs - start)), stop: stop)
    }

    /// Re-registers the stream's descriptor when what it waits for changed (one `epoll_ctl` then).
    func updateInterest(_ c: Connection) {
        guard let stream = c.stream else { return }
        let interest = stream.interest
        guard interest != c.registered else { return }
        if (try? loop.modify(stream.fileDescriptor, interest: interest)) != nil { c.registered = interest }
    }

    /// Closes the stream. The complete lines still in the framer are drained first when the close
    /// comes from within ``drain(_:receivedAt:)``; a partial line left is reported as cut off.
    func close(_ c: Connection, because reason: DisconnectReason) {
        guard let stream = c.stream else { return }
        try? loop.remove(stream.fileDescriptor)
        connectionByDescriptor[stream.fileDescriptor] = nil
        c.stream = nil  // the stream closes its descriptor when released
        if c.isDraining {
            c.closedWhileDraining = reason
        } else {
            discardPartialLine(of: c, closedBecause: reason)
        }
    }

    /// Empties the framer of a closed connection, reporting the bytes of a partial line (the framer
    /// holds no complete line here: every read is drained).
    func discardPartialLine(of c: Connection, closedBecause reason: DisconnectReason) {
        if c.framer.pendingByteCount > 0 {
            onProblem(.cutOff(droppedBytes: c.framer.pendingByteCount, reason: reason))
        }
        c.framer.reset()
    }
}
