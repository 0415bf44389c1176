import COpenSSL
import Glibc
public import IRCWire

/// A TLS client session over a ``TCPConnection``: the TLS ``ByteStream``.
///
/// Verifies the server against the context's trust store, checks the certificate against the host
/// name (`SSL_set1_host`) or IP literal, and sends SNI for names (never for IP literals). Handshake,
/// reads and writes never block: `SSL_ERROR_WANT_READ`/`WANT_WRITE` become `.wouldBlock` or a
/// ``TLSProgress``, and ``interest`` tells the loop what to wait for. ``read(into:)`` and ``flush()``
/// drive a pending handshake themselves, so a loop can treat TLS and plain TCP alike; calling
/// ``handshake()`` first only gives earlier, clearer errors.
///
/// Keep reading until `.wouldBlock`: OpenSSL may hold decrypted bytes the socket no longer signals.
///
/// Owns the `SSL` (and through it the BIO) and the TCP connection, which owns the descriptor.
/// Confined to the ingest thread. `@safe`: the `SSL*` is private and lives exactly as long as `self`.
@safe
public final class TLSConnection: ByteStream {
    /// The name (or IP literal) the certificate was checked against.
    public let host: String
    public let tcp: TCPConnection
    private let context: TLSContext
    private let ssl: OpaquePointer
    private var queue = WriteQueue()
    private var isHandshakeComplete = false
    /// Whether `SSL_do_handshake` ran: until then the loop must wake us to send the ClientHello.
    private var isHandshakeStarted = false
    /// What the last `WANT_*` asked for: the loop must wait for writability.
    private var needsWritable = false
    /// A fatal error happened: no close_notify may be sent.
    private var hasFailed = false

    /// Prepares a client session on `tcp` (connected or still connecting) for `host`.
    ///
    /// - Throws: ``TLSError/configuration(_:)`` when OpenSSL cannot create the session or accept the name.
    public init(over tcp: TCPConnection, host: String, context: TLSContext) throws(TLSError) {
        self.host = host
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
        unsafe SSL_set_connect_state(ssl)
        let isIP = SocketAddress.isIPLiteral(host)
        if !context.configuration.insecure {
            let accepted: Bool
            if isIP {
                // SAFETY: the session's own verify parameters; the address text is copied.
                accepted = unsafe X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1
            } else {
                // SAFETY: `ssl` is live; the name is copied.
                accepted = unsafe SSL_set1_host(ssl, host) == 1
            }
            guard accepted else { throw .configuration("cannot verify against the name '\(host)'") }
        }
        if !isIP {
            // SNI. `SSL_set_tlsext_host_name` is a macro over `SSL_ctrl`; OpenSSL copies the name.
            // SAFETY: `ssl` is live; the C string is valid during the call and only read.
            let status = unsafe host.withCString { name in
                unsafe SSL_ctrl(
                    ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, Int(TLSEXT_NAMETYPE_host_name),
                    UnsafeMutableRawPointer(mutating: name))
            }
            guard status == 1 else { throw .configuration("cannot send the server name '\(host)' (SNI)") }
        }
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

    public var fileDescriptor: Int32 { tcp.fileDescriptor }
    public var peer: String { tcp.peer }
    public var hasPendingWrites: Bool { !queue.isEmpty }

    public var interest: EventLoop.Interest {
        let wantsWritable =
            !tcp.isConnected || !isHandshakeStarted || needsWritable || (!queue.isEmpty && isHandshakeComplete)
        return wantsWritable ? [.readable, .writable] : .readable
    }

    /// The negotiated protocol (`TLSv1.3`), once the handshake is complete.
    public var protocolVersion: String? {
        guard isHandshakeComplete else { return nil }
        // SAFETY: `SSL_get_version` returns a static string.
        return unsafe String(cString: SSL_get_version(ssl))
    }

    // MARK: Handshake

    /// Advances the handshake as far as the socket allows.
    ///
    /// - Throws: ``TLSError/untrustedCertificate(peer:code:reason:)``,
    ///   ``TLSError/nameMismatch(host:peer:reason:)`` or ``TLSError/handshakeFailed(peer:reason:)``;
    ///   ``TLSError/socket(_:)`` when the TCP connect failed.
    public func handshake() throws(TLSError) -> TLSProgress {
        if isHandshakeComplete { return .complete }
        if !tcp.isConnected {
            do { try tcp.finishConnect() } catch { throw .socket(error) }
            guard tcp.isConnected else { return .wantsWrite }
        }
        isHandshakeStarted = true
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
        case let failure:
            hasFailed = true
            throw handshakeError(failure, errno: code)
        }
    }

    private func handshakeError(_ failure: Int32, errno code: Int32) -> TLSError {
        // SAFETY: `ssl` is live.
        let verify = unsafe SSL_get_verify_result(ssl)
        if verify != Int(X509_V_OK) {
            // SAFETY: `X509_verify_cert_error_string` returns a static string.
            let reason = unsafe String(cString: X509_verify_cert_error_string(verify))
            _ = TLSContext.errorQueueText()  // the queue only repeats "certificate verify failed"
            if verify == Int(X509_V_ERR_HOSTNAME_MISMATCH) || verify == Int(X509_V_ERR_IP_ADDRESS_MISMATCH) {
                return .nameMismatch(host: host, peer: peer, reason: "\(reason) (X509 verify error \(verify))")
            }
            return .untrustedCertificate(peer: peer, code: verify, reason: reason)
        }
        switch failure {
        case SSL_ERROR_SYSCALL where code != 0:
            return .handshakeFailed(peer: peer, reason: "\(SocketError.systemMessage(code)) (errno \(code))")
        case SSL_ERROR_SYSCALL, SSL_ERROR_ZERO_RETURN:
            let detail = TLSContext.errorQueueText()
            return .handshakeFailed(peer: peer, reason: "the server closed the connection (\(detail))")
        default:
            return .handshakeFailed(peer: peer, reason: TLSContext.errorQueueText())
        }
    }

    // MARK: Reading and writing

    /// Reads decrypted bytes into `buffer`, driving a pending handshake first.
    ///
    /// - Throws: handshake errors (see ``handshake()``) and ``TLSError/connectionFailed(peer:reason:)``.
    /// - Complexity: one `SSL_read` (which reads at most one record from the socket).
    /// - Allocations: none.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> ReadOutcome {
        precondition(buffer.count > 0, "read into an empty buffer")
        if !isHandshakeComplete {
            guard try handshake() == .complete else { return .wouldBlock }
        }
        return try unsafe TLSRecordIO.read(
            ssl, into: buffer, peer: peer, needsWritable: &needsWritable, hasFailed: &hasFailed)
    }

    public func enqueue(_ message: OutgoingMessage) throws(SerializationError) {
        try queue.append(message)
    }

    /// Queues raw bytes (tests, or a pre-serialised line with its CR LF).
    public func enqueue(bytes: some Collection<UInt8>) {
        queue.append(contentsOf: bytes)
    }

    /// Encrypts and writes as much of the queue as the socket takes, driving a pending handshake first.
    ///
    /// - Complexity: one `SSL_write` per accepted chunk. - Allocations: none.
    @discardableResult
    public func flush() throws(TLSError) -> Bool {
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
extension TLSConnection: Sendable {}

/// Where a non-blocking TLS handshake stands.
public enum TLSProgress: Sendable, Equatable {
    case complete
    /// Call ``TLSConnection/handshake()`` again when the socket is readable.
    case wantsRead
    /// Call ``TLSConnection/handshake()`` again when the socket is writable.
    case wantsWrite
}
