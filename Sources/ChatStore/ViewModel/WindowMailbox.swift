import Synchronization

/// Where the view model leaves change sets for one observer on another thread.
///
/// Holds at most one pending change set: a newer one is merged into it, so a slow observer sees the
/// latest state with everything that changed since it last looked, never a growing backlog.
public final class WindowMailbox: Sendable {
    private let pending = Mutex<WindowChange?>(nil)

    public init() {}

    /// Owner side: leaves `change`, merged into any change set not yet taken.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func post(_ change: WindowChange) {
        pending.withLock { slot in
            if slot == nil {
                slot = change
            } else {
                slot!.merge(change)
            }
        }
    }

    /// Observer side: takes the pending change set, if any.
    public func take() -> WindowChange? {
        pending.withLock { slot in
            defer { slot = nil }
            return slot
        }
    }
}
