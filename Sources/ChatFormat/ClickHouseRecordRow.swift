import ChatStore
import IRCWire

/// One of capture's own records (``CaptureRecordLine``: a `CAPTURE` line of `DIR/_session`) as a row of
/// the `chat.records` table of docs/clickhouse.sql, in ClickHouse's `JSONEachRow` input format:
///
/// | column | from |
/// | --- | --- |
/// | `time`, `time_ms` | the record's `time` tag: when it happened (a gap: its end) |
/// | `channel` | the target channel without `#`; `''` for a record of the whole capture (target `*`) |
/// | `event` | the event as stored: `start`, `stop`, `joined`, `join-failed`, `parted`, `gap`, `connected`, … |
/// | `text` | the record's description |
/// | `gap_from`, `gap_to` (+ `_ms`) | a gap's interval (0 for other records) |
/// | `reason` | a gap's reason |
/// | `backfill`, `recovered` | a backfilled gap's state (`closed`, `partial`, `failed`; `''` when no service was asked) and the lines it recovered |
/// | `missing_from`, `missing_to` (+ `_ms`) | a partial backfill's interval still missing (0 otherwise) |
/// | `backfill_error` | a failed backfill's error |
/// | `key` | ``ClickHouseRow/hashKey(_:)``, `:` and the line's end offset: a batch sent again collapses |
/// | `raw` | the line as captured, byte for byte |
///
/// With ``ClickHouseRow/Times/datetime64`` (docs/clickhouse-current.sql) the times carry their
/// milliseconds and no `_ms` columns are sent, as for chat rows.
public enum ClickHouseRecordRow: Sendable {
    /// The columns a row has, in order (what `load` checks the table for).
    public static func columns(_ times: ClickHouseRow.Times) -> [String] {
        let timed =
            ["time", "channel", "event", "text", "gap_from", "gap_to", "reason", "backfill", "recovered"]
            + ["missing_from", "missing_to", "backfill_error", "key", "raw"]
        return times.columns(timed, timeColumns: ["time", "gap_from", "gap_to", "missing_from", "missing_to"])
    }

    /// Writes one row object (no newline) for `line` (without CR LF) of a session file, ending at
    /// decompressed offset `end`; writes nothing and returns `false` when the line is not a record
    /// (connection lines, lines of channels not joined, lines the parser rejected).
    ///
    /// - Complexity: O(line length). - Allocations: the key's string.
    @discardableResult
    public static func encode(
        _ line: Span<UInt8>, end: UInt64, times: ClickHouseRow.Times = .datetime, into writer: inout JSONWriter
    ) -> Bool {
        guard let message = try? TwitchMessage.parse(line), let record = CaptureRecordLine(message, in: line) else {
            return false
        }
        let at = message.tags[.time].flatMap { Timestamp(rfc3339: line.extracting($0.raw.range)) }
        writer.beginObject()
        ClickHouseRow.writeTime("time", "time_ms", at, times, into: &writer)
        writer.key("channel")
        if let channel = record.channel { writer.string(line, channel) } else { writer.string("") }
        writer.key("event")
        writer.string(line, record.event)
        writer.key("text")
        if let text = record.text { writer.string(line, text) } else { writer.string("") }
        ClickHouseRow.writeTime("gap_from", "gap_from_ms", record.gapFrom, times, into: &writer)
        ClickHouseRow.writeTime("gap_to", "gap_to_ms", record.gapTo, times, into: &writer)
        writer.key("reason")
        record.writeReason(line, into: &writer)
        writer.key("backfill")
        if let state = record.backfill { writer.string(line, state) } else { writer.string("") }
        writer.key("recovered")
        writer.number(min(max(record.recovered ?? 0, 0), Int64(UInt32.max)))
        ClickHouseRow.writeTime("missing_from", "missing_from_ms", record.missingFrom, times, into: &writer)
        ClickHouseRow.writeTime("missing_to", "missing_to_ms", record.missingTo, times, into: &writer)
        ClickHouseRow.string("backfill_error", record.backfillError, line, &writer)
        writer.key("key")
        writer.string(ClickHouseRow.hashKey(line) + ":\(end)")
        writer.key("raw")
        writer.string(verbatim: line, 0..<line.count)
        writer.endObject()
        return true
    }
}
