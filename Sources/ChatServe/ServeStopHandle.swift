import ChatNet
import ChatPosix

/// Stops a running ``ChatServer`` from any thread (a signal handler's queue, a test).
///
/// Raising the flag and waking the loop are both safe from any thread; the loop closes every client
/// and returns from ``ChatServer/run()`` at its next turn.
public struct ServeStopHandle: Sendable {
    let flag: StopFlag
    let waker: Waker

    /// Asks the server to stop. Idempotent; never blocks.
    public func stop() {
        flag.raise()
        waker.wake()
    }

    /// Whether ``stop()`` was called.
    public var isStopRequested: Bool { flag.isRaised }
}
