/// What a `watch` session did, for `--stats`: frames drawn and bytes sent to the terminal, change
/// sets taken, and how long the feed took to ingest its lines.
public struct WatchStats: Sendable, Equatable {
    /// Frames that wrote anything to the terminal.
    public var redraws = 0
    /// The most frames drawn within any one second (the cap is 30).
    public var peakRedrawsPerSecond = 0
    /// Bytes written to the terminal by frames.
    public var bytes = 0
    /// Rows written, rows scrolled by the terminal, full repaints.
    public var rowsWritten = 0
    public var scrolledRows = 0
    public var repaints = 0
    /// Change sets taken from mailboxes (at most one per channel per frame tick).
    public var takes = 0
    /// Seconds the screen was up.
    public var seconds = 0.0
    /// Seconds from start until the screen saw the feed end, and what was drawn until then.
    public var feedSeconds: Double? = nil
    public var redrawsWhileFeeding = 0
    public var bytesWhileFeeding = 0
    /// Lines the feed appended to the store, and the ingest thread's own time for them (from its
    /// start to its last line), when it finished.
    public var lines = 0
    public var ingestSeconds: Double? = nil

    public init() {}

    /// One `key=value` line for stderr.
    public var summary: String {
        func rate(_ n: Int, _ s: Double?) -> String {
            guard let s, s > 0 else { return "n/a" }
            return "\((Double(n) / s * 10).rounded() / 10)"
        }
        func seconds(_ s: Double?) -> String { s.map { "\(($0 * 1000).rounded() / 1000)" } ?? "n/a" }
        var parts = [
            "redraws=\(redraws)", "seconds=\(seconds(self.seconds))", "redraws_per_s=\(rate(redraws, self.seconds))",
            "max_redraws_in_1s=\(peakRedrawsPerSecond)",
            "bytes=\(bytes)", "bytes_per_s=\(rate(bytes, self.seconds))",
        ]
        if let f = feedSeconds {
            parts += [
                "feed_seconds=\(seconds(f))", "feed_redraws_per_s=\(rate(redrawsWhileFeeding, f))",
                "feed_bytes_per_s=\(rate(bytesWhileFeeding, f))",
            ]
        }
        parts += [
            "rows_written=\(rowsWritten)", "scrolled_rows=\(scrolledRows)", "repaints=\(repaints)", "takes=\(takes)",
            "lines=\(lines)", "ingest_seconds=\(seconds(ingestSeconds))",
        ]
        return "watch stats: " + parts.joined(separator: " ")
    }
}
