public import ChatStore

/// What the command's output side has done, sampled on the ingest thread at each publication:
/// capture's files, or tail's standard output. `nil` fields are not exported.
public struct IngestOutputFigures: Sendable {
    /// Lines stored (capture: chat and session lines, not our own records) or printed (tail).
    public var linesWritten: UInt64 = 0
    /// Compressed bytes written to disk (capture).
    public var bytesWritten: UInt64? = nil
    public var openFiles: Int? = nil
    /// Compressed chat waiting for the disk now, and the limit that stops reading (capture).
    public var bufferedBytes: Int? = nil
    public var bufferLimit: Int? = nil
    public var backPressureEvents: Int? = nil
    public var backPressureMs: Int64? = nil

    public init(
        linesWritten: UInt64 = 0, bytesWritten: UInt64? = nil, openFiles: Int? = nil, bufferedBytes: Int? = nil,
        bufferLimit: Int? = nil, backPressureEvents: Int? = nil, backPressureMs: Int64? = nil
    ) {
        self.linesWritten = linesWritten
        self.bytesWritten = bytesWritten
        self.openFiles = openFiles
        self.bufferedBytes = bufferedBytes
        self.bufferLimit = bufferLimit
        self.backPressureEvents = backPressureEvents
        self.backPressureMs = backPressureMs
    }
}

/// The figures `GET /metrics` and `GET /healthz` answer with: a copy of ``IngestMetrics`` and the
/// session's state, made by the ingest thread and handed to the HTTP threads under a lock taken
/// once per publication and once per request.
public struct IngestSnapshot: Sendable {
    /// `capture` or `tail`, and chatcap's version (`chatcap_build_info`).
    public var command: String
    public var version: String
    public var startedAt: Timestamp
    public var receivedLines: UInt64 = 0
    public var receivedBytes: UInt64 = 0
    public var malformedLines: UInt64 = 0
    public var tooLongLines: UInt64 = 0
    public var cutOffLines: UInt64 = 0
    public var gaps: UInt64 = 0
    public var reconnects: UInt64 = 0
    public var joined: UInt64 = 0
    public var refused: UInt64 = 0
    public var timedOut: UInt64 = 0
    public var backfilledLines: UInt64 = 0
    public var backfillFailures: UInt64 = 0
    public var lagCounts: [UInt64] = Array(repeating: 0, count: IngestMetrics.lagBoundsMs.count + 1)
    public var lagSumMs: Int64 = 0
    public var output = IngestOutputFigures()
    public var connections = 0
    public var connectionsUp = 0
    public var channels = 0
    public var channelsJoined = 0
    /// The memory budget's figures (`--memory-budget`), when the process has one.
    public var budget: BudgetFigures? = nil
    /// `--http-channel-metrics`: lines received per channel.
    public var perChannel: [(channel: String, lines: UInt64)]? = nil
    /// What the HTTP listener answering this did with its connections (served, shed).
    public var listener: HTTPListenerFigures? = nil
    /// `/healthz`: whether the session is connected and joined as configured, and why not.
    public var healthy = false
    public var health = "starting: not connected yet"

    public init(command: String, version: String, startedAt: Timestamp) {
        self.command = command
        self.version = version
        self.startedAt = startedAt
    }

