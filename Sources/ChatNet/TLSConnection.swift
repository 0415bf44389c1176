import COpenSSL
import Glibc
public import IRCWire

/// A TLS session over a ``TCPConnection``, client or server side: the TLS ``ByteStream``.
///
/// A client (``init(over:host:context:)``) verifies the server against the context's trust store,
/// checks the certificate against the host name (`SSL_set1_host`) or IP literal, and sends SNI for
/// names (never for IP literals). A server side (`ServerTLSContext.makeConnection(accepting:)`)
/// presents the context's certificate and asks for none. Handshake, reads and writes never block:
/// `SSL_ERROR_WANT_READ`/`WANT_WRITE` become `.wouldBlock` or a ``TLSProgress``, and ``interest``
/// tells the loop what to wait for. ``read(into:)`` and ``flush()`` drive a pending TCP connect and
/// handshake themselves, so a loop can treat TLS and plain TCP alike; calling ``handshake()`` first
/// only gives earlier, clearer errors. A clean close or EOF is `.endOfStream`; any other failure
/// throws ``TLSError/connectionFailed(peer:reason:)`` and suppresses close_notify.
///
/// Keep reading until `.wouldBlock`: OpenSSL may hold decrypted bytes the socket no longer signals.
///
/// Owns the `SSL` (and through it the BIO) and the TCP connection, which owns the descriptor.
/// Confined to its loop's thread. `@safe`: the `SSL*` is private and lives exactly as long as `self`.
@safe
public final class TLSConnection: ByteStream {
    /// Which end of the handshake this is.
    package enum Role {
        /// Checks the server's certificate against `host` (unless the context skips verification).
        case client(host: String)
        case server
    }

    public let tcp: TCPConnection
    private let role: Role
    /// Keeps the `SSL_CTX` and the BIO method alive.
    private let context: SSLContext
    private let ssl: OpaquePointer
    private var queue = WriteQueue()
    private var isHandshakeComplete = false
    /// Whether `SSL_do_handshake` ran: until then a client's loop must wake us to send the ClientHello.
    private var isHandshakeStarted = false
    /// What the last `WANT_*` asked for: the loop must wait for writability.
    private var needsWritable = false
    /// A fatal error happened: no close_notify may be sent.
    private var hasFailed = false

