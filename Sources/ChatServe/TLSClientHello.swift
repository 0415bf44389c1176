import Glibc

/// Recognises a TLS client on a plain IRC port: a client started without `--plain` opens with a TLS
/// record (content type 22, handshake; version major 3), which no IRC line begins with (byte 0x16 is
/// a control character). Serve then answers with a TLS alert, so the client's TLS library fails at
/// once and says why, instead of waiting for its handshake to time out.
enum TLSClientHello {
    /// A fatal `handshake_failure` alert record (TLS 1.0 record version, accepted by every release).
    static let alert: [UInt8] = [0x15, 0x03, 0x01, 0x00, 0x02, 0x02, 0x28]

    /// Whether `prefix` (the first bytes a client sent) opens a TLS handshake record.
    ///
    /// - Complexity: O(1). - Allocations: none.
    static func starts(_ prefix: some Collection<UInt8>) -> Bool {
        var bytes = prefix.makeIterator()
        return bytes.next() == 0x16 && bytes.next() == 0x03
    }

    /// Looks at the first bytes waiting on `descriptor` without taking them (`MSG_PEEK`): `true` for a
    /// TLS handshake, `false` for anything else, `nil` while fewer than two bytes have arrived.
    ///
    /// - Complexity: one `recv`. - Allocations: none.
    static func waiting(on descriptor: Int32) -> Bool? {
        var head: (UInt8, UInt8) = (0, 0)
        let count = unsafe withUnsafeMutableBytes(of: &head) { raw in
            // SAFETY: `raw` is the two bytes of a local tuple, valid for the call.
            unsafe recv(descriptor, raw.baseAddress, 2, Int32(MSG_PEEK | MSG_DONTWAIT))
        }
        guard count == 2 else { return count == 1 && head.0 != 0x16 ? false : nil }
        return starts([head.0, head.1])
    }

    /// Sends ``alert`` on `descriptor` as it is (no queue: the connection is closed right after).
    static func refuse(_ descriptor: Int32) {
        _ = unsafe alert.withUnsafeBytes { raw in
            // SAFETY: `raw` is the alert's bytes, valid for the call.
            unsafe send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
        }
    }
}
