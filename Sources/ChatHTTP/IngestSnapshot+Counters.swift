public import ChatMemory
import ChatStore

extension IngestSnapshot {
    /// Takes the counters of `metrics` (all but the per-channel ones, which need the store's names).
    ///
    /// - Complexity: O(lag buckets). - Allocations: one array (``lagCounts``), so the one the HTTP
    ///   threads may hold is never written again.
    public mutating func copyCounters(of metrics: IngestMetrics) {
        receivedLines = metrics.receivedLines
        receivedBytes = metrics.receivedBytes
        malformedLines = metrics.malformedLines
        tooLongLines = metrics.tooLongLines
        cutOffLines = metrics.cutOffLines
        gaps = metrics.gaps
        reconnects = metrics.reconnects
        joined = metrics.joined
        refused = metrics.refused
        timedOut = metrics.timedOut
        lagCounts = Array(metrics.lagCounts)
        lagSumMs = metrics.lagSumMs
    }

    /// The memory budget's figures now (`--memory-budget`), or none.
    public mutating func copyBudget(_ budget: MemoryBudget?) {
        self.budget = budget.map {
            BudgetFigures(
                limit: $0.limit, reservedBytes: $0.heldBytes, outsideBytes: $0.outsideBytes,
                trimmedEntries: UInt64($0.trimmedEntries), trimmedBytes: UInt64($0.trimmedBytes))
        }
    }

    /// Where the session stands (``IngestHealth``): the channel and connection gauges and `/healthz`.
    public mutating func assess(
        _ health: IngestHealth, connections: Int, connectionsUp: Int, lastDisconnect: String?
    ) {
        self.connections = connections
        self.connectionsUp = connectionsUp
        channels = health.channels
        channelsJoined = health.joined
        let verdict = health.verdict(
            connections: connections, connectionsUp: connectionsUp, lastDisconnect: lastDisconnect)
        healthy = verdict.healthy
        self.health = verdict.text
    }
}
