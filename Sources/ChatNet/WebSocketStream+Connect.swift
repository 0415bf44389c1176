public import ChatPosix
import TwitchSession
import WebSocketWire

extension WebSocketStream {
    /// Opens a WebSocket client connection on `base` (connected TCP, or TLS with its handshake done):
    /// sends the Upgrade request for `path` and waits, on a private ``EventLoop``, at most `timeoutMs`
    /// for a `101` answer with the right `Sec-WebSocket-Accept`, and no longer than
    /// ``EventLoop/stopCheckMs`` after `stop` is raised (SIGINT, SIGTERM). Bytes that came after the
    /// answer are kept for the first ``read(into:)``.
    ///
    /// - Parameters:
    ///   - secure: whether `base` is TLS (`wss://`): only for the `Host` header's default port.
    ///   - protocols: the subprotocols to offer (none, as tmi.js; Twitch also takes `irc`).
    /// - Throws: ``WebSocketError``: the stream's error, the handshake's (not 101, a wrong accept
    ///   value, …), ``WebSocketError/unanswered(peer:_:)`` when the server closed or reset the
    ///   connection before a byte of answer, a timeout, or ``WebSocketError/transport(_:)`` with
    ///   ``SocketError/stopped(_:)``.
    public static func connect(
        over base: any ByteStream, host: String, port: UInt16, secure: Bool, path: String = "/",
        protocols: [String] = [], peer: String, timeoutMs: Int64 = 10_000, stop: StopFlag? = nil
    ) throws(WebSocketError) -> WebSocketStream {
        let start = Moment.now().monotonicMs
        let key = WebSocketKeys.newKey()
        let request = WebSocketHandshake.request(
            host: host, port: port, secure: secure, path: path, key: key, protocols: protocols)
        let requestBytes = Array(request.utf8)
        base.enqueue(raw: requestBytes.span, isSecret: false)
        var head: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let loop: EventLoop
        do {
            loop = try EventLoop(maxEvents: 1)
            try loop.register(base.fileDescriptor, interest: base.interest)
        } catch {
            throw .transport(error)
        }
        defer { try? loop.remove(base.fileDescriptor) }
        var end: Int? = nil
        while end == nil {
            do {
                try base.flush()
                reading: while true {
                    // SAFETY: the array's storage is lent for the read, which writes at most its count.
                    let outcome = try unsafe chunk.withUnsafeMutableBytes { unsafe try base.read(into: $0) }
                    switch outcome {
                    case .bytes(let n):
                        head += chunk[..<n]
                        end = WebSocketHandshake.headEnd(in: head.span)
                        if end != nil { break reading }
                        if head.count > WebSocketHandshake.maxHeadLength {
                            throw WebSocketError.handshake(
                                peer: peer,
                                .malformed(
                                    "no end of the answer's head within \(WebSocketHandshake.maxHeadLength) bytes"))
                        }
                    case .wouldBlock:
                        break reading
                    case .endOfStream:
                        if head.isEmpty {
                            throw WebSocketError.unanswered(peer: peer, "the server closed the connection")
                        }
                        throw WebSocketError.handshake(
                            peer: peer, .malformed("the server closed the connection in the middle of its answer"))
                    }
                }
                if end != nil { break }
                let remaining = start + timeoutMs - Moment.now().monotonicMs
                guard remaining > 0 else { throw WebSocketError.timedOut(peer: peer, afterMs: timeoutMs) }
                try loop.modify(base.fileDescriptor, interest: base.interest)
                try loop.waitStep(remainingMs: remaining, stop: stop, "WebSocket handshake with \(peer)")
            } catch let error as WebSocketError {
                throw error
            } catch {
                // A reset before any byte of answer: what a TLS port does with a plain request (a stop is not).
                let reset = head.isEmpty && (error as? SocketError).map { !$0.isStopped } == true
                throw reset ? .unanswered(peer: peer, "\(error)") : .transport(error)
            }
        }
        let headEnd = end!
        let rest = Array(head[headEnd...])
        head.removeSubrange(headEnd...)
        let chosen: String?
        do throws(WebSocketHandshakeError) {
            chosen = try WebSocketHandshake.checkResponse(
                head.span, expectedAccept: WebSocketKeys.accept(forKey: key), offered: protocols)
        } catch {
            throw .handshake(peer: peer, error)
        }
        return WebSocketStream(
            open: base, role: .client, peer: peer, leftover: rest, subprotocol: chosen)
    }
}
