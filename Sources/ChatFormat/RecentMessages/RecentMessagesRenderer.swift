public import ChatStore
public import IRCWire

/// Renders the answer of `GET /api/v2/recent-messages/<login>` from a channel's ring in a
/// ``ChatStore``, while the store's owner keeps appending:
///
/// ```json
/// {"messages":["@rm-received-ts=…;historical=1;… PRIVMSG #c :hi", …],"error":null,"error_code":null}
/// ```
///
/// The lines are the channel's newest kept lines of the kinds the service exports (see
/// ``isExported(_:_:in:)``), oldest first: at most `limit` of them (the query's, never more than the
/// caller's bound), then without moderation lines and moderated lines when the query asks, each
/// written by ``HistoricalLine``. A line is `rm-deleted` when a CLEARMSG or CLEARCHAT marked it in the
/// store (its ``Tombstone``), or when a later CLEARCHAT cleared the whole chat (every exported
/// line before it, as the service does).
///
/// Reading: two walks over the ring's live range, each entry borrowed on its own through
/// ``EntryRing/withEntry(_:reader:_:)``, so the owner waits for a reader (when it evicts exactly
/// the entry being read) for at most one line's copy; never a lock, never a copy of the ring. An
/// entry evicted between the walks is left out (the answer is then one line shorter, as if asked a
/// moment later).
///
/// Not thread-safe: one renderer per thread, holding one of the store's reader slots for its life.
public final class RecentMessagesRenderer {
    /// The service's own bound: 500 lines per channel.
    public static let defaultLimit = 500
    public static let notJoinedError: StaticString =
        "The bot is currently not joined to this channel (in progress or failed previously)"
    public static let notJoinedCode: StaticString = "channel_not_joined"

    private let store: ChatStore
    private let reader: Reader
    private var json = JSONWriter(capacity: 64 * 1024)
    private var line: [UInt8] = []
    private var selected: [UInt64] = []

    /// - Returns: `nil` when every reader slot of `store` is taken.
    public init?(store: ChatStore) {
        guard let reader = store.readers.makeReader() else { return nil }
        self.store = store
        self.reader = reader
        line.reserveCapacity(16 * 1024)
    }

    /// The JSON body for `channel` (a login): its lines, or none when the store has no log of it;
    /// `error` and `error_code` are the service's "not joined" pair when `joined` is false.
    ///
    /// - Parameter bound: the most lines this service keeps per channel (the cap of `limit`).
    /// - Complexity: O(live entries of the channel + bytes written).
    /// - Allocations: the returned array; the JSON buffer grows to the longest answer once.
    public func body(channel: String, query: RecentMessagesQuery, bound: Int, joined: Bool) -> [UInt8] {
        json.reset()
        json.beginObject()
        json.key("messages")
        json.beginArray()
        if let log = store.log(named: channel) { writeLines(of: log.ring, query: query, bound: bound) }
        json.endArray()
        json.key("error")
        if joined { json.null() } else { json.string(Self.notJoinedError) }
        json.key("error_code")
        if joined { json.null() } else { json.string(Self.notJoinedCode) }
        json.endObject()
        return json.bytes
    }

    private func writeLines(of ring: EntryRing, query: RecentMessagesQuery, bound: Int) {
        let live = ring.liveRange
        selected.removeAll(keepingCapacity: true)
        var lastClearAll: UInt64 = 0
        var seq = live.lowerBound
        while seq < live.upperBound {
            let lookup = ring.withEntry(seq, reader: reader) { info, bytes -> (exported: Bool, clearsAll: Bool) in
                guard Self.isExported(info.command, info.parsed, in: bytes) else { return (false, false) }
                let clearsAll =
                    info.command == .clearchat
                    && TwitchMessage(info.parsed, in: bytes).clearChat(in: bytes)?.action == .clearAll
                return (true, clearsAll)
            }
            if case .found(let found) = lookup, found.exported {
                selected.append(seq)
                if found.clearsAll { lastClearAll = seq }
            }
            seq += 1
        }
        let count = min(selected.count, max(0, min(query.limit ?? bound, bound)))
        for seq in selected[(selected.count - count)...] {
            _ = ring.withEntry(seq, reader: reader) { info, bytes in
                let deleted = !info.tombstone.isEmpty || seq < lastClearAll
                if query.hideModeratedMessages && deleted { return }
                if query.hideModerationMessages && (info.command == .clearchat || info.command == .clearmsg) { return }
                HistoricalLine.write(
                    bytes, message: TwitchMessage(info.parsed, in: bytes), receivedAt: info.receivedAt,
                    deleted: deleted, clearchatToNotice: query.clearchatToNotice, into: &line)
                let written = line  // shared, not copied: a span of a local outlives no property access
                guard written.count <= Int(UInt16.max) else { return }  // lines are at most 16 KiB and a few tags
                json.string(written.span, ByteRange(0..<written.count))
            }
        }
    }

    /// Whether the service hands out a line of this kind: PRIVMSG, CLEARCHAT, CLEARMSG, USERNOTICE,
    /// ROOMSTATE, and NOTICE except the kinds it leaves out (`msg-id` `no_permission`, `host_on`,
    /// `host_off`, `host_target_went_offline`, `msg_channel_suspended`).
    ///
    /// - Complexity: O(1), O(tag bytes) for a NOTICE. - Allocations: none.
    public static func isExported(_ command: TwitchCommand, _ parsed: ParsedLine, in bytes: Span<UInt8>) -> Bool {
        switch command {
        case .privmsg, .clearchat, .clearmsg, .usernotice, .roomstate:
            return true
        case .notice:
            guard let id = parsed.tag("msg-id", in: bytes) else { return true }
            let value = bytes.extracting(id.raw.range)
            return
                !(value.equals("no_permission") || value.equals("host_on") || value.equals("host_off")
                || value.equals("host_target_went_offline") || value.equals("msg_channel_suspended"))
        default:
            return false
        }
    }
}

@available(*, unavailable)
extension RecentMessagesRenderer: Sendable {}
