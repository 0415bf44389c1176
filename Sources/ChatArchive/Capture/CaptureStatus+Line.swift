import ChatFormat

extension CaptureStatus.Snapshot {
    /// `1234 lines  56.7 KiB  reconnects 0  gaps 0`, then the queue, back-pressure and bad lines once
    /// there are any: the totals, as the fields of ``summary``.
    var summaryFields: [String] {
        var fields = ["\(lines) lines", Self.size(bytesWritten), "reconnects \(reconnects)", "gaps \(gaps)"]
        // A chunk or two is always in flight; a quarter of the limit means the disk falls behind.
        if queuedBytes > bufferLimit / 4 {
            fields.append("queued \(Self.size(UInt64(queuedBytes)))/\(Self.size(UInt64(bufferLimit)))")
        }
        if backPressureEvents > 0 { fields.append("back-pressure \(backPressureEvents) (\(backPressureMs) ms)") }
        if unparsedLines > 0 { fields.append("malformed \(unparsedLines)") }
        if unusableLines > 0 { fields.append("unusable \(unusableLines)") }
        return fields
    }

    /// The totals on one line (`1234 lines  56.7 KiB  reconnects 0  gaps 0 …`), e.g. for systemd's `STATUS=`.
    public var summary: String { summaryFields.joined(separator: "  ") }

    /// The chat channels (not `_session`), busiest first: by rate since the previous snapshot, then by
    /// messages in all, then by name.
    ///
    /// - Complexity: O(c log c) for c channels.
    public var busiestChannels: [Channel] {
        channels.filter { $0.name != "_session" }.sorted {
            ($0.perSecond, $0.messages, $1.name) > ($1.perSecond, $1.messages, $0.name)
        }
    }

    /// The status line in at most `width` columns (characters: logins are ASCII): the summary first
    /// (as many of its fields as fit, the line count always, cut if even that does not fit), then the
    /// busiest channels as room allows (`#a 12.0 msg/s lag 310ms`), then `+N more` for those left out
    /// (room for it is made by leaving out one more channel, unless only the busiest one is shown):
    ///
    /// ```
    /// 1234 lines  56.7 KiB  reconnects 0  gaps 0 | #a 12.0 msg/s lag 310ms  #b 3.5 msg/s  +4 more
    /// ```
    ///
    /// - Precondition: `width >= 1`.
    /// - Complexity: O(c log c + width) for c channels.
    public func line(width: Int) -> String {
        precondition(width >= 1, "a status line needs a column")
        let summary = StatusFields.fit(summaryFields, width: width)
        if summary.count == width { return summary }
        let ranked = busiestChannels
        // The line after each channel shown, while they fit.
        var lines: [String] = []
        for c in ranked {
            var entry = "#\(c.name) \(c.perSecond.oneDecimal) msg/s"
            if let lag = c.meanLagMs { entry += " lag " + Self.duration(ms: lag) }
            let candidate = (lines.last ?? summary) + (lines.isEmpty ? " | " : "  ") + entry
            guard candidate.count <= width else { break }
            lines.append(candidate)
        }
        if lines.count == ranked.count { return lines.last ?? summary }
        for shown in stride(from: lines.count, through: 0, by: -1) {
            let text = shown == 0 ? summary : lines[shown - 1]
            let marked = text + (shown == 0 ? " | " : "  ") + "+\(ranked.count - shown) more"
            if marked.count <= width { return marked }
            if shown == 1 { return text }
        }
        return summary
    }
}
