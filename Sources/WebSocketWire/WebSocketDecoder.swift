/// Which end of a connection decodes: a server decodes a client's frames (which must be masked), a
/// client a server's (which must not be).
public enum WebSocketRole: Sendable, Equatable {
    case client
    case server
}

/// What stopped ``WebSocketDecoder/decode(_:input:end:output:)`` before the end of its input.
public enum WebSocketEvent: Sendable, Equatable {
    /// A ping: answer with a pong carrying ``WebSocketDecoder/withControlPayload(_:)``.
    case ping
    /// A pong (to a ping of ours, or unsolicited): nothing to do.
    case pong
    /// The peer closes, with its code if it gave one (its reason is the control payload after the
    /// code). The decoder takes nothing more: answer with a close frame and close the connection.
    case close(WebSocketCloseCode?)
    /// The peer broke the protocol or a limit: send a close frame with the failure's code and close.
    /// The decoder takes nothing more.
    case failure(WebSocketFailure)
}

/// Why a peer's frames were refused, with the close code to send it.
public struct WebSocketFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: WebSocketCloseCode
    public var reason: String

    public init(code: WebSocketCloseCode, reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(reason) (close code \(code))" }
}

/// Unwraps WebSocket frames (RFC 6455 §5) in place: the payload bytes of data messages are moved
/// down over the frame headers in the same buffer, unmasked on the way, so that the buffer's front
/// holds nothing but the message bytes, ready for a ``LineFramer``-style reader; no byte is copied
/// anywhere else. Frame and message boundaries are not kept: chatcap's lines are framed by CR LF,
/// and a text or binary message that does not end in LF gets one (as IRC-over-WebSocket servers that
/// send one line per message without CR LF need; a message ending in CR LF gets nothing).
///
/// A frame may arrive in any number of pieces across calls: the decoder keeps its place (a header
/// byte by byte, a payload by its remaining length). Control frames (ping, pong, close; at most 125
/// bytes) are taken out of the stream into a fixed buffer and reported as a ``WebSocketEvent``, also
/// between the fragments of a message. Refused, with a ``WebSocketFailure`` to close with:
/// reserved bits or opcodes (1002), an unmasked frame from a client or a masked one from a server
/// (1002), a fragmented or over-long control frame (1002), a continuation without a message or a new
/// message inside a fragmented one (1002), a 64-bit length with its top bit set (1002), a close frame
/// with a 1-byte payload or a code not allowed on the wire (1002), and a message longer than
/// ``maxMessageLength`` (1009, as soon as a frame header announces it), a text message or a close
/// reason that is not UTF-8 (1007, RFC 6455 §8.1: text is checked as it is unmasked, a code point
/// split across frames or reads included, ASCII 8 bytes a step; the bytes before the first invalid
/// one are still output). Binary messages are not checked.
///
/// Pure: no I/O. Confined to one thread (the connection's loop).
@safe
public struct WebSocketDecoder {
    /// The default of ``maxMessageLength``: 1 MiB.
    public static let defaultMaxMessageLength = 1 << 20

    public let role: WebSocketRole
    /// The longest message accepted, all its fragments together.
    public let maxMessageLength: Int

    private enum Stage: Equatable {
        /// Expecting byte 0 of a header (FIN, RSV, opcode).
        case first
        /// Expecting byte 1 (MASK, short length).
        case second
        /// Expecting this many more bytes of an extended length.
        case length(Int)
        /// Expecting this many more bytes of the masking key.
        case key(Int)
        case payload
        /// After a close frame or a failure: nothing more is taken.
        case closed
    }

    private var stage = Stage.first
    private var fin = false
    private var opcode = WebSocketOpcode.continuation
    private var isExtended8 = false
    /// The frame's payload length while the header is read.
    private var length: UInt64 = 0
    /// Payload bytes of the current frame not yet taken.
    private var left: UInt64 = 0
    private var masked = false
    private var key = WebSocketMaskingKey(0, 0, 0, 0)
    /// Index of the next payload byte within its frame (for the masking key).
    private var phase = 0
    /// A text or binary message has begun and its final fragment has not come.
    public private(set) var isInsideMessage = false
    /// Payload bytes of the current message so far.
    private var messageLength = 0
    /// The last payload byte of the current message; LF while it has none.
    private var lastByte: UInt8 = 0x0A
    /// An LF is due at the output position, at the first chance that overwrites no input.
    private var owesNewline = false
    private var control = InlineArray<125, UInt8>(repeating: 0)
    private var controlCount = 0
    /// The current message is text: its payload is checked for UTF-8.
    private var isText = false
    private var utf8 = UTF8Validator()

