import Synchronization

/// A one-way flag raised from any thread (a signal handler's task, a test) and polled by readers.
public final class StopFlag: Sendable {
    private let raised = Atomic<Bool>(false)

    public init() {}

    /// Raises the flag; it stays raised.
    public func raise() { raised.store(true, ordering: .releasing) }

    public var isRaised: Bool { raised.load(ordering: .acquiring) }
}
