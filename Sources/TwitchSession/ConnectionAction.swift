public import IRCWire

/// What ``ConnectionMachine`` asks the ingest loop to do, in order.
public enum ConnectionAction: Sendable, Equatable {
    /// Queue this line for writing (and flush).
    case send(OutgoingMessage)
    /// Open a new connection after this many milliseconds (0: now), then report `.connected` or
    /// `.closed(.connectFailed(…))`.
    case connect(after: Int64)
    /// Close the current connection. The machine has already moved on; a `.closed` event for it is
    /// not needed (and is ignored).
    case close(DisconnectReason)
    /// Record this (stderr, a status file, the output stream).
    case report(SessionRecord)
    /// The server sent RECONNECT: keep the current connection open as the *retiring* one (its lines
    /// are still chat, written once with the replacement's copies, but no longer drive the machine;
    /// its PINGs are still answered), and treat the `.connect` that follows as its replacement.
    /// Report `.retiredClosed` when it ends before ``closeRetired`` comes.
    case handOver
    /// Close the retiring connection (after reading what it has already delivered).
    case closeRetired
}

extension ConnectionAction: CustomStringConvertible, CustomReflectable {
    /// `send(PASS ***)`: outgoing lines print through ``OutgoingMessage/description``, which hides secrets.
    public var description: String {
        switch self {
        case .send(let message): "send(\(message))"
        case .connect(let after): "connect(after: \(after) ms)"
        case .close(let reason): "close(\(reason))"
        case .report(let record): "report(\(record))"
        case .handOver: "handOver"
        case .closeRetired: "closeRetired"
        }
    }

    /// Reflection (`dump`) shows the description only, so a `PASS` line's parameters never appear.
    public var customMirror: Mirror { Mirror(self, children: ["action": description], displayStyle: .enum) }
}