    /// The Prometheus text exposition (version 0.0.4).
    public var exposition: [UInt8] {
        var text = PrometheusText()
        text.family("chatcap_build_info", kind: .gauge, help: "The chatcap build answering (always 1).")
        text.sample(
            "chatcap_build_info", labels: ["version": version, "command": command], value: UInt64(1))
        text.gauge(
            "process_start_time_seconds", help: "Start time of the process since the Unix epoch in seconds.",
            value: Double(startedAt.milliseconds) / 1000)
        text.counter(
            "chatcap_received_lines_total",
            help: "Lines received from the chat servers (parsed or not, backfilled ones included).",
            value: receivedLines)
        text.counter(
            "chatcap_received_bytes_total", help: "Bytes of the lines received, with CR LF.", value: receivedBytes)
        text.counter(
            "chatcap_malformed_lines_total", help: "Lines received that the parser rejected (capture stores them).",
            value: malformedLines)
        text.family(
            "chatcap_unusable_lines_total", kind: .counter,
            help: "Lines that could not be used: longer than the line limit, or cut off by a closed connection.")
        text.sample("chatcap_unusable_lines_total", labels: ["reason": "too_long"], value: tooLongLines)
        text.sample("chatcap_unusable_lines_total", labels: ["reason": "cut_off"], value: cutOffLines)
        text.counter(
            "chatcap_written_lines_total",
            help: command == "capture"
                ? "Lines stored in the capture files (chat and session lines, not chatcap's own records)."
                : "Lines written to standard output.",
            value: output.linesWritten)
        if let bytes = output.bytesWritten {
            text.counter("chatcap_written_bytes_total", help: "Compressed bytes written to disk.", value: bytes)
        }
        text.counter("chatcap_gaps_total", help: "Intervals in which a channel was not captured.", value: gaps)
        text.counter(
            "chatcap_reconnects_total", help: "Connections made again after one ended (RECONNECT included).",
            value: reconnects)
        text.counter(
            "chatcap_backfilled_lines_total",
            help: "Lines of gaps recovered from the recent-messages service (--recent-messages).",
            value: backfilledLines)
        text.counter(
            "chatcap_backfill_failures_total", help: "Gaps the recent-messages service could not fill.",
            value: backfillFailures)
        text.family("chatcap_joins_total", kind: .counter, help: "JOIN outcomes.")
        text.sample("chatcap_joins_total", labels: ["outcome": "joined"], value: joined)
        text.sample("chatcap_joins_total", labels: ["outcome": "refused"], value: refused)
        text.sample("chatcap_joins_total", labels: ["outcome": "timed_out"], value: timedOut)
        text.gauge("chatcap_connections", help: "Connections the channels are pooled into.", value: Double(connections))
        text.gauge(
            "chatcap_connections_up", help: "Connections registered with the server now.", value: Double(connectionsUp))
        text.gauge("chatcap_channels", help: "Channels configured.", value: Double(channels))
        text.gauge(
            "chatcap_channels_joined", help: "Channels joined now (on a registered connection).",
            value: Double(channelsJoined))
        if let events = output.backPressureEvents, let ms = output.backPressureMs {
            text.counter(
                "chatcap_back_pressure_events_total",
                help: "Times reading stopped because compressed chat waiting for the disk reached --buffer.",
                value: UInt64(events))
            text.counter(
                "chatcap_back_pressure_seconds_total", help: "Time reading was stopped for back-pressure.",
                value: Double(ms) / 1000)
        }
        if let buffered = output.bufferedBytes, let limit = output.bufferLimit {
            text.gauge(
                "chatcap_buffered_bytes", help: "Compressed chat waiting for the disk now.", value: Double(buffered))
            text.gauge(
                "chatcap_buffer_limit_bytes", help: "The --buffer bound at which reading stops.", value: Double(limit))
        }
        if let budget {
            text.counter(
                "chatcap_budget_trimmed_entries_total",
                help: "Entries the memory budget released from the least recently active channels' rings.",
                value: budget.trimmedEntries)
            text.counter(
                "chatcap_budget_trimmed_bytes_total", help: "Bytes of the lines the memory budget released.",
                value: budget.trimmedBytes)
            text.gauge(
                "chatcap_budget_reserved_bytes", help: "Bytes the channel rings reserve now.",
                value: Double(budget.reservedBytes))
            text.gauge(
                "chatcap_budget_outside_bytes",
                help: "Resident bytes of the process outside the channel rings, at the budget's last reading.",
                value: Double(budget.outsideBytes))
            text.gauge(
                "chatcap_budget_limit_bytes",
                help: "The memory budget (--memory-budget): rings plus the rest of the process.",
                value: Double(budget.limit))
        }
        if let listener {
            text.gauge("chatcap_http_connections", help: "HTTP connections open now.", value: Double(listener.open))
            text.gauge(
                "chatcap_http_connection_limit",
                help: "HTTP connections open at once at most; more are closed at once, unserved (shed).",
                value: Double(listener.limit))
            text.counter(
                "chatcap_http_connections_accepted_total", help: "HTTP connections accepted and served.",
                value: listener.accepted)
            text.family(
                "chatcap_http_connections_refused_total", kind: .counter,
                help:
                    "HTTP connections not served: shed over the connection limit or the per-address limit, "
                    + "or accepts that failed because descriptors ran out.")
            text.sample(
                "chatcap_http_connections_refused_total", labels: ["reason": "connection_limit"],
                value: listener.shedOverLimit)
            text.sample(
                "chatcap_http_connections_refused_total", labels: ["reason": "address_limit"],
                value: listener.shedOverAddressLimit)
            text.sample(
                "chatcap_http_connections_refused_total", labels: ["reason": "descriptors"],
                value: listener.acceptFailures)
        }
        if let files = output.openFiles {
            text.gauge("chatcap_open_files", help: "Capture files open now.", value: Double(files))
        }
        text.histogram(
            "chatcap_lag_seconds",
            help:
                "Receive time minus tmi-sent-ts of the lines that carry it (a negative lag, clocks apart, counts as 0).",
            bounds: IngestMetrics.lagBoundsMs.map { Double($0) / 1000 }, counts: lagCounts,
            sum: Double(lagSumMs) / 1000)
        if let perChannel {
            text.family(
                "chatcap_channel_received_lines_total", kind: .counter,
                help: "Lines received per channel (--http-channel-metrics).")
            for (channel, lines) in perChannel {
                text.sample("chatcap_channel_received_lines_total", labels: [("channel", channel)], value: lines)
            }
        }
        return text.bytes
    }
}

/// What the memory budget (`--memory-budget`) has trimmed, for `/metrics`.
public struct BudgetFigures: Sendable, Equatable {
    public var limit: Int
    public var reservedBytes: Int
    /// Resident bytes outside the rings at the budget's last reading.
    public var outsideBytes: Int
    public var trimmedEntries: UInt64
    public var trimmedBytes: UInt64

    public init(limit: Int, reservedBytes: Int, outsideBytes: Int, trimmedEntries: UInt64, trimmedBytes: UInt64) {
        self.limit = limit
        self.reservedBytes = reservedBytes
        self.outsideBytes = outsideBytes
        self.trimmedEntries = trimmedEntries
        self.trimmedBytes = trimmedBytes
    }
}
