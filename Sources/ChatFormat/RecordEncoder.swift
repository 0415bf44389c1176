import ChatStore
import IRCWire
public import TwitchSession

/// Session records as NDJSON objects of our own types: `gap` (a channel was not captured from
/// `from` to `to`) and `session` (connected, capabilities, joined, join_failed, parted,
/// disconnected, reconnect, fatal; `detail` is the record's description). Common fields as for chat lines:
/// `type`, `channel`, `ts`, `about` (always `null`). `replay` writes capture's stored records in the
/// same two forms (``CaptureRecordLine``).
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
            out.timestamp(gap.to)
            out.key("about")
            out.null()
            out.key("from")
            out.timestamp(gap.from)
            out.key("to")
            out.timestamp(gap.to)
            out.key("duration_ms")
            out.number(gap.durationMs)
            out.key("reason")
            out.string(gap.reason.description)
            if let backfill = gap.backfill {
                out.key("backfill")
                out.string(backfill.state)
                out.key("recovered")
                out.number(Int64(backfill.recoveredCount))
                switch backfill {
                case .recovered(_, .partial(let from, let to)):
                    out.key("missing_from")
                    out.timestamp(from)
                    out.key("missing_to")
                    out.timestamp(to)
                case .failed(let why):
                    out.key("backfill_error")
                    out.string(why)
                case .recovered(_, .closed): break
                }
            }
        default:
            out.key("type")
            out.string("session")
            let (event, channel, at, detail) = fields(record)
            out.key("channel")
            if let channel { out.string(channel) } else { out.null() }
            out.key("ts")
            out.timestamp(at)
            out.key("about")
            out.null()
            out.key("event")
            out.string(event)
            out.key("detail")
            out.string(detail)
        }
        out.endObject()
        out.raw(byte: 0x0A)
    }

    /// The event, channel, time and detail of a record: the detail is its description, the text
    /// `capture` stores for it, so that `tail` and a replayed capture write the same record.
    private static func fields(_ r: SessionRecord) -> (String, String?, Timestamp, String) {
        let (event, channel, at): (String, String?, Timestamp) =
            switch r {
            case .connected(_, let at): ("connected", nil, at)
            case .capabilities(_, let at): ("capabilities", nil, at)
            case .joined(let channel, let at): ("joined", channel, at)
            case .joinFailed(let channel, _, let at): ("join_failed", channel, at)
            case .parted(let channel, let at): ("parted", channel, at)
            case .disconnected(_, let at): ("disconnected", nil, at)
            case .reconnectScheduled(_, _, let at): ("reconnect", nil, at)
            case .fatal(_, let at): ("fatal", nil, at)
            case .gap(let gap): ("gap", gap.channel, gap.to)
            }
        return (event, channel, at, r.description)
    }
}
