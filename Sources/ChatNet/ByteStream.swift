public import IRCWire

/// A connected, non-blocking byte stream to a peer: plain TCP (``TCPConnection``) or TLS
/// (``TLSConnection``, client or server side). A loop drives either the same way, through a
/// concrete type or as `any ByteStream`.
///
/// Reading: call ``read(into:)`` (or ``read(into:)-(LineFramer)``) whenever the descriptor is
/// readable **until it returns `.wouldBlock`**: a TLS stream may hold decrypted bytes that the socket
/// no longer signals. Writing: ``enqueue(_:)`` or ``enqueue(line:)`` lines, then ``flush()`` now and
/// whenever the descriptor is writable; ``interest`` says what to wait for next.
///
/// Conformers are confined to their loop's thread and are not `Sendable`.
public protocol ByteStream: AnyObject {
    associatedtype Failure: Error

    /// The socket, for ``EventLoop`` registration.
    var fileDescriptor: Int32 { get }

    /// What to wait for next: always `.readable`, plus `.writable` while bytes wait to be written or
    /// the TLS engine needs to write before it can read.
    var interest: EventLoop.Interest { get }

    /// Bytes queued but not yet written.
    var pendingWriteCount: Int { get }

    /// Reads what is available into `buffer` without blocking.
    ///
    /// - Precondition: `buffer.count > 0`.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> ReadOutcome

    /// Queues `message` and its CR LF for writing. Nothing is written until ``flush()``.
    func enqueue(_ message: OutgoingMessage) throws(SerializationError)

    /// Queues `line` (a whole line without its terminator) and CR LF, copying it once.
    ///
    /// - Complexity: amortised O(`line.count`). - Allocations: only when the queue grows.
    func enqueue(line: Span<UInt8>)

    /// Queues `bytes` as they are (a layer above, such as ``WebSocketStream``, frames its lines
    /// itself). A secret (a masked PASS) is zeroed in the queue once written.
    ///
    /// - Complexity: amortised O(`bytes.count`). - Allocations: only when the queue grows.
    func enqueue(raw bytes: Span<UInt8>, isSecret: Bool)

    /// Writes as much of the queue as the socket takes now.
    ///
    /// - Returns: `true` when the queue is empty.
    @discardableResult
    func flush() throws(Failure) -> Bool
}

extension ByteStream {
    /// Whether lines are queued but not yet written.
    public var hasPendingWrites: Bool { pendingWriteCount > 0 }

    /// Reads straight into the framer's free tail: no intermediate buffer.
    ///
    /// - Precondition: every complete line has been drained from `framer`.
    /// - Complexity: one read. - Allocations: none.
    public func read(into framer: inout LineFramer) throws(Failure) -> ReadOutcome {
        var outcome = ReadOutcome.wouldBlock
        // SAFETY: `fill` lends its free tail only for the closure, which passes it straight to `read`.
        try unsafe framer.fill { (free) throws(Failure) -> Int in
            // SAFETY: `free` is the framer's free tail, valid for this closure; `read` writes at most
            // `free.count` bytes into it and reports how many.
            outcome = try unsafe self.read(into: free)
            if case .bytes(let count) = outcome { return count }
            return 0
        }
        return outcome
    }
}
