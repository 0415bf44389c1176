import Synchronization

/// Hands out reader slots: each thread that reads entries while the owner appends holds one.
///
/// A slot number indexes the ``ReaderPins`` of every channel log of the same ``ChatStore``.
public final class ReaderRegistry: Sendable {
    /// The most readers that can read at the same time. Every channel log keeps a pin per reader
    /// (8 bytes each, inline in its ring: ``ReaderPins/capacity``): 8 is several times what any
    /// command uses (replay and watch hold one each), and 16 cost 0.6 MB more at 10,000 channels.
    public static let maximumReaders = ReaderPins.capacity
    private let used = Mutex<UInt32>(0)

    public init() {}

    /// A new reader slot, or `nil` when all are taken.
    public func makeReader() -> Reader? {
        used.withLock { bits -> Reader? in
            for i in 0..<Self.maximumReaders where bits & (1 << i) == 0 {
                bits |= 1 << i
                return Reader(slot: i, registry: self)
            }
            return nil
        }
    }

    fileprivate func release(_ slot: Int) {
        used.withLock { $0 &= ~(1 << UInt32(slot)) }
    }
}

/// One reader's slot. Use it from one thread at a time; release it by letting it go.
public final class Reader: Sendable {
    public let slot: Int
    private let registry: ReaderRegistry

    fileprivate init(slot: Int, registry: ReaderRegistry) {
        self.slot = slot
        self.registry = registry
    }

    deinit { registry.release(slot) }
}
