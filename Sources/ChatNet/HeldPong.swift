import WebSocketWire

/// The pong a ``WebSocketStream`` owes while its queue below is not empty: the payload of the latest
/// ping (held, at most 125 bytes) and the bytes of the pongs it replaced — RFC 6455 §5.5.3 lets one
/// pong answer every ping before it. A peer that pings without reading makes ``owedBytes`` grow, not
/// the queue; the stream counts ``byteCount`` as queued, so its owner's queue bound closes that peer.
///
/// A value inside its stream; confined to the stream's thread.
struct HeldPong {
    private var payload = InlineArray<125, UInt8>(repeating: 0)
    /// How many bytes of ``payload`` are the held ping's; `nil` when none is held.
    private var count: Int? = nil
    /// The bytes of the pong frames that the held one replaced since the queue last drained.
    private(set) var owedBytes = 0
    /// Header bytes of a pong frame: 2, plus a masking key's 4 for a client.
    private let frameOverhead: Int

    init(role: WebSocketRole) {
        frameOverhead = role == .client ? 6 : 2
    }

    /// Whether a pong is held.
    var isHolding: Bool { count != nil }

    /// The held pong's frame and the pongs owed, in bytes.
    var byteCount: Int { (count.map { $0 + frameOverhead } ?? 0) + owedBytes }

    /// Holds `ping`'s payload in place of the one held, whose pong is then owed.
    ///
    /// - Precondition: `ping.count <= 125` (a control frame's payload).
    /// - Complexity: O(`ping.count`). - Allocations: none.
    mutating func hold(_ ping: Span<UInt8>) {
        precondition(ping.count <= 125, "a ping's payload is at most 125 bytes")
        if let count { owedBytes += count + frameOverhead }
        for i in 0..<ping.count { payload[i] = ping[i] }
        count = ping.count
    }

    /// Forgets the held pong and the pongs owed: answered, or no longer due after a close frame.
    mutating func reset() {
        count = nil
        owedBytes = 0
    }

    /// Takes the held payload out (``reset()``): the pong to queue now, or `nil` when none is held.
    ///
    /// - Complexity: O(1): 125 bytes copied on the stack. - Allocations: none.
    mutating func take() -> (payload: InlineArray<125, UInt8>, count: Int)? {
        guard let count else { return nil }
        reset()
        return (payload, count)
    }
}

@available(*, unavailable)
extension HeldPong: Sendable {}
