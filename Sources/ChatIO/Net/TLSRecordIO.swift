import COpenSSL
import Glibc

/// Non-blocking `SSL_read`/`SSL_write` with OpenSSL's error mapping, shared by the client
/// (``TLSConnection``) and server (`ServerTLSConnection`) sessions, which differ only in their
/// handshakes.
///
/// `SSL_ERROR_WANT_READ`/`WANT_WRITE` become "would block" and set `needsWritable` (what the loop
/// must wait for next); a clean close or EOF becomes `.endOfStream`; anything else sets `hasFailed`
/// and throws ``TLSError/connectionFailed(peer:reason:)``.
enum TLSRecordIO {
    /// One `SSL_read` into `buffer`.
    ///
    /// - Precondition: the handshake is complete and `buffer.count > 0`.
    /// - Complexity: one `SSL_read` (at most one record from the socket). - Allocations: none.
    static func read(
        _ ssl: OpaquePointer, into buffer: UnsafeMutableRawBufferPointer, peer: String, needsWritable: inout Bool,
        hasFailed: inout Bool
    ) throws(TLSError) -> ReadOutcome {
        ERR_clear_error()
        errno = 0
        // SAFETY: OpenSSL writes at most `buffer.count` bytes (clamped to `Int32`) into the lent buffer.
        let count = unsafe SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if count > 0 {
            needsWritable = false
            return .bytes(Int(count))
        }
        let code = errno
        // SAFETY: `ssl` is live (owned by the caller).
        switch unsafe SSL_get_error(ssl, count) {
        case SSL_ERROR_WANT_READ:
            needsWritable = false
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            needsWritable = true
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .endOfStream
        case SSL_ERROR_SYSCALL where code == 0:
            return .endOfStream
        default:
            hasFailed = true
            throw failure(code, peer: peer)
        }
    }

    /// One `SSL_write` of `pending`; returns the bytes taken (0: wait for ``needsWritable``'s event).
    ///
    /// - Precondition: the handshake is complete.
    /// - Complexity: one `SSL_write`. - Allocations: none.
    static func write(
        _ ssl: OpaquePointer, _ pending: UnsafeRawBufferPointer, peer: String, needsWritable: inout Bool,
        hasFailed: inout Bool
    ) throws(TLSError) -> Int {
        ERR_clear_error()
        errno = 0
        // SAFETY: OpenSSL reads at most `pending.count` bytes (clamped to `Int32`) from the lent buffer.
        let count = unsafe SSL_write(ssl, pending.baseAddress, Int32(clamping: pending.count))
        if count > 0 {
            needsWritable = false
            return Int(count)
        }
        let code = errno
        // SAFETY: `ssl` is live (owned by the caller).
        switch unsafe SSL_get_error(ssl, count) {
        case SSL_ERROR_WANT_WRITE:
            needsWritable = true
            return 0
        case SSL_ERROR_WANT_READ:
            needsWritable = false
            return 0
        default:
            hasFailed = true
            throw failure(code, peer: peer)
        }
    }

    /// The error for a failed read or write: the system error when there is one, else OpenSSL's queue.
    private static func failure(_ code: Int32, peer: String) -> TLSError {
        if code != 0 {
            return .connectionFailed(peer: peer, reason: "\(SocketError.systemMessage(code)) (errno \(code))")
        }
        return .connectionFailed(peer: peer, reason: TLSContext.errorQueueText())
    }
}
