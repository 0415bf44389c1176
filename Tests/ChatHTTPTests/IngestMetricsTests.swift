import ChatHTTP
import ChatStore
import IRCWire
import Testing
import TwitchSession

@Suite struct IngestMetricsTests {
    static func count(_ metrics: IngestMetrics, _ line: String, receivedAtMs: Int64, store: ChatStore) throws {
        let bytes = Array(line.utf8)
        let message = try TwitchMessage.parse(bytes.span)
        metrics.line(bytes.span, message, receivedAt: Timestamp(milliseconds: receivedAtMs), store: store)
    }

    @Test("lines, bytes with CR LF, the lag histogram's buckets and sum; a negative lag counts as 0")
    func linesAndLag() throws {
        let metrics = IngestMetrics(countsPerChannel: false)
        let store = ChatStore(capacity: 8)
        let sent: Int64 = 1_800_000_000_000
        for lag: Int64 in [50, 100, 101, 2_500, 400_000, -20] {
            try Self.count(
                metrics, "@tmi-sent-ts=\(sent) :a!a@a PRIVMSG #c :hi", receivedAtMs: sent + lag, store: store)
        }
        try Self.count(metrics, ":tmi.twitch.tv 001 justinfan1 :Welcome", receivedAtMs: sent, store: store)
        #expect(metrics.receivedLines == 7)
        #expect(metrics.receivedBytes == 6 * 50 + 40)
        // Bounds 100, 250, 500, 1000, 2500, … 300000 ms: 50, 100 and -20 (as 0) in the first, 101 in
        // the second, 2500 in the fifth, 400000 above the last.
        #expect(metrics.lagCounts == [3, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1])
        #expect(metrics.lagSumMs == 50 + 100 + 101 + 2_500 + 400_000)
        #expect(metrics.perChannel.isEmpty)
    }

    @Test("per-channel counts by the store's channel index, only when asked")
    func perChannel() throws {
        let metrics = IngestMetrics(countsPerChannel: true)
        let store = ChatStore(capacity: 8)
        for channel in ["a", "b", "a", "a"] {
            try Self.count(metrics, ":x!x@x PRIVMSG #\(channel) :hi", receivedAtMs: 1, store: store)
        }
        try Self.count(metrics, "PING :tmi.twitch.tv", receivedAtMs: 1, store: store)
        #expect(metrics.perChannel == [3, 1])
        #expect(store.log(at: 0)?.name == "a" && store.log(at: 1)?.name == "b")
    }

    @Test("session records: JOIN outcomes, gaps, reconnects after the first connection, the last disconnect")
    func records() {
        let metrics = IngestMetrics(countsPerChannel: false)
        let records: [SessionRecord] = [
            .connected(attempt: 1, at: .epoch), .joined(channel: "a", at: .epoch),
            .joinFailed(channel: "b", reason: .refused(msgId: "msg_banned", text: "banned"), at: .epoch),
            .joinFailed(channel: "c", reason: .timedOut(afterMs: 10_000), at: .epoch),
            .disconnected(.endOfStream, at: Timestamp(milliseconds: 1)),
            .connected(attempt: 2, at: Timestamp(milliseconds: 2)),
            .gap(
                Gap(
                    channel: "a", from: Timestamp(milliseconds: 1), to: Timestamp(milliseconds: 2), reason: .endOfStream
                )),
            .joined(channel: "a", at: Timestamp(milliseconds: 2)),
        ]
        for record in records { metrics.record(record) }
        #expect(metrics.joined == 2 && metrics.refused == 1 && metrics.timedOut == 1)
        #expect(metrics.gaps == 1 && metrics.reconnects == 1)
        #expect(metrics.lastDisconnect == "\(DisconnectReason.endOfStream)")
        metrics.malformed(Array("x".utf8).span)
        metrics.unusable(tooLong: true)
        metrics.unusable(tooLong: false)
        metrics.unusable(tooLong: false)
        #expect(metrics.malformedLines == 1 && metrics.receivedLines == 1 && metrics.receivedBytes == 3)
        #expect(metrics.tooLongLines == 1 && metrics.cutOffLines == 2)
    }
}
