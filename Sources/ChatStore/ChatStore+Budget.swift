import ChatMemory

/// The memory budget's trimming pass (see ``MemoryBudget``).
extension ChatStore {
    /// Reads the process's resident memory (``MemoryBudget/sample()``), then releases the oldest
    /// entries of the least recently active channels until the budget's count is at most its
    /// ``MemoryBudget/lowWater``, or every channel on the recency list has been trimmed. Each
    /// channel keeps ``budgetFloor`` entries, every entry at or above its lowest reader pin, and every
    /// entry from ``budgetKeeps`` on; a channel trimmed is compacted (its memory given back; not while a
    /// reader holds a pin in it: a pass never waits for a reader) and leaves the recency list until its
    /// next append. Owner thread only.
    ///
    /// - Complexity: O(channels visited + entries released + live entries of the channels compacted),
    ///   amortised O(1) per appended line: a channel visited leaves the list, and only an append puts
    ///   it back. - Allocations: the compacted rings' new storage and tables.
    func trimToBudget(_ budget: MemoryBudget) {
        var entries = 0
        var bytes = 0
        var released = 0
        budget.sample()
        while budget.countedBytes > budget.lowWater, recency.first >= 0 {
            let index = Int(recency.first)
            recency.remove(index)
            guard let log = log(at: index), log.ring.count > budgetFloor else { continue }
            let keep = min(log.ring.lowestPinned, budgetKeeps?(index) ?? .max)
            let before = log.ring.count
            log.trim(keeping: budgetFloor, below: keep) { e in
                bytes += e.length
                forgetShared(e, of: index)
            }
            guard log.ring.count < before else { continue }
            entries += before - log.ring.count
            // Compaction retires the old storage once every reader slot has been seen free: with a
            // reader pinned now, it would wait for it. It waits for the channel's next trim instead.
            guard log.ring.lowestPinned == .max else { continue }
            let given = log.ring.compact()
            released += given
            budget.add(-given)
            viewModel.markDirty(index)
        }
        budget.noteTrim(entries: entries, bytes: bytes, released: released)
        budget.notePassEnded()
    }

    /// The channels the budget would trim next, least recently active first (tests).
    package var budgetOrder: [Int] { recency.order }
}
