import COpenSSL
public import WebSocketWire

/// The cryptography of the WebSocket handshake and masking, from the system OpenSSL: SHA-1 and base64
/// for `Sec-WebSocket-Accept`, and `RAND_bytes` for the client's key and masking keys (RFC 6455
/// requires both to be unpredictable). No hand-written crypto.
public enum WebSocketKeys: Sendable {
    /// `Sec-WebSocket-Accept` for `key`: base64(SHA-1(key + the RFC's GUID)).
    ///
    /// - Complexity: O(`key.count`). - Allocations: the result.
    public static func accept(forKey key: String) -> String {
        let source = Array(WebSocketHandshake.acceptSource(forKey: key).utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // SAFETY: `source` and `digest` are valid for their counts during the call; OpenSSL writes at
        // most EVP_MAX_MD_SIZE bytes and reports how many.
        let ok = unsafe EVP_Digest(source, source.count, &digest, &length, EVP_sha1(), nil)
        precondition(ok == 1 && length == 20, "OpenSSL's SHA-1 failed")
        return base64(Array(digest[..<20]))
    }

    /// A new `Sec-WebSocket-Key`: 16 random bytes in base64.
    public static func newKey() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        fillRandom(&bytes)
        return base64(bytes)
    }

    /// A new masking key for one client frame.
    ///
    /// - Allocations: none.
    public static func newMaskingKey() -> WebSocketMaskingKey {
        var value: UInt32 = 0
        // SAFETY: OpenSSL writes exactly 4 bytes into the local value.
        let ok = unsafe withUnsafeMutableBytes(of: &value) { unsafe RAND_bytes($0.baseAddress, 4) }
        precondition(ok == 1, "OpenSSL's RAND_bytes failed")
        return WebSocketMaskingKey(bigEndian: value)
    }

    /// `bytes` in base64 (`EVP_EncodeBlock`: standard alphabet, padded, no newlines).
    static func base64(_ bytes: [UInt8]) -> String {
        var out = [UInt8](repeating: 0, count: (bytes.count + 2) / 3 * 4 + 1)
        // SAFETY: `out` holds the encoded length plus the NUL OpenSSL writes; `bytes` is read for its count.
        let count = unsafe EVP_EncodeBlock(&out, bytes, Int32(bytes.count))
        return String(decoding: out[..<Int(count)], as: UTF8.self)
    }

    private static func fillRandom(_ bytes: inout [UInt8]) {
        // SAFETY: OpenSSL writes exactly `bytes.count` bytes into the array's storage.
        let ok = unsafe RAND_bytes(&bytes, Int32(bytes.count))
        precondition(ok == 1, "OpenSSL's RAND_bytes failed")
    }
}
