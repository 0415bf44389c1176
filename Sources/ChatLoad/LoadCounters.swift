/// What a load did so far, for the status and the final summary.
public struct LoadCounters: Sendable {
    /// Capture files known, and open now.
    public var files = 0
    public var openFiles = 0
    /// Rows read from files, and acknowledged by ClickHouse (resent rows count again).
    public var rowsRead: UInt64 = 0
    public var rowsAcknowledged: UInt64 = 0
    /// Of those, capture's records (gaps, start and stop, joins…) acknowledged into the records table.
    public var recordsAcknowledged: UInt64 = 0
    /// Row bytes (JSON) acknowledged, and compressed bytes of the acknowledged INSERTs.
    public var rowBytesAcknowledged: UInt64 = 0
    public var bodyBytesAcknowledged: UInt64 = 0
    /// INSERTs acknowledged, and attempts that failed (each retried).
    public var batches = 0
    public var failedAttempts = 0
    /// Rows waiting in the current batch.
    public var pendingRows = 0
    /// Files read again from their start (a capture rewrote them after a crash) or from their last
    /// acknowledged line (one was rewritten beyond it).
    public var rereads = 0
    /// Lines that did not parse as IRC (loaded with an empty `type`), and over-long lines skipped.
    public var unparsedLines = 0
    public var skippedLines = 0
    /// Files whose gzip data is damaged (the lines before the damage are loaded).
    public var damagedFiles = 0
    /// Entries of channel folders that are not `.log.gz` files.
    public var ignoredEntries = 0
    /// Whether the last INSERT attempt failed; since when (monotonic ms), and why.
    public var clickhouseDown = false
    public var downSinceMs: Int64 = 0
    public var lastError: String? = nil
    /// Capture receive time → acknowledged, over the acknowledged rows that carry a receive time.
    public var delaySumMs: Int64 = 0
    public var delayCount: Int64 = 0
    public var delayMaxMs: Int64 = 0

    public init() {}
}
