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
}

/// Why a connection ended: reported in records and gaps, and as the reason of a `.close` action.
public enum DisconnectReason: Sendable, Equatable, CustomStringConvertible {
    /// The server closed the connection.
    case endOfStream
    /// Reading or writing failed (socket or TLS error text).
    case failed(String)
    /// The connection could not be made (resolve, connect or handshake error text).
    case connectFailed(String)
    /// The server sent RECONNECT.
    case serverRequestedReconnect
    /// Our PING went unanswered: the connection is dead.
    case unresponsive
    /// No welcome (`001`) arrived in time after connecting.
    case registrationTimedOut
    /// The server rejected the login (NOTICE `Login authentication failed`). Fatal.
    case authenticationFailed(String)
    /// The session was stopped on purpose.
    case stopped

    public var description: String {
        switch self {
        case .endOfStream: "the server closed the connection"
        case .failed(let message): "connection failed: \(message)"
        case .connectFailed(let message): "could not connect: \(message)"
        case .serverRequestedReconnect: "the server asked us to reconnect (RECONNECT)"
        case .unresponsive: "the connection stopped answering (no PONG)"
        case .registrationTimedOut: "the server did not complete the login in time"
        case .authenticationFailed(let message): "login rejected: \(message)"
        case .stopped: "stopped"
        }
    }
}
