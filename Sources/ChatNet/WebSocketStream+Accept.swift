import WebSocketWire

/// The server side's opening: the client's upgrade request, read without blocking across reads,
/// answered `101` (or an HTTP error, then closed). Kept beside the frames in ``WebSocketStream``.
extension WebSocketStream {
    /// Reads the upgrade request; `nil` once the connection is open (go on reading frames), else
    /// what to return.
    func readRequest(into buffer: UnsafeMutableRawBufferPointer) throws(WebSocketError) -> ReadOutcome? {
        while true {
            let outcome: ReadOutcome
            do { outcome = try unsafe base.read(into: buffer) } catch {
                state = .closed
                throw .transport(error)
            }
            switch outcome {
            case .bytes(let count):
                for i in 0..<count { head.append(unsafe buffer[i]) }
            case .wouldBlock:
                return .wouldBlock
            case .endOfStream:
                state = .closed
                return .endOfStream
            }
            if head.count >= 4 && !head.starts(with: "GET ".utf8) {
                let start = String(decoding: head.prefix(while: { $0 != 0x0D && $0 != 0x0A }).prefix(40), as: UTF8.self)
                throw reject(.badRequest("'\(start)' is not an HTTP GET: this port speaks IRC over WebSocket"))
            }
            // A local for the span: a release build without dynamic exclusivity checks rejects a span
            // of a class property outliving the (then unmarked) access. The array is shared, not copied.
            let headSoFar = head
            guard let end = WebSocketHandshake.headEnd(in: headSoFar.span) else {
                if head.count > WebSocketHandshake.maxHeadLength {
                    throw reject(
                        .malformed("no end of the request head within \(WebSocketHandshake.maxHeadLength) bytes"))
                }
                continue
            }
            leftover = Array(head[end...])
            leftoverStart = 0
            let request: WebSocketUpgradeRequest
            head.removeSubrange(end...)
            let requestHead = head  // shared, not copied (see above)
            do throws(WebSocketHandshakeError) { request = try WebSocketHandshake.parseRequest(requestHead.span) } catch
            {
                throw reject(error)
            }
            head = []
            subprotocol = request.chosenProtocol
            requestPath = request.path
            let response = WebSocketHandshake.response(
                accept: WebSocketKeys.accept(forKey: request.key), protocol: subprotocol)
            var bytes = Array(response.utf8)
            base.enqueue(raw: bytes.span, isSecret: false)
            bytes.removeAll()
            state = .open
            do { try base.flush() } catch {
                state = .closed
                throw .transport(error)
            }
            return nil
        }
    }

    /// Answers a request that cannot be upgraded with its HTTP error (best effort) and closes.
    private func reject(_ error: WebSocketHandshakeError) -> WebSocketError {
        let bytes = Array(WebSocketHandshake.rejection(error).utf8)
        base.enqueue(raw: bytes.span, isSecret: false)
        _ = try? base.flush()
        state = .closed
        head = []
        return .handshake(peer: peer, error)
    }
}
