/// How `chatcap serve` listens, paces, plays its channels and misbehaves: everything ``ChatServer``
/// needs besides its inputs.
///
/// A plain value built by the command line (or a test) and handed to the server once.
public struct ServeOptions: Sendable, Equatable {
    /// The address to bind: an IP literal or a name (`127.0.0.1` by default).
    public var host: String
    /// The port to bind; 0 lets the kernel pick a free one (read it back from ``ChatServer/port``).
    public var port: UInt16
    /// Replay pace as a multiple of real time (`2` = twice as fast); `nil` for as fast as the clients
    /// read. Positive and finite; any such speed is safe: a line is held back at most about 30,000
    /// years, however far apart the log's times.
    public var speed: Double?
    /// Start a channel over when it reaches the end of the log, each pass with fresh message ids.
    public var loop: Bool
    /// Each client gets each channel it joins from the log's start, on a timeline of its own
    /// (`--from-start`), instead of the one timeline that every client shares.
    public var fromStart: Bool
    /// Send `tmi-sent-ts` and `rm-received-ts` as recorded (`--keep-time`) instead of rebased to the
    /// moment the line is sent.
    public var keepTime: Bool
    /// Send `PING :tmi.twitch.tv` to a logged-in client this often (milliseconds).
    public var pingIntervalMs: Int64
    /// Close a client that has not answered a PING within this long (milliseconds).
    public var pongTimeoutMs: Int64
    /// Close a connection that has not completed the WebSocket upgrade and the IRC login (CAP, PASS,
    /// NICK answered with the welcome) within this long of being accepted (milliseconds).
    public var loginTimeoutMs: Int64
    /// Most connections open at once from one IP address; a new one past it takes the place of that
    /// address's oldest connection not yet logged in, or is refused when all are logged in.
    public var maxConnectionsPerAddress: Int
    /// What a JOIN of a channel the log does not have gets.
    public var unknownChannel: UnknownChannelPolicy
    /// PEM certificate chain and private key: serve TLS instead of plain TCP (on both ports).
    public var tls: ServeTLSFiles?
    /// A second port for IRC over WebSocket (RFC 6455, as `wss://irc-ws.chat.twitch.tv`), with TLS
    /// when ``tls`` is set; 0 lets the kernel pick one. `nil`: no WebSocket listener.
    public var webSocketPort: UInt16?
    /// Test switches: what to do to a client after it was sent a number of replayed lines.
    public var faults: ServeFaults
    /// Keep the last this many lines the shared timeline plays in each channel, for a
    /// recent-messages endpoint (``ChatServer/history``); `nil`: keep none.
    public var httpHistory: Int? = nil

    /// Twitch's keepalive: a PING about every five minutes.
    public static let defaultPingIntervalMs: Int64 = 300_000
    /// How long a PING may go unanswered before the client is closed.
    public static let defaultPongTimeoutMs: Int64 = 10_000
    /// How long a connection may take to log in: clients log in within milliseconds of connecting.
    public static let defaultLoginTimeoutMs: Int64 = 10_000
    /// Connections from one address: room for the project's test beds on 127.0.0.1 (a 10,000-channel
    /// capture opens 112 at 90 channels each) with twice that to spare.
    public static let defaultMaxConnectionsPerAddress = 256

