import COpenSSL
import Glibc
import IRCWire

/// The server side of a TLS session over an accepted ``TCPConnection``.
///
/// The mirror of the client ``TLSConnection``: `SSL_accept` semantics through a non-blocking
/// `SSL_do_handshake`, driven by ``read(into:)`` and ``flush()`` as the descriptor becomes ready;
/// `SSL_ERROR_WANT_READ`/`WANT_WRITE` become `.wouldBlock`, and ``interest`` says what to wait for.
/// No client certificate is asked for.
///
/// Keep reading until `.wouldBlock`: OpenSSL may hold decrypted bytes the socket no longer signals.
///
/// Owns the `SSL` (and through it the BIO) and the TCP connection, which owns the descriptor.
/// Confined to the server's loop thread. `@safe`: the `SSL*` is private and lives exactly as long as
/// `self`.
@safe
final class ServerTLSConnection: ByteStream {
    let tcp: TCPConnection
    private let context: ServerTLSContext
    private let ssl: OpaquePointer
    private var queue = WriteQueue()
    private(set) var isHandshakeComplete = false
    /// What the last `WANT_*` asked for: the loop must wait for writability.
    private var needsWritable = false
    /// A fatal error happened: no close_notify may be sent.
    private var hasFailed = false

    /// Prepares a server session on the accepted `tcp`.
    ///
    /// - Throws: ``TLSError/configuration(_:)`` when OpenSSL cannot create the session or its BIO.
    init(over tcp: TCPConnection, context: ServerTLSContext) throws(TLSError) {
        self.tcp = tcp
        self.context = context
        // SAFETY: `context.context` is a live SSL_CTX; the result is checked for null.
        guard let ssl = unsafe SSL_new(context.context) else {
            throw .configuration("cannot create a TLS session: \(TLSContext.errorQueueText())")
        }
        unsafe self.ssl = ssl
        // SAFETY: `context.bioMethod` is live while `context` is (held above); `SSL_set_bio` takes
        // the BIO's one reference for both directions, and `SSL_free` in `deinit` releases it.
        guard let bio = unsafe SocketBIO.make(method: context.bioMethod, descriptor: tcp.fileDescriptor) else {
            throw .configuration("cannot create the socket BIO: \(TLSContext.errorQueueText())")
        }
        unsafe SSL_set_bio(ssl, bio, bio)
        unsafe SSL_set_accept_state(ssl)
    }

    deinit {
        if isHandshakeComplete && !hasFailed {
            // Best effort close_notify; a full socket just drops it.
            // SAFETY: `ssl` is live until the free below.
            _ = unsafe SSL_shutdown(ssl)
        }
        // SAFETY: frees the session and its BIO once; the descriptor stays with `tcp`.
        unsafe SSL_free(ssl)
    }

    var fileDescriptor: Int32 { tcp.fileDescriptor }
    var peer: String { tcp.peer }
    var hasPendingWrites: Bool { !queue.isEmpty }
    /// Bytes queued but not yet encrypted and written.
    var pendingWriteCount: Int { queue.count }

    var interest: EventLoop.Interest {
        needsWritable || (!queue.isEmpty && isHandshakeComplete) ? [.readable, .writable] : .readable
    }

    /// Advances the handshake as far as the socket allows.
    ///
    /// - Throws: ``TLSError/handshakeFailed(peer:reason:)`` (a client that speaks plain text, or
    ///   rejects our certificate, ends here).
    func handshake() throws(TLSError) -> TLSProgress {
        if isHandshakeComplete { return .complete }
        ERR_clear_error()
        errno = 0
        // SAFETY: `ssl` is live.
        let result = unsafe SSL_do_handshake(ssl)
        if result == 1 {
            isHandshakeComplete = true
            needsWritable = false
            return .complete
        }
        let code = errno
        // SAFETY: `ssl` is live.
        switch unsafe SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            needsWritable = false
            return .wantsRead
        case SSL_ERROR_WANT_WRITE:
            needsWritable = true
            return .wantsWrite
        case SSL_ERROR_SYSCALL where code != 0:
            hasFailed = true
            throw .handshakeFailed(peer: peer, reason: "\(SocketError.systemMessage(code)) (errno \(code))")
        case SSL_ERROR_SYSCALL, SSL_ERROR_ZERO_RETURN:
            hasFailed = true
            throw .handshakeFailed(
                peer: peer, reason: "the client closed the connection (\(TLSContext.errorQueueText()))")
        default:
            hasFailed = true
            throw .handshakeFailed(peer: peer, reason: TLSContext.errorQueueText())
        }
    }

    /// Reads decrypted bytes into `buffer`, driving a pending handshake first.
    ///
    /// - Complexity: one `SSL_read` (at most one record from the socket). - Allocations: none.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> ReadOutcome {
        precondition(buffer.count > 0, "read into an empty buffer")
        if !isHandshakeComplete {
            guard try handshake() == .complete else { return .wouldBlock }
        }
        return try unsafe TLSRecordIO.read(
            ssl, into: buffer, peer: peer, needsWritable: &needsWritable, hasFailed: &hasFailed)
    }

    func enqueue(_ message: OutgoingMessage) throws(SerializationError) {
        try queue.append(message)
    }

    /// Queues raw bytes (a pre-serialised line with its CR LF).
    ///
    /// - Complexity: amortised O(`bytes.count`). - Allocations: only when the queue grows.
    func enqueue(bytes: some Collection<UInt8>) {
        queue.append(contentsOf: bytes)
    }

    /// Encrypts and writes as much of the queue as the socket takes, driving a pending handshake first.
    ///
    /// - Complexity: one `SSL_write` per accepted chunk. - Allocations: none.
    @discardableResult
    func flush() throws(TLSError) -> Bool {
        if !isHandshakeComplete {
            guard try handshake() == .complete else { return queue.isEmpty }
        }
        while !queue.isEmpty {
            // SAFETY: the queue lends its pending bytes only for the closure, which passes them to `SSL_write`.
            let written = try unsafe queue.drain { (pending) throws(TLSError) -> Int in
                // SAFETY: `pending` is lent by the queue for this closure; OpenSSL reads at most its count.
                try unsafe self.write(pending)
            }
            if written == 0 { return false }
        }
        return true
    }

    private func write(_ pending: UnsafeRawBufferPointer) throws(TLSError) -> Int {
        try unsafe TLSRecordIO.write(ssl, pending, peer: peer, needsWritable: &needsWritable, hasFailed: &hasFailed)
    }
}

@available(*, unavailable)
extension ServerTLSConnection: Sendable {}
