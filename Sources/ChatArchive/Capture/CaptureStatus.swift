import ChatFormat
public import TwitchSession

/// The live status of a capture, rendered as one terminal line or one JSON object.
///
/// Each ``snapshot(_:now:unusableLines:)`` compares the writer's counters with the previous call to get rates.
/// Confined to the capture thread (it reads the writer).
public struct CaptureStatus {
    private var lastMs: Int64? = nil
    private var last: [String: (messages: UInt64, lagSumMs: Int64, lagCount: Int64)] = [:]
    private let startMs: Int64

    public init(startedAt: Moment) { startMs = startedAt.monotonicMs }

    /// A snapshot of the counters with per-channel rates since the previous snapshot.
    public struct Snapshot: Sendable {
        public struct Channel: Sendable {
            public var name: String
            public var lines: UInt64
            public var messages: UInt64
            /// Chat messages (PRIVMSG, USERNOTICE) per second since the previous snapshot.
            public var perSecond: Double
            /// Mean lag (receive time minus `tmi-sent-ts`) of the lines since the previous snapshot.
            public var meanLagMs: Int64?
        }
        public var uptimeSeconds: Double
        public var channels: [Channel]
        public var lines: UInt64
        public var bytesWritten: UInt64
        public var bytesIn: UInt64
        public var reconnects: Int
        public var gaps: Int
        /// Memory held by compressed chunks waiting for the disk now, and the limit that stops reading.
        public var queuedBytes: Int
        public var bufferLimit: Int
        /// Stops of the socket reading for a full write queue, and their total time.
        public var backPressureEvents: Int
        public var backPressureMs: Int64
        /// Lines the parser rejected (stored in the session file) and lines that could not be stored
        /// (too long, or cut off by the server), from the caller's counts.
        public var unparsedLines: Int
        public var unusableLines: Int
        /// Ring entries `--memory-budget` released (capture with `--http-port`; `nil`: no rings).
        public var budgetTrimmedEntries: Int? = nil

        /// One JSON object (no newline).
        public var json: String {
            let chans = channels.map { c in
                "{\"channel\":\"\(c.name)\",\"lines\":\(c.lines),\"messages\":\(c.messages),"
                    + "\"messages_per_second\":\(c.perSecond.oneDecimal)"
                    + (c.meanLagMs.map { ",\"mean_lag_ms\":\($0)" } ?? "") + "}"
            }
            return "{\"type\":\"capture_status\",\"uptime_s\":\(uptimeSeconds.oneDecimal),\"lines\":\(lines),"
                + "\"bytes_written\":\(bytesWritten),\"bytes_in\":\(bytesIn),\"reconnects\":\(reconnects),"
                + "\"gaps\":\(gaps),\"queued_bytes\":\(queuedBytes),\"buffer_limit\":\(bufferLimit),\"back_pressure_events\":\(backPressureEvents),"
                + "\"back_pressure_ms\":\(backPressureMs),\"malformed_lines\":\(unparsedLines),"
                + "\"unusable_lines\":\(unusableLines),"
                + (budgetTrimmedEntries.map { "\"budget_trimmed_entries\":\($0)," } ?? "")
                + "\"channels\":[\(chans.joined(separator: ","))]}"
        }

        /// `310ms`, `12.3s`, `5m`, `2h`, `365d`.
        package static func duration(ms: Int64) -> String {
            let a = abs(ms)
            let sign = ms < 0 ? "-" : ""
            if a < 10_000 { return "\(ms)ms" }
            if a < 60_000 { return sign + (Double(a) / 1000).oneDecimal + "s" }
            if a < 3_600_000 { return sign + "\(a / 60_000)m" }
            if a < 86_400_000 { return sign + "\(a / 3_600_000)h" }
            return sign + "\(a / 86_400_000)d"
        }

        static func size(_ bytes: UInt64) -> String {
            if bytes < 1024 { return "\(bytes) B" }
            if bytes < 1 << 20 { return (Double(bytes) / 1024).oneDecimal + " KiB" }
            if bytes < 1 << 30 { return (Double(bytes) / 1_048_576).oneDecimal + " MiB" }
            return (Double(bytes) / 1_073_741_824).oneDecimal + " GiB"
        }
    }

    /// The counters of `writer` now, with rates since the previous call (since the start, the first time).
    ///
    /// - Parameter unusableLines: lines the caller could not hand to the writer (too long, cut off).
    public mutating func snapshot(_ writer: CaptureWriter, now: Moment, unusableLines: Int = 0) -> Snapshot {
        let since = lastMs ?? startMs
        let seconds = max(Double(now.monotonicMs - since) / 1000, 0.001)
        var channels: [Snapshot.Channel] = []
        for c in writer.channelCounters {
            let before = last[c.channel] ?? (0, 0, 0)
            let lags = c.lagCount - before.lagCount
            channels.append(
                .init(
                    name: c.channel, lines: c.lines, messages: c.messages,
                    perSecond: Double(c.messages - before.messages) / seconds,
                    meanLagMs: lags > 0 ? (c.lagSumMs - before.lagSumMs) / lags : nil))
            last[c.channel] = (c.messages, c.lagSumMs, c.lagCount)
        }
        lastMs = now.monotonicMs
        let disk = writer.diskCounters
        let pressure = writer.backPressure
        return Snapshot(
            uptimeSeconds: Double(now.monotonicMs - startMs) / 1000, channels: channels, lines: writer.lineCount,
            bytesWritten: disk.written, bytesIn: writer.uncompressedByteCount,
            reconnects: writer.reconnects, gaps: writer.gaps, queuedBytes: disk.queued,
            bufferLimit: writer.options.bufferLimit,
            backPressureEvents: pressure.events, backPressureMs: pressure.totalMs,
            unparsedLines: writer.unparsedLines, unusableLines: unusableLines)
    }
}

@available(*, unavailable)
extension CaptureStatus: Sendable {}