    /// Frames taken whole so far.
    public private(set) var frameCount = 0
    /// Data messages taken whole so far.
    public private(set) var messageCount = 0
    /// Whether a close frame or a failure ended the stream.
    public var isClosed: Bool { stage == .closed }

    /// - Parameters:
    ///   - role: `.server` to decode a client's frames, `.client` to decode a server's.
    ///   - maxMessageLength: the longest message accepted (1 or more).
    public init(role: WebSocketRole, maxMessageLength: Int = WebSocketDecoder.defaultMaxMessageLength) {
        precondition(maxMessageLength > 0, "maxMessageLength must be positive")
        self.role = role
        self.maxMessageLength = maxMessageLength
    }

    /// Decodes the frame bytes in `buffer[input..<end]`, writing the payload of data messages to
    /// `buffer[output...]`, until the input is used up (returns `nil`) or a control frame or failure
    /// stops it (returns the event; call again with the same `input` and `output` to go on).
    ///
    /// `output` never passes `input` while input is left, so unread frame bytes are never
    /// overwritten; when the input is used up, one owed LF may be written at `end`.
    ///
    /// - Precondition: `0 <= output <= input <= end < buffer.count` (one spare byte past `end`).
    /// - Complexity: O(`end - input`): header bytes one at a time, payloads moved (`memmove`) and
    ///   unmasked in bulk. - Allocations: none (a ``WebSocketFailure`` builds its message).
    public mutating func decode(
        _ buffer: UnsafeMutableRawBufferPointer, input: inout Int, end: Int, output: inout Int
    ) -> WebSocketEvent? {
        precondition(0 <= output && output <= input && input <= end && end < buffer.count, "bad decode ranges")
        while true {
            if owesNewline && (output < input || input == end) {
                unsafe buffer[output] = 0x0A
                output += 1
                owesNewline = false
            }
            guard input < end else { return nil }
            switch stage {
            case .closed:
                input = end
                return nil
            case .first:
                let byte = unsafe buffer[input]
                input += 1
                if let failure = beginHeader(byte) { return failure }
            case .second:
                let byte = unsafe buffer[input]
                input += 1
                if let failure = readSecondByte(byte) { return failure }
            case .length(let remaining):
                length = length << 8 | UInt64(unsafe buffer[input])
                input += 1
                if remaining > 1 {
                    stage = .length(remaining - 1)
                } else if let failure = lengthKnown() {
                    return failure
                }
            case .key(let remaining):
                let byte = unsafe buffer[input]
                input += 1
                switch remaining {
                case 4: key.b0 = byte
                case 3: key.b1 = byte
                case 2: key.b2 = byte
                default: key.b3 = byte
                }
                if remaining > 1 {
                    stage = .key(remaining - 1)
                } else if let event = beginPayload() {
                    return event
                }
            case .payload:
                let count = Int(min(left, UInt64(end - input)))
                if opcode.isControl {
                    for j in 0..<count {
                        let byte = unsafe buffer[input + j]
                        control[controlCount] = masked ? byte ^ key.byte(phase + j) : byte
                        controlCount += 1
                    }
                } else {
                    unsafe takePayload(buffer, from: input, to: output, count: count)
                    if isText, let bad = unsafe utf8.check(buffer, start: output, count: count) {
                        output += bad
                        input = end  // closed: nothing more is taken
                        return fail(.invalidPayload, "a text message that is not UTF-8 (RFC 6455 8.1)")
                    }
                    output += count
                }
                input += count
                phase += count
                left -= UInt64(count)
                if left == 0, let event = endFrame() { return event }
            }
        }
    }

