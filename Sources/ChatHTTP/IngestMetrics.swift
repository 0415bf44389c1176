public import ChatStore
public import IRCWire
public import TwitchSession

/// The counters behind capture's and tail's `GET /metrics`, kept by the ingest thread as plain
/// fields: no lock, no atomic and no allocation per line. The command copies them into an
/// ``IngestSnapshot`` at the loop's tick, which is all the HTTP threads ever read.
///
/// Ingest thread only.
public final class IngestMetrics {
    /// The lag histogram's bucket bounds (milliseconds; `/metrics` says seconds).
    public static let lagBoundsMs: [Int64] = [100, 250, 500, 1_000, 2_500, 5_000, 10_000, 30_000, 60_000, 300_000]

    /// Lines handed to the command (chat and server lines, backfilled ones included), and their
    /// bytes with CR LF.
    public internal(set) var receivedLines: UInt64 = 0
    public internal(set) var receivedBytes: UInt64 = 0
    /// Lines the parser rejected (also in ``receivedLines``).
    public internal(set) var malformedLines: UInt64 = 0
    /// Lines that could not be handed on: longer than the framer's limit, or cut off by a close.
    public internal(set) var tooLongLines: UInt64 = 0
    public internal(set) var cutOffLines: UInt64 = 0
    public internal(set) var gaps: UInt64 = 0
    /// Connections made after the first of each connection slot.
    public internal(set) var reconnects: UInt64 = 0
    public internal(set) var joined: UInt64 = 0
    public internal(set) var refused: UInt64 = 0
    public internal(set) var timedOut: UInt64 = 0
    /// Why a connection ended last, for `/healthz`.
    public internal(set) var lastDisconnect: String? = nil
    /// Lines with `tmi-sent-ts` per lag bucket (one per bound, then those above the last), and the
    /// sum of their lags; a negative lag (clocks apart) counts as 0.
    public private(set) var lagCounts: [UInt64]
    public private(set) var lagSumMs: Int64 = 0
    /// Lines received per channel, by the channel's index in the history's store
    /// (`--http-channel-metrics` only).
    public private(set) var perChannel: [UInt64] = []
    public let countsPerChannel: Bool

    public init(countsPerChannel: Bool) {
        self.countsPerChannel = countsPerChannel
        lagCounts = Array(repeating: 0, count: Self.lagBoundsMs.count + 1)
    }

    /// Counts a line received at `receivedAt`.
    ///
    /// - Complexity: O(line length) for `tmi-sent-ts`; with per-channel counts, a channel look-up.
    /// - Allocations: none (with per-channel counts, one per new channel).
    public func line(_ bytes: Span<UInt8>, _ message: TwitchMessage, receivedAt: Timestamp, store: ChatStore) {
        receivedLines &+= 1
        receivedBytes &+= UInt64(bytes.count + 2)
        if let sent = message.sentTimestamp(in: bytes) {
            let lag = max(0, receivedAt.milliseconds - sent)
            lagSumMs &+= lag
            var bucket = 0
            while bucket < Self.lagBoundsMs.count && lag > Self.lagBoundsMs[bucket] { bucket += 1 }
            lagCounts[bucket] &+= 1
        }
        // The channel's number, not its log: a log returned is retained and released a line.
        if countsPerChannel, message.channel != nil, let channel = try? store.channelNumber(for: message, in: bytes) {
            while perChannel.count <= channel { perChannel.append(0) }
            perChannel[channel] &+= 1
        }
    }

    /// Counts a line the parser rejected.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func malformed(_ bytes: Span<UInt8>) {
        receivedLines &+= 1
        receivedBytes &+= UInt64(bytes.count + 2)
        malformedLines &+= 1
    }

    /// Counts what a session record says (JOIN outcomes, gaps, reconnects, the last disconnect).
    public func record(_ record: SessionRecord) {
        switch record {
        case .connected(let attempt, _): if attempt > 1 { reconnects &+= 1 }
        case .joined: joined &+= 1
        case .joinFailed(_, .refused, _): refused &+= 1
        case .joinFailed(_, .timedOut, _): timedOut &+= 1
        case .gap: gaps &+= 1
        case .disconnected(let reason, _): lastDisconnect = "\(reason)"
        case .capabilities, .reconnectScheduled, .fatal, .parted: break
        }
    }

    /// Counts a line that could not be handed on: longer than the framer's limit (`tooLong`), or cut
    /// off by a closed connection.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func unusable(tooLong: Bool) {
        if tooLong { tooLongLines &+= 1 } else { cutOffLines &+= 1 }
    }
}

@available(*, unavailable)
extension IngestMetrics: Sendable {}
