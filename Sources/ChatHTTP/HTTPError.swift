/// Why the listener did not start.
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The address could not be resolved (getaddrinfo's message).
    case resolve(host: String, message: String)
    /// The address could not be bound or listened on (errno's text).
    case bind(address: String, message: String)
    /// libmicrohttpd did not start its daemon.
    case start(address: String)

    public var description: String {
        switch self {
        case .resolve(let host, let message): "cannot resolve HTTP host \(host): \(message)"
        case .bind(let address, let message): "cannot listen for HTTP on \(address): \(message)"
        case .start(let address): "cannot start the HTTP listener on \(address)"
        }
    }
}
