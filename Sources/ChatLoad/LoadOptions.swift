public import ChatFormat

/// How `load` batches, follows and retries (the CLI's options; ranges checked there).
public struct LoadOptions: Sendable {
    /// The table's time columns (docs/clickhouse.sql or docs/clickhouse-current.sql).
    public var times = ClickHouseRow.Times.datetime
    /// Most rows per INSERT.
    public var batchRows = 20_000
    /// Most row bytes (uncompressed JSON) per INSERT.
    public var batchBytes = 32 << 20
    /// How long the first row of a batch waits for more before the batch is sent.
    public var batchDelayMs: Int64 = 1_000
    /// The pause between two looks at files that had nothing new.
    public var pollIntervalMs: Int64 = 100
    /// The pause between two listings of the directory (new channels, new days).
    public var scanIntervalMs: Int64 = 1_000
    /// Most capture files open at once; a file read to its end and acknowledged is closed after
    /// ``idleCloseMs`` (or at once when another file waits for a slot).
    public var maxOpenFiles = 256
    public var idleCloseMs: Int64 = 30_000
    /// Back-off while ClickHouse is unreachable or busy: from ``retryBaseMs``, doubling, up to ``retryMaxMs``.
    public var retryBaseMs: Int64 = 250
    public var retryMaxMs: Int64 = 5_000
    /// Load what the files hold now, then stop (instead of following them).
    public var once = false
    /// How long ClickHouse may stay unreachable or busy before ``Loader/run(stop:)`` gives up
    /// (``LoadError/gaveUp(seconds:reason:)``); `nil`: retry until stopped.
    public var giveUpAfterMs: Int64? = nil

    public init() {}
}
