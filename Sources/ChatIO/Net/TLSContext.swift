import COpenSSL

/// An OpenSSL client context built from a ``TLSConfiguration``: TLS 1.2 or later, the trust store,
/// and the socket BIO method. Build one per process and reuse it for every connection and reconnect.
///
/// Owns the `SSL_CTX` and the BIO method table; connections keep their context alive.
/// Confined to the ingest thread. `@safe`: the OpenSSL pointers are private, created and freed
/// here, and only lent to ``TLSConnection``, which keeps the context alive.
@safe
public final class TLSContext {
    public let configuration: TLSConfiguration
    /// `SSL_CTX*`.
    let context: OpaquePointer
    /// The ``SocketBIO`` method table.
    let bioMethod: OpaquePointer

    /// - Throws: ``TLSError/configuration(_:)`` when OpenSSL cannot build the context or load the CA file.
    public init(_ configuration: TLSConfiguration = .default) throws(TLSError) {
        self.configuration = configuration
        // SAFETY: plain OpenSSL constructor calls; each result is checked for null before use.
        guard let context = unsafe SSL_CTX_new(TLS_client_method()) else {
            throw .configuration("cannot create an OpenSSL context: \(TLSContext.errorQueueText())")
        }
        guard let method = unsafe SocketBIO.makeMethod() else {
            // SAFETY: frees the context created above, once.
            unsafe SSL_CTX_free(context)
            throw .configuration("cannot create the socket BIO method: \(TLSContext.errorQueueText())")
        }
        unsafe self.context = context
        unsafe bioMethod = method
        unsafe Self.applyCommonOptions(context)
        if configuration.insecure {
            // SAFETY: `context` is live; no verify callback.
            unsafe SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
            return
        }
        // SAFETY: `context` is live; no verify callback (OpenSSL's own chain and name checks decide).
        unsafe SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        if let caFile = configuration.caFile {
            // SAFETY: `context` is live; the path is passed as a NUL-terminated C string for the call.
            guard unsafe SSL_CTX_load_verify_file(context, caFile) == 1 else {
                throw .configuration("cannot load CA file '\(caFile)': \(TLSContext.errorQueueText())")
            }
        } else {
            // SAFETY: `context` is live.
            guard unsafe SSL_CTX_set_default_verify_paths(context) == 1 else {
                throw .configuration("cannot load the system CA store: \(TLSContext.errorQueueText())")
            }
        }
    }

    deinit {
        // SAFETY: both were created in `init` and are freed once; every connection made from this
        // context holds a reference to it, so no SSL or BIO using them is left.
        unsafe SSL_CTX_free(context)
        unsafe BIO_meth_free(bioMethod)
    }

    /// The settings client and server contexts share: TLS 1.2 or later; partial writes and a moving
    /// write buffer (the write queue may compact between retries); and a peer that closes without
    /// close_notify is an end of stream, not an error (`SSL_OP_IGNORE_UNEXPECTED_EOF`, the
    /// function-like macro `SSL_OP_BIT(7)`) — lines are framed, so a cut-off line is still detected.
    @unsafe
    static func applyCommonOptions(_ context: OpaquePointer) {
        // SAFETY: the caller passes a live context.
        _ = unsafe SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        let mode = Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER)
        _ = unsafe SSL_CTX_ctrl(context, SSL_CTRL_MODE, mode, nil)
        _ = unsafe SSL_CTX_set_options(context, UInt64(1) << 7)
    }

    /// Empties OpenSSL's thread-local error queue into one line (`reason; reason`).
    static func errorQueueText() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            // SAFETY: `ERR_reason_error_string` returns a static string or null; the fallback buffer
            // has room for the 256 bytes `ERR_error_string_n` may write, NUL included.
            if let reason = unsafe ERR_reason_error_string(code) {
                reasons.append(unsafe String(cString: reason))
            } else {
                var buffer = [CChar](repeating: 0, count: 256)
                unsafe ERR_error_string_n(code, &buffer, buffer.count)
                reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        }
        return reasons.isEmpty ? "no further detail from OpenSSL" : reasons.joined(separator: "; ")
    }
}

@available(*, unavailable)
extension TLSContext: Sendable {}