    /// Lends the payload of the last control frame (a ping's, to echo in the pong; a close's code
    /// and reason).
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func withControlPayload<R, E: Error>(_ body: (Span<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(control.span.extracting(0..<controlCount))
    }

    /// The reason text of the last close frame (after its 2-byte code), for messages.
    public var closeReason: String {
        withControlPayload { payload in
            payload.count > 2 ? String(decoding: (2..<payload.count).map { payload[$0] }, as: UTF8.self) : ""
        }
    }

    // MARK: Steps

    private mutating func beginHeader(_ byte: UInt8) -> WebSocketEvent? {
        guard byte & 0x70 == 0 else {
            return fail(.protocolError, "reserved bits set in a frame header (no extension was negotiated)")
        }
        guard let op = WebSocketOpcode(rawValue: byte & 0x0F) else {
            return fail(.protocolError, "unknown opcode \(byte & 0x0F)")
        }
        fin = byte & 0x80 != 0
        opcode = op
        if op.isControl && !fin { return fail(.protocolError, "a fragmented control frame") }
        if op == .continuation && !isInsideMessage {
            return fail(.protocolError, "a continuation frame without a message to continue")
        }
        if (op == .text || op == .binary) && isInsideMessage {
            return fail(.protocolError, "a new message began before the fragmented one ended")
        }
        stage = .second
        return nil
    }

    private mutating func readSecondByte(_ byte: UInt8) -> WebSocketEvent? {
        masked = byte & 0x80 != 0
        if role == .server && !masked {
            return fail(.protocolError, "an unmasked frame from the client (RFC 6455 5.1: a client masks every frame)")
        }
        if role == .client && masked {
            return fail(.protocolError, "a masked frame from the server (RFC 6455 5.1: a server masks none)")
        }
        length = 0
        switch byte & 0x7F {
        case 126:
            isExtended8 = false
            stage = .length(2)
        case 127:
            isExtended8 = true
            stage = .length(8)
        default:
            length = UInt64(byte & 0x7F)
            return lengthKnown()
        }
        return nil
    }

    private mutating func lengthKnown() -> WebSocketEvent? {
        if case .length = stage, isExtended8, length >> 63 != 0 {
            return fail(.protocolError, "a 64-bit payload length with its most significant bit set")
        }
        if opcode.isControl {
            if length > 125 { return fail(.protocolError, "a control frame of \(length) bytes (at most 125)") }
        } else {
            let before = opcode == .continuation ? messageLength : 0
            if length > UInt64(maxMessageLength - before) {
                return fail(
                    .messageTooBig,
                    "a message of more than \(maxMessageLength) bytes (a frame of \(length) bytes after \(before))")
            }
        }
        if masked {
            stage = .key(4)
            return nil
        }
        return beginPayload()
    }

    private mutating func beginPayload() -> WebSocketEvent? {
        left = length
        phase = 0
        if opcode.isControl {
            controlCount = 0
        } else if opcode != .continuation {
            isInsideMessage = true
            isText = opcode == .text
            utf8 = UTF8Validator()
            messageLength = 0
            lastByte = 0x0A
        }
        stage = .payload
        return left == 0 ? endFrame() : nil
    }

    /// Moves `count` payload bytes from `source` down to `destination` (memmove: they may overlap)
    /// and unmasks them there.
    private mutating func takePayload(
        _ buffer: UnsafeMutableRawBufferPointer, from source: Int, to destination: Int, count: Int
    ) {
        guard count > 0 else { return }
        if source != destination {
            // SAFETY: both ranges lie in `[0, end)` of the lent buffer (the caller's precondition and
            // `destination <= source`); `copyMemory` handles the overlap.
            unsafe (buffer.baseAddress! + destination).copyMemory(from: buffer.baseAddress! + source, byteCount: count)
        }
        if masked {
            var j = 0
            while j < count {
                unsafe buffer[destination + j] ^= key.byte(phase + j)
                j += 1
            }
        }
        lastByte = unsafe buffer[destination + count - 1]
        messageLength += count
    }

    private mutating func endFrame() -> WebSocketEvent? {
        stage = .first
        frameCount += 1
        switch opcode {
        case .ping: return .ping
        case .pong: return .pong
        case .close: return closeEvent()
        case .text, .binary, .continuation:
            guard fin else { return nil }
            if isText && !utf8.isAtBoundary {
                return fail(.invalidPayload, "a text message that ends inside a UTF-8 sequence (RFC 6455 8.1)")
            }
            isInsideMessage = false
            messageCount += 1
            if lastByte != 0x0A { owesNewline = true }
            return nil
        }
    }

    private mutating func closeEvent() -> WebSocketEvent {
        switch controlCount {
        case 0:
            stage = .closed
            return .close(nil)
        case 1:
            return fail(.protocolError, "a close frame with a 1-byte payload")
        default:
            let code = WebSocketCloseCode(rawValue: UInt16(control[0]) << 8 | UInt16(control[1]))
            guard code.isValidOnTheWire else {
                return fail(.protocolError, "close code \(code.rawValue) is not allowed on the wire")
            }
            guard UTF8Validator.isValid(control.span.extracting(2..<controlCount)) else {
                return fail(.invalidPayload, "a close reason that is not UTF-8 (RFC 6455 8.1)")
            }
            stage = .closed
            return .close(code)
        }
    }

    private mutating func fail(_ code: WebSocketCloseCode, _ reason: String) -> WebSocketEvent {
        stage = .closed
        return .failure(WebSocketFailure(code: code, reason: reason))
    }
}

@available(*, unavailable)
extension WebSocketDecoder: Sendable {}
