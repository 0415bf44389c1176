import COpenSSL
import Glibc

/// An OpenSSL server context: TLS 1.2 or later, the certificate chain and private key from PEM files,
/// and the socket BIO method. Built once per server and shared by every accepted connection.
///
/// Owns the `SSL_CTX` and the BIO method table; connections keep their context alive.
/// Confined to the server's loop thread. `@safe`: the OpenSSL pointers are private, created and freed
/// here, and only lent to ``ServerTLSConnection``, which keeps the context alive.
@safe
final class ServerTLSContext {
    /// `SSL_CTX*`.
    let context: OpaquePointer
    /// The ``SocketBIO`` method table.
    let bioMethod: OpaquePointer

    /// Loads `files` and checks that the key belongs to the certificate.
    ///
    /// - Throws: ``ServeError/tls(_:)`` naming the file and the reason: unreadable (`errno`), not
    ///   PEM / not a certificate or key (OpenSSL's reason), or a key that does not match.
    init(_ files: ServeTLSFiles) throws(ServeError) {
        for (what, path) in [("certificate", files.certificate), ("private key", files.key)] {
            // SAFETY: `path` is bridged to a NUL-terminated C string for the call.
            guard unsafe access(path, R_OK) == 0 else {
                throw .tls("cannot read the \(what) file '\(path)': \(SocketError.systemMessage(errno))")
            }
        }
        // SAFETY: plain OpenSSL constructor calls; each result is checked for null before use.
        guard let context = unsafe SSL_CTX_new(TLS_server_method()) else {
            throw .tls("cannot create an OpenSSL context: \(TLSContext.errorQueueText())")
        }
        guard let method = unsafe SocketBIO.makeMethod() else {
            // SAFETY: frees the context created above, once.
            unsafe SSL_CTX_free(context)
            throw .tls("cannot create the socket BIO method: \(TLSContext.errorQueueText())")
        }
        unsafe self.context = context
        unsafe bioMethod = method
        // From here on `deinit` frees both, also when a check below throws.
        // SAFETY (all calls below): `context` is the live context created above; paths are bridged
        // to NUL-terminated C strings for each call and copied by OpenSSL as needed.
        unsafe TLSContext.applyCommonOptions(context)
        guard unsafe SSL_CTX_use_certificate_chain_file(context, files.certificate) == 1 else {
            throw .tls("cannot load the certificate '\(files.certificate)': \(TLSContext.errorQueueText())")
        }
        // OpenSSL checks that the key matches the certificate while loading it ("key values mismatch").
        let mismatch =
            "the private key '\(files.key)' does not belong to the certificate '\(files.certificate)'"
        guard unsafe SSL_CTX_use_PrivateKey_file(context, files.key, SSL_FILETYPE_PEM) == 1 else {
            let reason = TLSContext.errorQueueText()
            if reason.contains("mismatch") { throw .tls("\(mismatch) (\(reason))") }
            throw .tls("cannot load the private key '\(files.key)': \(reason)")
        }
        guard unsafe SSL_CTX_check_private_key(context) == 1 else {
            throw .tls("\(mismatch) (\(TLSContext.errorQueueText()))")
        }
    }

    deinit {
        // SAFETY: both were created in `init` and are freed once; every connection made from this
        // context holds a reference to it, so no SSL or BIO using them is left.
        unsafe SSL_CTX_free(context)
        unsafe BIO_meth_free(bioMethod)
    }
}

@available(*, unavailable)
extension ServerTLSContext: Sendable {}
