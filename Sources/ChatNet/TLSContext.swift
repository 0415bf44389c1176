import COpenSSL

/// An OpenSSL client context built from a ``TLSConfiguration``: the shared ``SSLContext`` settings
/// (TLS 1.2 or later, the socket BIO method) and the trust store. Build one per process and reuse it
/// for every connection and reconnect.
///
/// Connections keep its ``SSLContext`` alive. Confined to the ingest thread.
public final class TLSContext {
    public let configuration: TLSConfiguration
    /// The `SSL_CTX` and BIO method every connection is made from.
    let ssl: SSLContext

    /// - Throws: ``TLSError/configuration(_:)`` when OpenSSL cannot build the context or load the CA file.
    public init(_ configuration: TLSConfiguration = .default) throws(TLSError) {
        self.configuration = configuration
        // SAFETY: `TLS_client_method` returns OpenSSL's static method table.
        guard let ssl = unsafe SSLContext(method: TLS_client_method()) else {
            throw .configuration("cannot create an OpenSSL context: \(TLSContext.errorQueueText())")
        }
        self.ssl = ssl
        let context = unsafe ssl.context
        if configuration.insecure {
            // SAFETY: `context` is live (held by `ssl`); no verify callback.
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

    /// Empties OpenSSL's thread-local error queue into one line (`reason; reason`).
    package static func errorQueueText() -> String {
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
