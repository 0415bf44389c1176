import ChatFormat
import ChatHTTP
import IRCWire
import Synchronization

extension LogsService {
    /// `GET /channels`: `{"channels":[{"name":…,"userID":…}]}` (`src/web/schema.rs`, `ChannelsList`),
    /// one per channel folder, the id from its lines' `room-id` (empty when none of its lines has one).
    func channelList() -> HTTPResponse {
        var json = JSONWriter(capacity: 1024)
        json.beginObject()
        json.key("channels")
        json.beginArray()
        for login in (try? archive.channels()) ?? [] where !isOptedOut(channel: login) {
            json.beginObject()
            json.key("name")
            json.string(login)
            json.key("userID")
            json.string(roomId(of: login) ?? "")
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
            let selector = try self.selector(for: user, in: channel, preferring: [])
            for month in months(of: channel, with: selector) { entry(year: month.year, month: month.month, day: nil) }
        } else {
            for day in archive.days(of: channel) { entry(year: day.year, month: day.month, day: day.day) }
        }
        guard any else { throw .notFound }
        json.endArray()
        json.endObject()
        return HTTPResponse(
            status: 200, contentType: "application/json", body: json.bytes, headers: [Self.listCache])
    }

    /// The `room-id` of `channel`'s lines, from its newest file that has one (remembered).
    ///
    /// - Complexity: O(1) once known; else the lines of the channel's files, newest first, up to the
    ///   first served one.
    func roomId(of channel: String) -> String? {
        if let known = roomIds.withLock({ $0[channel] }) { return known }
        var found: String? = nil
        var reader = ArchiveReader()
        for file in archive.files(of: channel).reversed() {
            reader.read([file.path]) { line, bytes in
                guard let id = line.roomId else { return true }
                found = String(decoding: bytes, in: id.raw)
                return false
            }
            if found != nil { break }
        }
        if let found { roomIds.withLock { $0[channel] = found } }
        return found
    }

    /// Who `user` is in `channel`: by id as given; by login, the id the channel's lines give that login
    /// (as rustlog asks Twitch for a login's id), looked for first in `preferred` files (the month asked
    /// for), then in the channel's other files newest first, reading up to the first line that gives it.
    ///
    /// - Throws: ``LogsError/notFound`` for a login no line of the channel names,
    ///   ``LogsError/userOptedOut`` for a user (login or id) on the opt-out list.
    func selector(
        for user: LogsRoute.User, in channel: String, preferring preferred: [String]
    ) throws(LogsError) -> UserSelector {
        switch user {
        case .id(let id):
            if optOut.ids.contains(id) { throw .userOptedOut }
            return UserSelector(ids: [Array(id.utf8)], login: nil)
        case .name(let name):
            let list = optOut
            if list.logins.contains(name) { throw .userOptedOut }
            let login = Array(name.utf8)
            var ids: [[UInt8]] = []
            var named = false
            var reader = ArchiveReader()
            func look(_ paths: [String]) {
                reader.read(paths) { line, bytes in
                    if let user = line.userLogin(in: bytes), bytes.equals(lowercased: login, at: user.range) {
                        named = true
                    }
                    if let id = UserSelector.id(of: login, in: line, bytes) { ids.append(id) }
                    return ids.isEmpty  // a login names one account: its first id is the user's
                }
            }
            look(preferred)
            if ids.isEmpty {
                for file in archive.files(of: channel).reversed() where !preferred.contains(file.path) {
                    look([file.path])
                    if !ids.isEmpty { break }
                }
            }
            guard named || !ids.isEmpty else { throw .notFound }
            if ids.contains(where: { list.ids.contains(String(decoding: $0, as: UTF8.self)) }) { throw .userOptedOut }
            return UserSelector(ids: ids, login: login)
        }
    }

    /// The months with lines of `selector`'s user in `channel`, newest first.
    ///
    /// - Complexity: per month, its files newest first up to the user's first line.
    func months(of channel: String, with selector: UserSelector) -> [LogMonth] {
        var byMonth: [(LogMonth, [String])] = []
        for file in archive.files(of: channel).reversed() {
            let month = file.day.logMonth
            if byMonth.last?.0 == month {
                byMonth[byMonth.count - 1].1.append(file.path)
            } else {
                byMonth.append((month, [file.path]))
            }
        }
        var found: [LogMonth] = []
        var reader = ArchiveReader()
        for (month, paths) in byMonth {
            for path in paths {
                var hit = false
                reader.read([path]) { line, bytes in
                    hit = selector.matches(line, in: bytes)
                    return !hit
                }
                if hit {
                    found.append(month)
                    break
                }
            }
        }
        return found
    }
}
