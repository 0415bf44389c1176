public import IRCWire
public import WebSocketWire

/// IRC over WebSocket (RFC 6455) on top of another ``ByteStream`` (``TCPConnection`` or
/// ``TLSConnection``), and itself a ``ByteStream``: a loop reads lines from it and queues lines on it
/// exactly as over TCP. Twitch's `wss://irc-ws.chat.twitch.tv:443` speaks this; so does `serve --ws-port`.
///
/// Reading: ``read(into:)`` reads the stream below straight into the caller's buffer (normally a
/// ``LineFramer``'s free tail) and unwraps the frames there in place with a ``WebSocketDecoder``:
/// headers are dropped, payloads moved down and unmasked, so the framer sees only IRC bytes and no
/// byte is copied elsewhere — the read path allocates nothing. Pings are answered with pongs, a close
/// frame with a close frame (then `.endOfStream`), a protocol error with a close frame carrying its
/// code (1002; 1007 for text that is not UTF-8; 1009 for a message over the limit) and a thrown
/// ``WebSocketError/protocolViolation(peer:failure:)`` — after the bytes decoded before it have been
/// returned.
///
/// Pings from a peer that does not read cannot grow memory: a pong is queued only while nothing waits
/// in the queue below; otherwise the latest ping's payload is held (one, at most 125 bytes) and its
/// pong queued once the queue has drained, answering every ping before it (RFC 6455 §5.5.3 allows
/// it). The pongs so skipped are counted as ``owedPongBytes``, part of ``pendingWriteCount``, so an
/// owner that closes a peer past its queue bound closes a peer that pings without reading too.
///
/// Writing: as a client every line is one masked text frame (masking keys from OpenSSL's
/// `RAND_bytes`), as Twitch's browser clients send; a secret line (PASS) is zeroed in the queues
/// once written. As a server lines are gathered and sent as text frames of one or more CR LF-ended
/// lines, each frame sealed at ``flush()`` or when it would pass ``maxFramePayload`` (a binary frame
/// when its lines are not UTF-8, which a text frame must be); server frames are never masked.
///
/// Opening: a client connects the stream below, then ``connect(over:host:port:secure:path:protocols:peer:timeoutMs:)``
/// does the Upgrade handshake. A server wraps an accepted stream with ``init(accepting:peer:maxMessageLength:)``:
/// its first reads take the client's upgrade request (non-blocking), answer `101` (with the `irc`
/// subprotocol when asked) or an HTTP error, and go on with frames.
///
/// Why not a package: the Swift WebSocket packages (hummingbird-project/swift-websocket,
/// vapor/websocket-kit) are built on SwiftNIO's event loops and `ByteBuffer`; chatcap's one-thread
/// epoll loop and in-place framer would need a second event model for them.
///
/// Confined to its loop's thread.
public final class WebSocketStream: ByteStream {
    /// The default of the server side's message limit: 64 KiB (a client sends login, JOINs, PONGs).
    public static let defaultServerMaxMessageLength = 64 * 1024
    /// The most bytes of lines a server frame carries (more only for one longer line).
    public static let maxFramePayload = 16 * 1024
    /// Reads of the stream below that brought no message byte (only control frames or headers)
    /// before ``read(into:)`` returns `.wouldBlock` and asks to be woken at once (``interest``
    /// includes `.writable`): a peer sending nothing but control frames cannot hold the loop.
    static let emptyReadBudget = 16

    /// The stream below.
    public let base: any ByteStream
    public let role: WebSocketRole
    /// Who is on the other end, for messages.
    public let peer: String
    /// The subprotocol agreed in the handshake (`irc`), if any.
    public internal(set) var subprotocol: String?
    /// The request target a client asked for (server side, once open).
    public internal(set) var requestPath: String?
    /// The code of the close frame the peer sent, once it did.
    public private(set) var receivedCloseCode: WebSocketCloseCode?

    enum State {
        /// Server side: reading the client's upgrade request.
        case awaitingRequest
        case open
        /// A close frame came or went out after an error, or the stream below ended.
        case closed
    }

