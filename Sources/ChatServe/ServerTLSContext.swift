import COpenSSL
import ChatNet
import ChatPosix
import Glibc

/// An OpenSSL server context: the shared ``SSLContext`` settings (TLS 1.2 or later, the socket BIO
/// method) and the certificate chain and private key from PEM files. Built once per server and shared
/// by every accepted connection.
///
/// Connections keep its ``SSLContext`` alive. Confined to the server's loop thread.
final class ServerTLSContext {
    /// The `SSL_CTX` and BIO method every accepted connection is made from.
    let ssl: SSLContext

    /// Loads `files` and checks that the key belongs to the certificate.
    ///
    /// - Throws: ``ServeError/tls(_:)`` naming the file and the reason: unreadable (`errno`), not
    ///   PEM / not a certificate or key (OpenSSL's reason), or a key that does not match.
    init(_ files: ServeTLSFiles) throws(ServeError) {
        for (what, path) in [("certificate", files.certificate), ("private key", files.key)] {
            // SAFETY: `path` is bridged to a NUL-terminated C string for the call.
            guard unsafe access(path, R_OK) == 0 else {
                throw .tls("cannot read the \(what) file '\(path)': \(Errno.text(errno))")
            }
        }
        // SAFETY: `TLS_server_method` returns OpenSSL's static method table.
        guard let ssl = unsafe SSLContext(method: TLS_server_method()) else {
            throw .tls("cannot create an OpenSSL context: \(TLSContext.errorQueueText())")
        }
        self.ssl = ssl
        let context = unsafe ssl.context
        // SAFETY (all calls below): `context` is live (held by `ssl`); paths are bridged to
        // NUL-terminated C strings for each call and copied by OpenSSL as needed.
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

    /// The server side of a TLS session over the accepted `tcp`: `SSL_accept` semantics through the
    /// non-blocking handshake that ``TLSConnection/read(into:)`` and ``TLSConnection/flush()`` drive.
    /// No client certificate is asked for.
    ///
    /// - Throws: ``TLSError/configuration(_:)`` when OpenSSL cannot create the session or its BIO.
    func makeConnection(accepting tcp: TCPConnection) throws(TLSError) -> TLSConnection {
        try TLSConnection(over: tcp, context: ssl, role: .server)
    }
}

@available(*, unavailable)
extension ServerTLSContext: Sendable {}
