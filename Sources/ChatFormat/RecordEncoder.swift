import ChatStore
import IRCWire
public import TwitchSession

/// Session records as NDJSON objects of our own types: `gap` (a channel was not captured from
/// `from` to `to`) and `session` (connected, capabilities, joined, join_failed, disconnected,
/// reconnect, fatal). Common fields as for chat lines: `type`, `channel`, `ts`.
public enum RecordEncoder: Sendable {
    public static func encode(_ record: SessionRecord, into out: inout JSONWriter) {
        out.beginObject()
        switch record {
        case .gap(let gap):
            out.key("type")
            out.string("gap")
            out.key("channel")
            out.string(gap.channel)
            out.key("ts")
            out.timestamp(Timestamp(milliseconds: gap.toWallMs))
            out.key("from")
            out.timestamp(Timestamp(milliseconds: gap.fromWallMs))
            out.key("to")
            out.timestamp(Timestamp(milliseconds: gap.toWallMs))
            out.key("duration_ms")
            out.number(gap.durationMs)
            out.key("reason")
            out.string(gap.reason.description)
        default:
            out.key("type")
            out.string("session")
            let (event, channel, at, detail) = fields(record)
            out.key("channel")
            if let channel { out.string(channel) } else { out.null() }
            out.key("ts")
            out.timestamp(Timestamp(milliseconds: at))
            out.key("event")
            out.string(event)
            out.key("detail")
            out.string(detail)
        }
        out.endObject()
        out.raw(byte: 0x0A)
    }

    private static func fields(_ r: SessionRecord) -> (String, String?, Int64, String) {
        switch r {
        case .connected(let attempt, let at): ("connected", nil, at, "connection \(attempt)")
        case .capabilities(let outcome, let at): ("capabilities", nil, at, outcome.description)
        case .joined(let channel, let at): ("joined", channel, at, "joined #\(channel)")
        case .joinFailed(let channel, let reason, let at): ("join_failed", channel, at, reason.description)
        case .disconnected(let reason, let at): ("disconnected", nil, at, reason.description)
        case .reconnectScheduled(let after, let attempt, let at):
            ("reconnect", nil, at, "in \(after) ms (attempt \(attempt))")
        case .fatal(let message, let at): ("fatal", nil, at, message)
        case .gap(let gap): ("gap", gap.channel, gap.toWallMs, gap.description)
        }
    }
}
