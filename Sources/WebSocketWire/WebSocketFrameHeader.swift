/// The header of one outgoing frame (RFC 6455 §5.2), 2 to 14 bytes, built on the stack:
///
/// ```
///  byte 0: FIN, RSV1-3 (0), opcode      byte 1: MASK, length 0-125 | 126 | 127
///  then a 16-bit (126) or 64-bit (127) length, big-endian; then the 4-byte masking key if MASK
/// ```
/// The length always takes the fewest bytes it fits in, as the RFC requires.
public struct WebSocketFrameHeader: Sendable {
    private var storage: InlineArray<14, UInt8> = .init(repeating: 0)
    /// How many bytes of the header are used.
    public private(set) var count = 0

    /// The header of a frame of `opcode` carrying `payloadLength` bytes, masked with `maskingKey`
    /// (clients mask every frame, servers none).
    ///
    /// - Precondition: `payloadLength >= 0`; at most 125 for a control frame, which is never fragmented.
    /// - Complexity: O(1). - Allocations: none.
    public init(fin: Bool = true, opcode: WebSocketOpcode, payloadLength: Int, maskingKey: WebSocketMaskingKey? = nil) {
        precondition(payloadLength >= 0, "negative payload length")
        precondition(!opcode.isControl || (fin && payloadLength <= 125), "a control frame is whole and short")
        append((fin ? 0x80 : 0) | opcode.rawValue)
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        if payloadLength <= 125 {
            append(maskBit | UInt8(payloadLength))
        } else if payloadLength <= Int(UInt16.max) {
            append(maskBit | 126)
            append(UInt8(payloadLength >> 8))
            append(UInt8(truncatingIfNeeded: payloadLength))
        } else {
            append(maskBit | 127)
            let length = UInt64(payloadLength)
            for shift in stride(from: 56, through: 0, by: -8) {
                append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
            }
        }
        if let key = maskingKey {
            append(key.b0)
            append(key.b1)
            append(key.b2)
            append(key.b3)
        }
    }

    private mutating func append(_ byte: UInt8) {
        storage[count] = byte
        count += 1
    }

    /// Lends the header's bytes to `body`.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func withBytes<R, E: Error>(_ body: (Span<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(storage.span.extracting(0..<count))
    }

    /// The header's bytes as an array (tests, the control path).
    public var bytes: [UInt8] { withBytes { span in (0..<span.count).map { span[$0] } } }
}

/// Whole frames for the control path: close, ping and pong frames, and the few lines a client sends.
public enum WebSocketFrame: Sendable {
    /// Appends one complete frame of `opcode` carrying `payload`, masked with `maskingKey` when given.
    ///
    /// - Complexity: O(`payload.count`). - Allocations: only when `out` grows.
    public static func append(
        opcode: WebSocketOpcode, payload: Span<UInt8>, maskingKey: WebSocketMaskingKey? = nil, fin: Bool = true,
        to out: inout [UInt8]
    ) {
        let header = WebSocketFrameHeader(
            fin: fin, opcode: opcode, payloadLength: payload.count, maskingKey: maskingKey)
        header.withBytes { bytes in
            for i in 0..<bytes.count { out.append(bytes[i]) }
        }
        let start = out.count
        for i in 0..<payload.count { out.append(payload[i]) }
        if let maskingKey { maskingKey.apply(to: &out, from: start) }
    }

    /// The payload of a close frame: the code, big-endian, then the reason cut to fit 125 bytes in all
    /// (never inside a UTF-8 sequence).
    public static func closePayload(_ code: WebSocketCloseCode, reason: String) -> [UInt8] {
        var payload: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)]
        var text = Array(reason.utf8.prefix(123))
        // Drop a cut UTF-8 sequence: continuation bytes at the end, then the lead byte they followed.
        if reason.utf8.count > 123 {
            var lead = text.count - 1
            while lead > 0 && text[lead] & 0xC0 == 0x80 { lead -= 1 }
            let needed = text[lead] >= 0xF0 ? 4 : text[lead] >= 0xE0 ? 3 : text[lead] >= 0xC0 ? 2 : 1
            if text.count - lead < needed { text.removeSubrange(lead...) }
        }
        payload += text
        return payload
    }
}