    /// Prepares a client session on `tcp` (connected or still connecting) for `host`.
    ///
    /// - Throws: ``TLSError/configuration(_:)`` when OpenSSL cannot create the session or accept the name.
    public convenience init(over tcp: TCPConnection, host: String, context: TLSContext) throws(TLSError) {
        try self.init(over: tcp, context: context.ssl, role: .client(host: host))
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
            let ssl = unsafe self.ssl
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

    /// Prepares a session of `role` on `tcp`, reading and writing its descriptor through a socket BIO.
    ///
    /// - Throws: ``TLSError/configuration(_:)`` when OpenSSL cannot create the session or its BIO.
    package init(over tcp: TCPConnection, context: SSLContext, role: Role) throws(TLSError) {
        self.tcp = tcp
        self.role = role
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
        switch role {
        case .client: unsafe SSL_set_connect_state(ssl)
        case .server: unsafe SSL_set_accept_state(ssl)
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

    /// The name (or IP literal) the server's certificate was checked against; `nil` on the server side.
    public var host: String? {
        if case .client(let host) = role { return host }
        return nil
    }

    public var fileDescriptor: Int32 { tcp.fileDescriptor }
    public var peer: String { tcp.peer }
    public var pendingWriteCount: Int { queue.count }

    public var interest: EventLoop.Interest {
        var wantsWritable = needsWritable || (!queue.isEmpty && isHandshakeComplete)
        // A client speaks first: wake it once the connect completes, to send its ClientHello.
        if case .client = role { wantsWritable = wantsWritable || !tcp.isConnected || !isHandshakeStarted }
        return wantsWritable ? [.readable, .writable] : .readable
    }

    /// The negotiated protocol (`TLSv1.3`), once the handshake is complete.
    public var protocolVersion: String? {
        guard isHandshakeComplete else { return nil }
        // SAFETY: `SSL_get_version` returns a static string.
        return unsafe String(cString: SSL_get_version(ssl))
    }

    // MARK: Handshake

    /// Advances the TCP connect and the handshake as far as the socket allows.
    ///
    /// - Throws: ``TLSError/untrustedCertificate(peer:code:reason:)``,
    ///   ``TLSError/nameMismatch(host:peer:reason:)`` or ``TLSError/handshakeFailed(peer:reason:)``
    ///   (a client that speaks plain text, or rejects our certificate, ends there too);
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
        let failure = unsafe SSL_get_error(ssl, result)
        if waits(after: failure) { return needsWritable ? .wantsWrite : .wantsRead }
        hasFailed = true
        throw handshakeError(failure, errno: code)
    }

    /// Whether `error` (of `SSL_get_error`) only means "not now": `WANT_READ` or `WANT_WRITE`,
    /// remembered in ``needsWritable`` for ``interest``.
    private func waits(after error: Int32) -> Bool {
        switch error {
        case SSL_ERROR_WANT_READ: needsWritable = false
        case SSL_ERROR_WANT_WRITE: needsWritable = true
        default: return false
        }
        return true
    }

    private func handshakeError(_ failure: Int32, errno code: Int32) -> TLSError {
        let closer: String
        switch role {
        case .client(let host):
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
            closer = "server"
        case .server:
            closer = "client"
        }
        switch failure {
        case SSL_ERROR_SYSCALL where code != 0:
            return .handshakeFailed(peer: peer, reason: SocketError.reason(code))
        case SSL_ERROR_SYSCALL, SSL_ERROR_ZERO_RETURN:
            let detail = TLSContext.errorQueueText()
            return .handshakeFailed(peer: peer, reason: "the \(closer) closed the connection (\(detail))")
        default:
            return .handshakeFailed(peer: peer, reason: TLSContext.errorQueueText())
        }
    }

    // MARK: Reading and writing

    /// Reads decrypted bytes into `buffer`, driving a pending connect and handshake first.
    ///
    /// - Throws: handshake errors (see ``handshake()``) and ``TLSError/connectionFailed(peer:reason:)``.
    /// - Complexity: one `SSL_read` (which reads at most one record from the socket).
    /// - Allocations: none.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> ReadOutcome {
        precondition(buffer.count > 0, "read into an empty buffer")
        guard try handshake() == .complete else { return .wouldBlock }
        ERR_clear_error()
        errno = 0
        // SAFETY: OpenSSL writes at most `buffer.count` bytes (clamped to `Int32`) into the lent buffer.
        let count = unsafe SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if count > 0 {
            needsWritable = false
            return .bytes(Int(count))
        }
        let code = errno
        // SAFETY: `ssl` is live.
        let error = unsafe SSL_get_error(ssl, count)
        if waits(after: error) { return .wouldBlock }
        // A close_notify, or (`SSL_OP_IGNORE_UNEXPECTED_EOF`) a close without one.
        if error == SSL_ERROR_ZERO_RETURN || (error == SSL_ERROR_SYSCALL && code == 0) { return .endOfStream }
        throw failure(code)
    }

    public func enqueue(_ message: OutgoingMessage) throws(SerializationError) {
        try queue.append(message)
    }

    public func enqueue(line: Span<UInt8>) {
        queue.append(line: line)
    }

    public func enqueue(raw bytes: Span<UInt8>, isSecret: Bool) {
        queue.append(raw: bytes, isSecret: isSecret)
    }

    /// Queues raw bytes (tests, or a pre-serialised line with its CR LF).
    public func enqueue(bytes: some Collection<UInt8>) {
        queue.append(contentsOf: bytes)
    }

    /// Encrypts and writes as much of the queue as the socket takes, driving a pending connect and
    /// handshake first.
    ///
    /// - Complexity: one `SSL_write` per accepted chunk. - Allocations: none.
    @discardableResult
    public func flush() throws(TLSError) -> Bool {
        guard try handshake() == .complete else { return queue.isEmpty }
        // SAFETY: the queue lends its pending bytes only for the closure, which passes them to `SSL_write`.
        return try unsafe queue.write { (pending) throws(TLSError) -> Int in
            // SAFETY: `pending` is lent by the queue for this closure; OpenSSL reads at most its count.
            try unsafe self.write(pending)
        }
    }

    /// One `SSL_write` of `pending`; returns the bytes taken (0: wait for ``interest``'s event).
    private func write(_ pending: UnsafeRawBufferPointer) throws(TLSError) -> Int {
        ERR_clear_error()
        errno = 0
        // SAFETY: OpenSSL reads at most `pending.count` bytes (clamped to `Int32`) from the lent buffer.
        let count = unsafe SSL_write(ssl, pending.baseAddress, Int32(clamping: pending.count))
        if count > 0 {
            needsWritable = false
            return Int(count)
        }
        let code = errno
        // SAFETY: `ssl` is live.
        if waits(after: unsafe SSL_get_error(ssl, count)) { return 0 }
        throw failure(code)
    }

    /// Marks the session failed and explains why: the system error when there is one, else OpenSSL's queue.
    private func failure(_ code: Int32) -> TLSError {
        hasFailed = true
        let reason = code != 0 ? SocketError.reason(code) : TLSContext.errorQueueText()
        return .connectionFailed(peer: peer, reason: reason)
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
