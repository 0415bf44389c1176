import ChatPosix
import Glibc

extension EventLoop {
    /// The longest a wait that a ``StopFlag`` can end blocks before it looks at the flag again. A
    /// signal may be delivered to another thread, so the flag, not `EINTR`, is what ends the wait.
    public static let stopCheckMs: Int64 = 100

    /// One wait of a blocking connect or handshake on a private loop: returns when a registered
    /// descriptor is ready, `remainingMs` pass, or (with `stop`) ``stopCheckMs`` pass; the caller
    /// checks its progress and its own deadline and calls again.
    ///
    /// - Parameter operation: what is waited for, for the error (`TLS handshake with 127.0.0.1:6697`).
    /// - Throws: ``SocketError/stopped(_:)`` when `stop` is raised before or during the wait;
    ///   `epoll_wait`'s error.
    /// - Complexity: one `epoll_wait`. - Allocations: none (the message only when stopped).
    func waitStep(remainingMs: Int64, stop: StopFlag?, _ operation: @autoclosure () -> String) throws(SocketError) {
        if let stop, stop.isRaised { throw .stopped(operation()) }
        let slice = stop == nil ? remainingMs : min(remainingMs, Self.stopCheckMs)
        try wait(timeoutMs: Int32(clamping: max(0, slice))) { _, _ in }
        if let stop, stop.isRaised { throw .stopped(operation()) }
    }
}

extension SocketError {
    /// A connect or handshake given up because its ``StopFlag`` was raised (SIGINT, SIGTERM): `ECANCELED`.
    public static func stopped(_ operation: String) -> SocketError {
        SocketError(code: ECANCELED, message: "\(operation): stopped before it completed")
    }

    /// Whether this is ``stopped(_:)``'s error.
    public var isStopped: Bool { code == ECANCELED }
}
