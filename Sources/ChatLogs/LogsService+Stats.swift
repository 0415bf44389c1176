import ChatFormat
import ChatHTTP
import ChatLogStore
import ChatStore
import IRCWire

extension LogsService {
    /// `GET /<…>/stats[?from=&to=]`: `{"messageCount":N,"topChatters":[{"userId":…,"userLogin":…,
    /// "messageCount":…}]}` (`src/web/schema.rs`, `ChannelLogsStats`, `UserLogsStats`): the channel's
    /// served lines (in the range, when given) and the five user ids with the most, each with the last
    /// login seen for it (`get_channel_stats`: `GROUP BY user_id ORDER BY cnt DESC LIMIT 5`). Lines
    /// without a user id are counted in `messageCount` only.
    ///
    /// - Complexity: O(bytes of the channel's lines, or of the range's): no index yet.
    func channelStats(_ channel: String, _ query: LogsQuery) throws(LogsError) -> HTTPResponse {
        var total = 0
        var byId: [String: (count: Int, login: String?)] = [:]
        try read(channel, query.range.map(LogSelection.daysAround), filter(window: query.range)) { line, bytes in
            total += 1
            guard let id = line.userId, !id.raw.isEmpty else { return true }
            let key = String(decoding: bytes, in: id.raw)
            let login = line.userLogin(in: bytes).map { String(decoding: bytes, in: $0) }
            let known = byId[key]
            byId[key] = ((known?.count ?? 0) + 1, login ?? known?.login)
            return true
        }
        let top = byId.sorted { ($0.value.count, $1.key) > ($1.value.count, $0.key) }.prefix(5)
        var json = JSONWriter(capacity: 512)
        json.beginObject()
        json.key("messageCount")
        json.number(total)
        json.key("topChatters")
        json.beginArray()
        for (id, entry) in top {
            Self.userStats(&json, id: id, login: entry.login, count: entry.count)
        }
        json.endArray()
        json.endObject()
        return HTTPResponse(status: 200, contentType: "application/json", body: json.bytes)
    }

    /// `GET /<…>/{user|userid}/<u>/stats[?from=&to=]`: `{"userId":…,"userLogin":…,"messageCount":N}`
    /// (`UserLogsStats`; `get_user_stats`): the user's lines in the channel (in the range, when given).
    ///
    /// - Complexity: O(bytes of the channel's lines, or of the range's; the table: the user's lines).
    func userStats(_ channel: String, _ user: LogsRoute.User, _ query: LogsQuery) throws(LogsError) -> HTTPResponse {
        let days = query.range.map(LogSelection.daysAround)
        let selector = try self.selector(for: user, in: channel, preferring: nil)
        var count = 0
        var login: String? = nil
        try read(channel, days, filter(user: selector, window: query.range)) { line, bytes in
            count += 1
            if let name = line.userLogin(in: bytes) { login = String(decoding: bytes, in: name) }
            return true
        }
        let id: String
        switch user {
        case .id(let given): id = given
        case .name(let name):
            id = selector.ids.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
            if login == nil { login = name }
        }
        var json = JSONWriter(capacity: 128)
        Self.userStats(&json, id: id, login: login, count: count)
        return HTTPResponse(status: 200, contentType: "application/json", body: json.bytes)
    }

    /// One `UserLogsStats` object: `userId`, `userLogin` (null when unknown), `messageCount`.
    private static func userStats(_ json: inout JSONWriter, id: String, login: String?, count: Int) {
        json.beginObject()
        json.key("userId")
        json.string(id)
        json.key("userLogin")
        if let login { json.string(login) } else { json.null() }
        json.key("messageCount")
        json.number(count)
        json.endObject()
    }
}