    var state: State
    private var decoder: WebSocketDecoder
    /// Bytes read past the handshake's head, decoded before anything else is read.
    var leftover: [UInt8] = []
    var leftoverStart = 0
    /// Server side: the request head read so far.
    var head: [UInt8] = []
    /// Server side: lines queued since the last frame was sealed.
    private var outgoing: [UInt8] = []
    /// A message serialised (client side) before it is framed.
    private var scratch: [UInt8] = []
    /// A frame built for the stream below (client messages, pongs, close frames).
    private var frame: [UInt8] = []
    /// A failure met after some message bytes were decoded: thrown by the next read.
    private var pendingFailure: WebSocketError?
    private var sentClose = false
    /// The last read stopped on its budget with input possibly left: be woken at once.
    private var wantsPoke = false
    /// The pong owed to the latest ping while the queue below is not empty, and those it replaced.
    private var heldPong: HeldPong

    /// The server side of an accepted connection: reads the upgrade request first.
    ///
    /// - Parameter maxMessageLength: the longest message the client may send (1009 beyond).
    public init(
        accepting base: any ByteStream, peer: String,
        maxMessageLength: Int = WebSocketStream.defaultServerMaxMessageLength
    ) {
        self.base = base
        self.peer = peer
        role = .server
        state = .awaitingRequest
        heldPong = HeldPong(role: .server)
        decoder = WebSocketDecoder(role: .server, maxMessageLength: maxMessageLength)
    }

    /// An open connection of `role` on `base` whose handshake is done; `leftover` are bytes read past
    /// the handshake, decoded first. (``connect(over:host:port:secure:path:protocols:peer:timeoutMs:)``,
    /// tests and the allocation checks use it.)
    package init(
        open base: any ByteStream, role: WebSocketRole, peer: String, leftover: [UInt8] = [],
        subprotocol: String? = nil, maxMessageLength: Int = WebSocketDecoder.defaultMaxMessageLength
    ) {
        self.base = base
        self.role = role
        self.peer = peer
        self.leftover = leftover
        self.subprotocol = subprotocol
        state = .open
        heldPong = HeldPong(role: role)
        decoder = WebSocketDecoder(role: role, maxMessageLength: maxMessageLength)
    }

    public var fileDescriptor: Int32 { base.fileDescriptor }

    public var interest: EventLoop.Interest {
        var interest = base.interest
        // Bytes read past the handshake wait in memory, not in the socket: be woken to decode them.
        let hasLeftover = leftoverStart < leftover.count
        if wantsPoke || hasLeftover || (!outgoing.isEmpty && state == .open) { interest.insert(.writable) }
        return interest
    }

    /// Bytes queued below, lines gathered for the next frame, a held pong and ``owedPongBytes``.
    public var pendingWriteCount: Int {
        base.pendingWriteCount + outgoing.count + heldPong.byteCount
    }

    /// Whether the connection is open (the handshake done, no close frame or failure yet).
    public var isOpen: Bool { state == .open }

    // MARK: Reading

