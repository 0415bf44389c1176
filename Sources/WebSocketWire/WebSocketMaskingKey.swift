/// The 32-bit key a client masks every frame's payload with (RFC 6455 §5.3): byte `i` of the payload
/// is XORed with byte `i % 4` of the key, counting from the frame's first payload byte.
///
/// The key must be unpredictable for each frame; the caller draws it (ChatNet uses OpenSSL's
/// `RAND_bytes`): this module does no I/O and has no randomness of its own.
public struct WebSocketMaskingKey: Sendable, Equatable {
    /// The four key bytes in wire order.
    public var b0, b1, b2, b3: UInt8

    public init(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, _ b3: UInt8) {
        (self.b0, self.b1, self.b2, self.b3) = (b0, b1, b2, b3)
    }

    /// The key from a 32-bit value, most significant byte first.
    public init(bigEndian value: UInt32) {
        self.init(
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value))
    }

    /// Key byte `index % 4`.
    @inline(__always)
    public func byte(_ index: Int) -> UInt8 {
        switch index & 3 {
        case 0: b0
        case 1: b1
        case 2: b2
        default: b3
        }
    }

    /// XORs `bytes` in place with the key, the first byte being payload byte `phase` of its frame.
    /// Masking and unmasking are the same operation.
    ///
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    public func apply(to bytes: inout [UInt8], from start: Int = 0, phase: Int = 0) {
        var i = start
        var p = phase
        while i < bytes.count {
            bytes[i] ^= byte(p)
            i += 1
            p += 1
        }
    }
}
