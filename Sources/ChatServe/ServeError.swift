public import ChatInput
public import ChatNet

/// Why `chatcap serve` could not start: its inputs, its listening socket or its TLS setup.
///
/// Every case reads as a message for the user. The command line maps ``input(_:)`` to exit status 66
/// and the network and TLS cases to 74.
public enum ServeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An input path cannot be found, opened or read (the ``InputError`` of ``InputPaths/expand(_:)``
    /// or of loading standard input).
    case input(InputError)
    /// The address cannot be resolved, bound (port in use, no permission) or listened on.
    case network(SocketError)
    /// The certificate or key cannot be read, is not PEM, or they do not belong together.
    case tls(String)

    public var description: String {
        switch self {
        case .input(let error):
            return error.description
        case .network(let error):
            return error.description
        case .tls(let message):
            return "TLS setup failed: \(message)"
        }
    }
}
