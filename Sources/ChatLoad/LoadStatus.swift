import ChatFormat
public import TwitchSession

/// The live status of a load, as one terminal line or one JSON object (`--status json`), with rates
/// since the previous snapshot.
public struct LoadStatus {
    private let startMs: Int64
    private var lastMs: Int64
    private var lastRows: UInt64 = 0
    private var lastDelay: (sum: Int64, count: Int64) = (0, 0)

    public init(startedAt: Moment) {
        startMs = startedAt.monotonicMs
        lastMs = startedAt.monotonicMs
    }

    /// The counters now, with the rows per second and mean delay since the previous snapshot.
    public mutating func snapshot(_ c: LoadCounters, now: Moment) -> Snapshot {
        let seconds = max(Double(now.monotonicMs - lastMs) / 1000, 0.001)
        let delays = c.delayCount - lastDelay.count
        let snapshot = Snapshot(
            uptimeSeconds: Double(now.monotonicMs - startMs) / 1000, counters: c,
            rowsPerSecond: Double(c.rowsAcknowledged - lastRows) / seconds,
            meanDelayMs: delays > 0 ? (c.delaySumMs - lastDelay.sum) / delays : nil,
            downForMs: c.clickhouseDown ? now.monotonicMs - c.downSinceMs : 0)
        lastMs = now.monotonicMs
        lastRows = c.rowsAcknowledged
        lastDelay = (c.delaySumMs, c.delayCount)
        return snapshot
    }

    public struct Snapshot: Sendable {
        public var uptimeSeconds: Double
        public var counters: LoadCounters
        public var rowsPerSecond: Double
        /// Mean capture-receive → acknowledged delay of the rows acknowledged since the previous snapshot.
        public var meanDelayMs: Int64?
        public var downForMs: Int64

        /// `1234 rows`, `ClickHouse DOWN for 12s (345 rows waiting)` while it is down, `56.7 rows/s`,
        /// `delay 1200ms`, `12 files (3 open)`, then what went wrong: the fields of ``line(width:)``,
        /// most telling first.
        public var fields: [String] {
            let c = counters
            var fields = ["\(c.rowsAcknowledged) rows"]
            if c.clickhouseDown {
                fields.append("ClickHouse DOWN for \(downForMs / 1000)s (\(c.pendingRows) rows waiting)")
            }
            fields.append("\(rowsPerSecond.oneDecimal) rows/s")
            if let meanDelayMs { fields.append("delay \(meanDelayMs)ms") }
            fields.append("\(c.files) files (\(c.openFiles) open)")
            if c.rereads > 0 { fields.append("re-read \(c.rereads)") }
            if c.unparsedLines > 0 { fields.append("unparsed \(c.unparsedLines)") }
            if c.damagedFiles > 0 { fields.append("damaged files \(c.damagedFiles)") }
            return fields
        }

        /// The status line in at most `width` columns, as capture's fits its own (``StatusFields``):
        /// `1234 rows  56.7 rows/s  delay 1200ms  12 files (3 open)`.
        ///
        /// - Precondition: `width >= 1`.
        public func line(width: Int) -> String { StatusFields.fit(fields, width: width) }

        /// One JSON object (no newline); fields in docs/scale.md.
        public var json: String {
            let c = counters
            var writer = JSONWriter(capacity: 1024)
            writer.beginObject()
            writer.key("type")
            writer.string("load_status")
            writer.key("uptime_s")
            writer.number(uptimeSeconds, decimals: 1)
            writer.key("files")
            writer.number(c.files)
            writer.key("open_files")
            writer.number(c.openFiles)
            writer.key("rows_read")
            writer.number(Int64(clamping: c.rowsRead))
            writer.key("rows_acknowledged")
            writer.number(Int64(clamping: c.rowsAcknowledged))
            writer.key("rows_per_second")
            writer.number(rowsPerSecond, decimals: 1)
            writer.key("batches")
            writer.number(c.batches)
            writer.key("row_bytes")
            writer.number(Int64(clamping: c.rowBytesAcknowledged))
            writer.key("body_bytes")
            writer.number(Int64(clamping: c.bodyBytesAcknowledged))
            writer.key("pending_rows")
            writer.number(c.pendingRows)
            writer.key("failed_attempts")
            writer.number(c.failedAttempts)
            writer.key("clickhouse")
            writer.string(c.clickhouseDown ? "down" : "up")
            if c.clickhouseDown {
                writer.key("down_ms")
                writer.number(downForMs)
            }
            if let error = c.lastError {
                writer.key("last_error")
                writer.string(error)
            }
            if let meanDelayMs {
                writer.key("mean_delay_ms")
                writer.number(meanDelayMs)
            }
            writer.key("max_delay_ms")
            writer.number(c.delayMaxMs)
            writer.key("rereads")
            writer.number(c.rereads)
            writer.key("unparsed_lines")
            writer.number(c.unparsedLines)
            writer.key("skipped_lines")
            writer.number(c.skippedLines)
            writer.key("damaged_files")
            writer.number(c.damagedFiles)
            writer.key("ignored_entries")
            writer.number(c.ignoredEntries)
            writer.endObject()
            return String(decoding: writer.bytes, as: UTF8.self)
        }
    }
}

@available(*, unavailable)
extension LoadStatus: Sendable {}
