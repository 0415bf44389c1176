import COpenSSL

/// An OpenSSL context (`SSL_CTX`) with the settings client and server share, and the ``SocketBIO``
/// method table its sessions read and write through. ``TLSContext`` (client) and `ServerTLSContext`
/// (server) each build one and add their trust store or certificate.
///
/// Owns both pointers and frees them in `deinit`; every ``TLSConnection`` made from it keeps it
/// alive, so no SSL or BIO using them is left by then. Confined to one thread. `@safe`: the pointers
/// are created and freed here and only lent to connections that hold a reference.
@safe
package final class SSLContext {
    /// `SSL_CTX*`.
    package let context: OpaquePointer
    /// The ``SocketBIO`` method table.
    let bioMethod: OpaquePointer

    /// A context for `method` (`TLS_client_method()` or `TLS_server_method()`) with the shared
    /// settings: TLS 1.2 or later; partial writes and a moving write buffer (the write queue may
    /// compact between retries); and a peer that closes without close_notify is an end of stream,
    /// not an error (`SSL_OP_IGNORE_UNEXPECTED_EOF`, the function-like macro `SSL_OP_BIT(7)`) —
    /// lines are framed, so a cut-off line is still detected.
    ///
    /// - Returns: `nil` when OpenSSL cannot allocate them; ``TLSContext/errorQueueText()`` says why.
    package init?(method: OpaquePointer) {
        // SAFETY: plain OpenSSL constructor calls; each result is checked for null before use.
        guard let context = unsafe SSL_CTX_new(method) else { return nil }
        guard let bioMethod = unsafe SocketBIO.makeMethod() else {
            // SAFETY: frees the context created above, once.
            unsafe SSL_CTX_free(context)
            return nil
        }
        unsafe self.context = context
        unsafe self.bioMethod = bioMethod
        // SAFETY: `context` is the live context created above.
        _ = unsafe SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        let mode = Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER)
        _ = unsafe SSL_CTX_ctrl(context, SSL_CTRL_MODE, mode, nil)
        _ = unsafe SSL_CTX_set_options(context, UInt64(1) << 7)
    }

    deinit {
        // SAFETY: both were created in `init` and are freed once; every connection made from this
        // context holds a reference to it, so no SSL or BIO using them is left.
        unsafe SSL_CTX_free(context)
        unsafe BIO_meth_free(bioMethod)
    }
}

@available(*, unavailable)
extension SSLContext: Sendable {}
