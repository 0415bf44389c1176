public import IRCWire

/// A connected, non-blocking byte stream to a chat server: plain TCP (``TCPConnection``) or TLS
/// (``TLSConnection``). The ingest loop drives either the same way.
///
/// Reading: call ``read(into:)`` (or ``read(into:)-(LineFramer)``) whenever the descriptor is
/// readable **until it returns `.wouldBlock`**: a TLS stream may hold decrypted bytes that the socket
/// no longer signals. Writing: ``enqueue(_:)`` lines, then ``flush()`` now and whenever the
/// descriptor is writable; ``interest`` says what to wait for next.
///
/// Conformers are confined to the ingest thread and are not `Sendable`.
public protocol ByteStream: AnyObject {
    associatedtype Failure: Error

    /// The socket, for ``EventLoop`` registration.
    var fileDescriptor: Int32 { get }

    /// What to wait for next: always `.readable`, plus `.writable` while bytes wait to be written or
    /// the TLS engine needs to write before it can read.
    var interest: EventLoop.Interest { get }

    /// Whether lines are queued but not yet written.
    var hasPendingWrites: Bool { get }

    /// Reads what is available into `buffer` without blocking.
    ///
    /// - Precondition: `buffer.count > 0`.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(Failure) -> ReadOutcome

    /// Queues `message` and its CR LF for writing. Nothing is written until ``flush()``.
    func enqueue(_ message: OutgoingMessage) throws(SerializationError)

    /// Writes as much of the queue as the socket takes now.
    ///
    /// - Returns: `true` when the queue is empty.
    @discardableResult
    func flush() throws(Failure) -> Bool
}

extension ByteStream {
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
