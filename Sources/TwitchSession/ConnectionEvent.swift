/// What happened to a connection, as the ingest loop tells ``ConnectionMachine``.
public enum ConnectionEvent: Sendable, Equatable {
    /// The TCP (and TLS) connection the machine asked for is up.
    case connected
    /// A line arrived, already classified (see ``ServerLine``).
    case lineReceived(ServerLine)
    /// Time passed: the loop calls this at ``ConnectionMachine/nextDeadline`` (or any time).
    case tick
    /// The connection ended or could not be made.
    case closed(DisconnectReason)
    /// Writing to the connection failed; it is unusable.
    case writeFailed(String)
    /// The retiring connection (kept open after RECONNECT, see ``ConnectionAction/handOver``) ended
    /// before the machine asked for it to be closed.
    case retiredClosed(DisconnectReason)
    /// During a RECONNECT overlap, a line the retiring connection had delivered came on the
    /// replacement too.
    case overlapConfirmed
}

/// Why a connection ended: reported in records and gaps, and as the reason of a `.close` action.
public enum DisconnectReason: Sendable, Equatable, CustomStringConvertible {
    /// The server closed the connection.
    case endOfStream
    /// Reading or writing failed (socket or TLS error text).
    case failed(String)
    /// The connection could not be made (resolve, connect or handshake error text).
    case connectFailed(String)
    /// The server's TLS certificate failed verification (untrusted, or for another name): fatal
    /// unless ``ConnectionSettings/retryCertificateErrors``.
    case certificateRejected(String)
    /// The server sent RECONNECT.
    case serverRequestedReconnect
    /// Our PING went unanswered: the connection is dead.
    case unresponsive
    /// The server does not read what we send: more than the loop's bound of bytes wait to be
    /// written (a PING flood with no reader). The connection is dead.
    case peerNotReading(queuedBytes: Int, limit: Int)
    /// No welcome (`001`) arrived in time after connecting.
    case registrationTimedOut
    /// The server rejected the login (NOTICE `Login authentication failed`). Fatal.
    case authenticationFailed(String)
    /// The session was stopped on purpose.
    case stopped
    /// Before the session: the program was not running (a restart), said in the text.
    case notRunning(String)

    /// Whether this is the hole a restart left (``notRunning(_:)``).
    public var isRestart: Bool {
        if case .notRunning = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .endOfStream: "the server closed the connection"
        case .failed(let message): "connection failed: \(message)"
        case .connectFailed(let message): "could not connect: \(message)"
        case .certificateRejected(let message): "could not connect: \(message)"
        case .serverRequestedReconnect: "the server asked us to reconnect (RECONNECT)"
        case .unresponsive: "the connection stopped answering (no PONG)"
        case .peerNotReading(let queued, let limit):
            "the server does not read what we send (\(queued) bytes queued, over the \(limit)-byte bound)"
        case .registrationTimedOut: "the server did not complete the login in time"
        case .authenticationFailed(let message): "login rejected: \(message)"
        case .stopped: "stopped"
        case .notRunning(let text): text
        }
    }
}
