import ChatFormat
import ChatHTTP
import ChatLogStore
import IRCWire
import Synchronization

extension LogsService {
    /// `GET /channels`: `{"channels":[{"name":…,"userID":…}]}` (`src/web/schema.rs`, `ChannelsList`),
    /// one per channel of the store, the id from its lines' `room-id` (empty when none of its lines has one).
    func channelList() throws(LogsError) -> HTTPResponse {
        var json = JSONWriter(capacity: 1024)
        json.beginObject()
        json.key("channels")
        json.beginArray()
        for login in try store.channels() where try !isOptedOut(channel: login) {
            json.beginObject()
            json.key("name")
            json.string(login)
            json.key("userID")
            json.string(try roomId(of: login) ?? "")
            json.endObject()
        }
        json.endArray()
        json.endObject()
        return HTTPResponse(
            status: 200, contentType: "application/json", body: json.bytes, headers: [Self.listCache])
    }

    /// `GET /list?channel=|channelid=[&user=|userid=]`: `{"availableLogs":[{"year":…,"month":…,"day":…}]}`
    /// newest first, `day` only for a channel (`src/web/schema.rs`, `AvailableLogs`; `src/db/mod.rs`,
    /// `read_available_*_logs`); 404 when there are none (`src/web/handlers.rs`, `list_available_logs`).
    func availableLogs(_ channel: String, _ user: LogsRoute.User?) throws(LogsError) -> HTTPResponse {
        var json = JSONWriter(capacity: 1024)
        json.beginObject()
        json.key("availableLogs")
        json.beginArray()
        var any = false
        // One entry: `{"year":"2025","month":"11"[,"day":"21"]}`, numbers as strings as rustlog writes them.
        func entry(year: Int, month: Int, day: Int?) {
            any = true
            json.beginObject()
            json.key("year")
            json.string(String(year))
            json.key("month")
            json.string(String(month))
            if let day {
                json.key("day")
                json.string(String(day))
            }
            json.endObject()
        }
        if let user {
            let selector = try self.selector(for: user, in: channel, preferring: nil)
            for month in try store.months(of: channel, with: selector) {
                entry(year: month.year, month: month.month, day: nil)
            }
        } else {
            for day in try store.days(of: channel) { entry(year: day.year, month: day.month, day: day.day) }
        }
        guard any else { throw .notFound }
        json.endArray()
        json.endObject()
        return HTTPResponse(
            status: 200, contentType: "application/json", body: json.bytes, headers: [Self.listCache])
    }

    /// Who `user` is in `channel`: by id as given; by login, the id the channel's lines give that login
    /// (as rustlog asks Twitch for a login's id), looked for first on `preferred` days (the month asked
    /// for), then on the channel's other days newest first (``LogStore/userId(of:in:preferring:)``).
    ///
    /// - Throws: ``LogsError/notFound`` for a login no line of the channel names,
    ///   ``LogsError/userOptedOut`` for a user (login or id) on the opt-out list, a store's failure.
    func selector(
        for user: LogsRoute.User, in channel: String, preferring preferred: ClosedRange<LogDay>?
    ) throws(LogsError) -> UserSelector {
        switch user {
        case .id(let id):
            if optOut.ids.contains(id) { throw .userOptedOut }
            return UserSelector(ids: [Array(id.utf8)], login: nil)
        case .name(let name):
            let list = optOut
            if list.logins.contains(name) { throw .userOptedOut }
            let login = Array(name.utf8)
            let (id, named) = try store.userId(of: login, in: channel, preferring: preferred)
            guard named || id != nil else { throw .notFound }
            if let id, list.ids.contains(String(decoding: id, as: UTF8.self)) { throw .userOptedOut }
            return UserSelector(ids: id.map { [$0] } ?? [], login: login)
        }
    }
}
