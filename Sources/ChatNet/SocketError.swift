import ChatPosix
import Glibc

/// A failed system call on a socket or on the event loop: the `errno` it left and what was attempted.
///
/// Raised by ``TCPConnection``, ``SocketAddress/resolve(host:port:)`` and ``EventLoop``. The message is
/// written for a person (`connect to 127.0.0.1:6697: Connection refused (errno 111)`); the code is for
/// programs that want to tell a refused connection from a reset one.
public struct SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value, or 0 when the failure has none (name resolution, a timeout we measured).
    public var code: Int32
    /// What failed, followed by the system's explanation.
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The error for `operation` with the current `errno`. Read `errno` before anything else can
    /// change it: call this right after the failing call.
    package static func lastError(_ operation: String) -> SocketError {
        system(errno, operation)
    }

    /// The error for `operation` with an explicit `code` (e.g. the `SO_ERROR` of a connect).
    static func system(_ code: Int32, _ operation: String) -> SocketError {
        SocketError(code: code, message: "\(operation): \(reason(code))")
    }

    /// `Connection reset by peer (errno 104)`: the system's text for `code`, and the number.
    static func reason(_ code: Int32) -> String {
        "\(Errno.text(code)) (errno \(code))"
    }

    public var description: String { message }
}
