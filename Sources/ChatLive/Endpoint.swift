public import ChatNet
public import TwitchSession

/// Where and how to connect.
public struct Endpoint: Sendable, Equatable {
    /// How IRC travels to the server.
    public enum Transport: String, Sendable, Equatable, CaseIterable {
        /// IRC lines straight over TCP (or TLS): `irc.chat.twitch.tv`, 6697 (6667 plain).
        case tcp
        /// IRC over WebSocket (RFC 6455), as browser overlays and most libraries connect:
        /// `wss://irc-ws.chat.twitch.tv:443`.
        case websocket
    }

    /// Twitch's host for `transport`.
    public static func twitchHost(for transport: Transport) -> String {
        transport == .websocket ? "irc-ws.chat.twitch.tv" : "irc.chat.twitch.tv"
    }

    public var host: String
    public var port: UInt16
    /// TLS settings, or `nil` for plain TCP.
    public var tls: TLSConfiguration?
    public var transport: Transport
    /// The WebSocket request target (`/`).
    public var path: String
    /// Connect and handshake timeout.
    public var timeoutMs: Int64

    /// - Parameter port: the default is Twitch's for the transport: 6697 with TLS and 6667 without
    ///   over TCP; 443 for WebSocket with TLS. A plain WebSocket has no default: Twitch's
    ///   `ws://irc-ws.chat.twitch.tv:80` is no longer served.
    /// - Precondition: a port is given for a plain WebSocket.
    public init(
        host: String? = nil, port: UInt16? = nil, tls: TLSConfiguration? = .default, transport: Transport = .tcp,
        path: String = "/", timeoutMs: Int64 = 10_000
    ) {
        precondition(port != nil || transport == .tcp || tls != nil, "a plain WebSocket endpoint needs a port")
        self.host = host ?? Self.twitchHost(for: transport)
        switch transport {
        case .tcp: self.port = port ?? (tls == nil ? 6667 : 6697)
        case .websocket: self.port = port ?? 443
        }
        self.tls = tls
        self.transport = transport
        self.path = path
        self.timeoutMs = timeoutMs
    }

    /// `wss://irc-ws.chat.twitch.tv:443/`, `irc.chat.twitch.tv:6697`: where this connects, for messages.
    public var description: String {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        switch transport {
        case .tcp: return authority
        case .websocket: return (tls == nil ? "ws://" : "wss://") + authority + path
        }
    }

    /// Whether `host` names this machine's loopback interface: `localhost`, an IPv4 address in
    /// 127.0.0.0/8 or `::1`. Decided from the text alone (nothing is resolved).
    public static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// What to warn about before logging in with `credentials`: a token sent without TLS to a host
    /// that is not this machine travels readable by anyone on the path. `nil` when there is nothing.
    public func cleartextTokenWarning(for credentials: Credentials) -> String? {
        guard tls == nil, !credentials.isAnonymous, !Self.isLoopback(host) else { return nil }
        return "--plain: the OAuth token is sent to \(host) unencrypted, readable by anyone on the network "
            + "path. Drop --plain (TLS) unless the server is on this machine."
    }
}
