/// Why a TLS connection could not be set up or failed, with a message a person can act on.
public enum TLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The TCP layer failed (connect, read, write).
    case socket(SocketError)
    /// The context could not be built (e.g. an unreadable CA file).
    case configuration(String)
    /// The server's certificate chain is not trusted: `code` and `reason` are OpenSSL's verify
    /// result and its text (`X509_verify_cert_error_string`).
    case untrustedCertificate(peer: String, code: Int, reason: String)
    /// The certificate is trusted but not issued for the name (or IP) we connected to.
    case nameMismatch(host: String, peer: String, reason: String)
    /// The handshake failed for another reason (protocol, cipher, the server hung up).
    case handshakeFailed(peer: String, reason: String)
    /// An established connection failed (a TLS alert, a corrupt record, a reset).
    case connectionFailed(peer: String, reason: String)
    /// Connect plus handshake did not finish in time.
    case timedOut(peer: String, afterMs: Int64)

    /// Whether the server's certificate failed verification (untrusted, or issued for another name):
    /// a problem of configuration or of the server, which retrying does not fix.
    public var isCertificateRejection: Bool {
        switch self {
        case .untrustedCertificate, .nameMismatch: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .socket(let error):
            return error.description
        case .configuration(let message):
            return "TLS setup failed: \(message)"
        case .untrustedCertificate(let peer, let code, let reason):
            return "TLS handshake with \(peer) failed: the server's certificate is not trusted: \(reason) "
                + "(X509 verify error \(code)). Use a CA file that holds the issuing CA, or skip verification "
                + "only for testing."
        case .nameMismatch(let host, let peer, let reason):
            return "TLS handshake with \(peer) failed: the server's certificate does not match the name "
                + "'\(host)': \(reason). Connect with the name the certificate was issued for."
        case .handshakeFailed(let peer, let reason):
            return "TLS handshake with \(peer) failed: \(reason)"
        case .connectionFailed(let peer, let reason):
            return "TLS connection to \(peer) failed: \(reason)"
        case .timedOut(let peer, let afterMs):
            return "TLS connection to \(peer) timed out: no completed handshake within \(afterMs) ms"
        }
    }
}