    public init(
        host: String = "127.0.0.1", port: UInt16 = 6667, speed: Double? = 1, loop: Bool = false,
        fromStart: Bool = false, keepTime: Bool = false, pingIntervalMs: Int64 = Self.defaultPingIntervalMs,
        pongTimeoutMs: Int64 = Self.defaultPongTimeoutMs, loginTimeoutMs: Int64 = Self.defaultLoginTimeoutMs,
        maxConnectionsPerAddress: Int = Self.defaultMaxConnectionsPerAddress,
        unknownChannel: UnknownChannelPolicy = .empty,
        tls: ServeTLSFiles? = nil, webSocketPort: UInt16? = nil, faults: ServeFaults = ServeFaults()
    ) {
        precondition(speed.map { $0 > 0 && $0.isFinite } ?? true, "speed must be positive and finite")
        precondition(pingIntervalMs > 0 && pongTimeoutMs > 0, "keepalive times must be positive")
        precondition(loginTimeoutMs > 0 && maxConnectionsPerAddress > 0, "login timeout and cap must be positive")
        self.host = host
        self.port = port
        self.speed = speed
        self.loop = loop
        self.fromStart = fromStart
        self.keepTime = keepTime
        self.pingIntervalMs = pingIntervalMs
        self.pongTimeoutMs = pongTimeoutMs
        self.loginTimeoutMs = loginTimeoutMs
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.unknownChannel = unknownChannel
        self.tls = tls
        self.webSocketPort = webSocketPort
        self.faults = faults
    }
}

/// What a JOIN of a channel the log has no line of gets (`--unknown-channel`).
public enum UnknownChannelPolicy: String, Sendable, Equatable, CaseIterable {
    /// The JOIN succeeds (echo, 353, 366, USERSTATE, ROOMSTATE with a made-up room id) and the
    /// channel stays silent, apart from what clients relay in it.
    case empty
    /// The JOIN is dropped without a word, as Twitch drops a JOIN of a channel that does not exist.
    case refuse
}

/// The certificate chain and key a TLS server presents, as PEM file paths.
public struct ServeTLSFiles: Sendable, Equatable {
    /// PEM file with the server certificate first, then any intermediates.
    public var certificate: String
    /// PEM file with the certificate's private key (unencrypted).
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}

/// Misbehaviour on purpose, for testing clients: each fires once per connection, when that client
/// has been sent the given number of replayed lines (0: as soon as its replay starts). When several
/// are set, the one with the smallest count fires first; a connection closed or stalled by it never
/// reaches the others.
public struct ServeFaults: Sendable, Equatable {
    /// Send `:tmi.twitch.tv RECONNECT`, then close the connection (after ``reconnectGraceMs``).
    public var reconnectAfter: Int?
    /// How long a connection that was sent RECONNECT keeps playing before it is closed: 0 closes it
    /// at once. Twitch sends RECONNECT and closes the connection some time later ("after a short
    /// time"); a client that opens its replacement meanwhile loses nothing.
    public var reconnectGraceMs: Int64 = 0
    /// Close the connection without a word.
    public var dropAfter: Int?
    /// Stop sending anything and stop answering PING, but keep the connection open.
    public var stallAfter: Int?
    /// Channel logins (lower case, without `#`) whose JOIN is answered with Twitch's
    /// `msg_channel_suspended` NOTICE instead of the JOIN echo.
    public var refusedChannels: Set<String>

    public init(
        reconnectAfter: Int? = nil, dropAfter: Int? = nil, stallAfter: Int? = nil, refusedChannels: Set<String> = []
    ) {
        precondition([reconnectAfter, dropAfter, stallAfter].allSatisfy { ($0 ?? 0) >= 0 }, "counts must be >= 0")
        self.reconnectAfter = reconnectAfter
        self.dropAfter = dropAfter
        self.stallAfter = stallAfter
        self.refusedChannels = refusedChannels
    }

    /// The fault due after `sent` replayed lines, if any (the earliest threshold wins; ties go to
    /// stall, then drop, then reconnect — the order in which they leave the client least able to go on).
    func due(afterSent sent: Int) -> ServeFault? {
        var best: (count: Int, fault: ServeFault)? = nil
        for (count, fault) in [(stallAfter, ServeFault.stall), (dropAfter, .drop), (reconnectAfter, .reconnect)] {
            guard let count, sent >= count else { continue }
            if best == nil || count < best!.count { best = (count, fault) }
        }
        return best?.fault
    }
}

/// One of the ``ServeFaults`` as it fires.
enum ServeFault: Sendable, Equatable {
    case reconnect, drop, stall
}