    /// Reads frames from the stream below into `buffer` and unwraps them there; returns the message
    /// bytes (at least one) at the buffer's front.
    ///
    /// - Precondition: `buffer.count >= 2` (one byte is kept for an LF that ends a message without one).
    /// - Throws: the stream below's errors as ``WebSocketError/transport(_:)``; a bad upgrade request
    ///   (server side) as ``WebSocketError/handshake(peer:_:)``; a protocol error as
    ///   ``WebSocketError/protocolViolation(peer:_:)``.
    /// - Complexity: O(bytes read); at most ``emptyReadBudget`` reads below.
    /// - Allocations: none once open (a failure builds its message; a ping's pong may grow the queue).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(WebSocketError) -> ReadOutcome {
        precondition(buffer.count >= 2, "a WebSocket read needs room for 2 bytes")
        wantsPoke = false
        if let failure = pendingFailure {
            pendingFailure = nil
            throw failure
        }
        if state == .awaitingRequest, let outcome = try unsafe readRequest(into: buffer) { return outcome }
        guard state == .open else { return .endOfStream }
        // SAFETY: a prefix of the lent buffer, valid for this call.
        let room = unsafe UnsafeMutableRawBufferPointer(rebasing: buffer[..<(buffer.count - 1)])
        var reads = 0
        while true {
            let count: Int
            if leftoverStart < leftover.count {
                count = unsafe takeLeftover(into: room)
            } else {
                if reads == Self.emptyReadBudget {
                    wantsPoke = true
                    return .wouldBlock
                }
                reads += 1
                let outcome: ReadOutcome
                do { outcome = try unsafe base.read(into: room) } catch {
                    state = .closed
                    throw .transport(error)
                }
                switch outcome {
                case .bytes(let n): count = n
                case .wouldBlock: return .wouldBlock
                case .endOfStream:
                    state = .closed
                    return .endOfStream
                }
            }
            var input = 0
            var output = 0
            while let event = unsafe decoder.decode(buffer, input: &input, end: count, output: &output) {
                guard let failure = handle(event) else { continue }
                if output > 0 {
                    pendingFailure = failure
                    return .bytes(output)
                }
                throw failure
            }
            if output > 0 { return .bytes(output) }
            if state != .open { return .endOfStream }
        }
    }

    /// Copies handshake leftovers into `room`.
    private func takeLeftover(into room: UnsafeMutableRawBufferPointer) -> Int {
        let count = min(room.count, leftover.count - leftoverStart)
        for i in 0..<count { unsafe room[i] = leftover[leftoverStart + i] }
        leftoverStart += count
        if leftoverStart == leftover.count {
            leftover = []
            leftoverStart = 0
        }
        return count
    }

    /// Answers a control frame; returns the error to throw for a failure.
    private func handle(_ event: WebSocketEvent) -> WebSocketError? {
        switch event {
        case .ping:
            guard !sentClose else { return nil }
            answerPing()
        case .pong:
            break
        case .close(let code):
            receivedCloseCode = code
            if !sentClose {
                var payload: [UInt8] = []
                if let code { payload = [UInt8(code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)] }
                queueControl(.close, payload: payload.span)
                sentClose = true
                heldPong.reset()
                _ = try? base.flush()
            }
            state = .closed
        case .failure(let failure):
            sendClose(failure.code, reason: failure.reason)
            state = .closed
            return .protocolViolation(peer: peer, failure)
        }
        return nil
    }

    /// The bytes of the pongs that pings answered by a later pong would have queued, since the queue
    /// below last drained: what a peer pinging without reading asked us to write (counted in
    /// ``pendingWriteCount``, so that the owner's queue bound applies to it).
    public var owedPongBytes: Int { heldPong.owedBytes }

    /// Queues the pong of the ping just decoded when the queue below is empty (after trying to write
    /// it), else holds its payload in place of the one held.
    ///
    /// - Complexity: O(payload), at most one write below. - Allocations: none once the queues have grown.
    private func answerPing() {
        if base.pendingWriteCount > 0 { _ = try? base.flush() }  // a failure shows at the owner's flush
        if base.pendingWriteCount == 0 {
            heldPong.reset()  // this pong answers the held one's ping too
            decoder.withControlPayload { payload in queueControl(.pong, payload: payload) }
        } else {
            decoder.withControlPayload { payload in heldPong.hold(payload) }
        }
    }

    /// Queues the held pong once the queue below has drained.
    private func releaseHeldPong() {
        guard base.pendingWriteCount == 0, !sentClose, let held = heldPong.take() else { return }
        queueControl(.pong, payload: held.payload.span.extracting(0..<held.count))
    }

    // MARK: Writing

    public func enqueue(_ message: OutgoingMessage) throws(SerializationError) {
        scratch.removeAll(keepingCapacity: true)
        try message.serialize(into: &scratch)
        scratch.append(0x0D)
        scratch.append(0x0A)
        queueScratch(isSecret: message.isSecret)
        if message.isSecret { for i in scratch.indices { scratch[i] = 0 } }
    }

    public func enqueue(line: Span<UInt8>) {
        switch role {
        case .server:
            if !outgoing.isEmpty && outgoing.count + line.count + 2 > Self.maxFramePayload { sealFrame() }
            for i in 0..<line.count { outgoing.append(line[i]) }
            outgoing.append(0x0D)
            outgoing.append(0x0A)
        case .client:
            scratch.removeAll(keepingCapacity: true)
            for i in 0..<line.count { scratch.append(line[i]) }
            scratch.append(0x0D)
            scratch.append(0x0A)
            queueScratch(isSecret: false)
        }
    }

    /// Queues bytes as they are, below the framing (tests: hand-made frames).
    public func enqueue(raw bytes: Span<UInt8>, isSecret: Bool) {
        sealFrame()
        base.enqueue(raw: bytes, isSecret: isSecret)
    }

    /// Seals the gathered lines into a frame and writes what the stream below takes.
    ///
    /// - Returns: `true` when nothing is left to write.
    @discardableResult
    public func flush() throws(WebSocketError) -> Bool {
        sealFrame()
        do {
            var drained = try base.flush()
            if drained && heldPong.isHolding {
                releaseHeldPong()
                drained = try base.flush()
            }
            return drained && outgoing.isEmpty
        } catch {
            throw .transport(error)
        }
    }

    /// Sends a close frame with `code` (best effort: what the socket takes now) unless one went out;
    /// frames already queued go first. A server does this before closing a connection on purpose.
    public func close(_ code: WebSocketCloseCode, reason: String = "") {
        guard state == .open else { return }
        sealFrame()
        sendClose(code, reason: reason)
    }

    /// The message in ``scratch``: a masked text frame at once (client), or lines gathered for the
    /// next frame (server).
    private func queueScratch(isSecret: Bool) {
        switch role {
        case .server:
            outgoing += scratch
            if outgoing.count >= Self.maxFramePayload { sealFrame() }
        case .client:
            frame.removeAll(keepingCapacity: true)
            let payload = scratch  // shared, not copied: a span of a local (see `readRequest`)
            WebSocketFrame.append(
                opcode: .text, payload: payload.span, maskingKey: WebSocketKeys.newMaskingKey(), to: &frame)
            queueFrame(isSecret: isSecret)
            if isSecret { for i in frame.indices { frame[i] = 0 } }
        }
    }

    /// ``frame`` into the queue below.
    private func queueFrame(isSecret: Bool) {
        let base = base
        // SAFETY: the array's storage is lent only for the closure, which copies it into the queue.
        unsafe frame.withUnsafeBufferPointer { unsafe base.enqueue(raw: $0.span, isSecret: isSecret) }
    }

    /// A control frame (masked as a client) straight into the queue below.
    private func queueControl(_ opcode: WebSocketOpcode, payload: Span<UInt8>) {
        frame.removeAll(keepingCapacity: true)
        let key = role == .client ? WebSocketKeys.newMaskingKey() : nil
        WebSocketFrame.append(opcode: opcode, payload: payload, maskingKey: key, to: &frame)
        queueFrame(isSecret: false)
    }

    private func sendClose(_ code: WebSocketCloseCode, reason: String) {
        guard !sentClose else { return }
        sentClose = true
        heldPong.reset()
        queueControl(.close, payload: WebSocketFrame.closePayload(code, reason: reason).span)
        _ = try? base.flush()
    }

    /// Server side: the gathered lines as one text frame into the queue below (binary when they are
    /// not UTF-8).
    ///
    /// - Complexity: O(bytes gathered): one UTF-8 check (8 ASCII bytes a step), one copy.
    /// - Allocations: only when the queue below grows.
    private func sealFrame() {
        guard !outgoing.isEmpty, state == .open, !sentClose else { return }
        // A text frame must be UTF-8 (RFC 6455 §8.1; a browser fails the connection otherwise): lines
        // that are not (a recording keeps the bytes it received) go as a binary frame, byte for byte.
        var utf8 = UTF8Validator()
        // SAFETY: the array's storage is lent only for the closure, which reads `count` bytes of it.
        let isText = unsafe outgoing.withUnsafeMutableBytes { unsafe utf8.check($0, start: 0, count: $0.count) } == nil
        let header = WebSocketFrameHeader(
            opcode: isText && utf8.isAtBoundary ? .text : .binary, payloadLength: outgoing.count)
        let base = base
        header.withBytes { base.enqueue(raw: $0, isSecret: false) }
        // SAFETY: the array's storage is lent only for the closure, which copies it into the queue.
        unsafe outgoing.withUnsafeBufferPointer { unsafe base.enqueue(raw: $0.span, isSecret: false) }
        outgoing.removeAll(keepingCapacity: true)
    }
}

@available(*, unavailable)
extension WebSocketStream: Sendable {}
