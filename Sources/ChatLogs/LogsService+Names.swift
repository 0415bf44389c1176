import ChatFormat
import ChatHTTP
import ChatLogStore
import ChatStore
import IRCWire

extension LogsService {
    /// `GET /namehistory/<user id>`: the logins the archive's lines give that id, each with the first and
    /// last time it was seen: `[{"user_login":…,"last_timestamp":…,"first_timestamp":…}]`
    /// (`src/web/schema.rs`, `PreviousName`; `get_user_name_history`), oldest first; `[]` for an id no
    /// line carries (rustlog answers its empty list so).
    ///
    /// - Complexity: O(bytes of every channel's files): no index yet (the table: the user's lines).
    func nameHistory(_ id: String) throws(LogsError) -> HTTPResponse {
        let wanted = Array(id.utf8)
        var seen: [String: (first: Timestamp, last: Timestamp)] = [:]
        try read(nil, nil, LineFilter(user: UserSelector(ids: [wanted], login: nil))) { line, bytes in
            guard let login = line.userLogin(in: bytes) else { return true }
            let name = String(decoding: bytes, in: login).lowercased()
            let time = line.timestamp(in: bytes)
            if let known = seen[name] {
                seen[name] = (min(known.first, time), max(known.last, time))
            } else {
                seen[name] = (time, time)
            }
            return true
        }
        var json = JSONWriter(capacity: 256)
        json.beginArray()
        for (login, times) in seen.sorted(by: { ($0.value.first, $0.key) < ($1.value.first, $1.key) }) {
            json.beginObject()
            json.key("user_login")
            json.string(login)
            json.key("last_timestamp")
            json.string(Self.chronoTime(times.last))
            json.key("first_timestamp")
            json.string(Self.chronoTime(times.first))
            json.endObject()
        }
        json.endArray()
        return HTTPResponse(status: 200, contentType: "application/json", body: json.bytes)
    }

    /// A time as chrono writes a UTC `DateTime` in JSON (as ``LogEncoder`` writes `timestamp`).
    static func chronoTime(_ time: Timestamp) -> String {
        var text = time.rfc3339
        if text.hasSuffix(".000Z") { text = String(text.dropLast(5)) + "Z" }
        return text
    }
}
