/// What the listener allows, so that slow or idle clients cannot exhaust it: connections at once,
/// from one address, how long one may sit without activity or take to send a request, and the buffer
/// memory of each (which bounds a request's line and headers).
///
/// Over the limits, a new connection is answered busy at once (the router's ``HTTPRouter/busy``, for
/// the next ``busyConnections``) or closed at once (shed); both are counted (``HTTPListenerFigures``).
/// One past its timeout is closed. A request never waits on the caller's threads, so none of this
/// reaches them.
///
/// Each connection holds a descriptor: a process whose `ulimit -n` is low gets limits from
/// ``init(descriptorLimit:)``, so that connections can never take the descriptors its chat sockets
/// and files need.
public struct HTTPLimits: Sendable, Equatable {
    /// Connections open at once (`MHD_OPTION_CONNECTION_LIMIT`).
    public var connections: Int
    /// Connections open at once from one IP address (`MHD_OPTION_PER_IP_CONNECTION_LIMIT`): every
    /// local client shares 127.0.0.1, so this is a share of ``connections``, not one or two.
    public var connectionsPerAddress: Int
    /// A connection without activity for this long is closed (`MHD_OPTION_CONNECTION_TIMEOUT`).
    public var idleTimeoutSeconds: Int
    /// Buffer memory per connection: a request's line and headers must fit
    /// (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`; a longer one is answered 414 or 431, ``HTTPRouter/uriTooLong`` and
    /// ``HTTPRouter/headersTooLarge``).
    public var memoryPerConnection: Int
    /// Connections past ``connections`` that are answered ``HTTPRouter/busy`` at once (and closed);
    /// past `connections + busyConnections` they are shed. 0: shed at once past ``connections``.
    public var busyConnections: Int
    /// A connection that has not sent a whole request head this long after it was accepted, or after
    /// its previous answer was sent, is closed, however slowly it keeps sending (0: only
    /// ``idleTimeoutSeconds``, which a byte now and then resets).
    public var requestTimeoutSeconds: Int

    public init(
        connections: Int = 512, connectionsPerAddress: Int = 256, idleTimeoutSeconds: Int = 10,
        memoryPerConnection: Int = 32 * 1024, busyConnections: Int = 0, requestTimeoutSeconds: Int = 0
    ) {
        precondition(connections > 0 && connectionsPerAddress > 0, "connection limits must be positive")
        precondition(idleTimeoutSeconds > 0 && memoryPerConnection >= 4096, "timeout and memory must be positive")
        precondition(busyConnections >= 0 && requestTimeoutSeconds >= 0, "busy and request limits are not negative")
        self.connections = connections
        self.connectionsPerAddress = connectionsPerAddress
        self.idleTimeoutSeconds = idleTimeoutSeconds
        self.memoryPerConnection = memoryPerConnection
        self.busyConnections = busyConnections
        self.requestTimeoutSeconds = requestTimeoutSeconds
    }

    /// The default limits within a quarter of `descriptorLimit` (the process's `ulimit -n`): at most
    /// 512 connections, `descriptorLimit / 4` when that is fewer (at least 1), and half of them from
    /// one address. The rest is left to the process: capture keeps half of the limit for its files
    /// (`--max-open-files`), and the chat connections, epoll and the like need a few more.
    ///
    /// For instance 20,000 gives 512 and 256; 1,024 gives 256 and 128; 256 gives 64 and 32.
    public init(descriptorLimit: Int) {
        let defaults = HTTPLimits()
        let connections = max(1, min(defaults.connections, descriptorLimit / 4))
        self.init(
            connections: connections,
            connectionsPerAddress: max(1, min(defaults.connectionsPerAddress, connections / 2)))
    }

    /// These limits with `connections` answered at once, as many more answered busy (503), and twice
    /// as many from one address (every local client shares 127.0.0.1): `--max-connections`.
    public func answering(_ connections: Int) -> HTTPLimits {
        var limits = self
        limits.connections = connections
        limits.connectionsPerAddress = 2 * connections
        limits.busyConnections = connections
        return limits
    }

    /// These limits with `seconds` both to send a whole request and of silence: `--request-timeout`.
    public func timed(_ seconds: Int) -> HTTPLimits {
        var limits = self
        limits.idleTimeoutSeconds = seconds
        limits.requestTimeoutSeconds = seconds
        return limits
    }
}
