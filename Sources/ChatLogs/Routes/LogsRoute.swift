public import ChatLogStore

/// What a request to the logs API asks, read from its path (and, for `/list`, its query) the way
/// rustlog routes it (`src/web/mod.rs`): `/channels`, `/capabilities`, `/list`, `/namehistory/<id>`,
/// `/{channel|channelid}/<c>`, `/<…>/<y>/<m>/<d>`, `/<…>/random`, `/<…>/{user|userid}/<u>`,
/// `/<…>/{user|userid}/<u>/<y>/<m>`, `/<…>/{user|userid}/<u>/{random|search|stats}`, `/<…>/stats`. A
/// trailing `/` is
/// dropped (rustlog's `NormalizePath::trim_trailing_slash`).
///
/// Names are checked here, before anything touches the archive: a channel or user name must be a
/// login (``LogName/login(_:)``, lowered), an id decimal digits; anything else is ``LogsError/notFound``
/// (rustlog answers an unknown name so, after asking Twitch), so `..`, `_session` or a `/` hidden in
/// a segment never reach a path.
public enum LogsRoute: Sendable, Equatable {
    /// A channel, by login or by id (`room-id`).
    public enum Channel: Sendable, Equatable {
        case name(String)
        case id(String)
    }

    /// A user, by login or by id (`user-id`).
    public enum User: Sendable, Equatable {
        case name(String)
        case id(String)
    }

    case channels
    /// `GET /capabilities`: `["arbitrary-range-query"]` (rustlog's `capabilities`).
    case capabilities
    case list(Channel, User?)
    case channelLatest(Channel)
    case channelDay(Channel, LogDay)
    case userLatest(Channel, User)
    case userMonth(Channel, User, LogMonth)
    /// `GET /<…>/random`: one line of the channel, at random (rustlog's `random_channel_line`).
    case channelRandom(Channel)
    /// `GET /<…>/{user|userid}/<u>/random`: one of the user's lines, at random (`random_user_line`).
    case userRandom(Channel, User)
    /// `GET /<…>/{user|userid}/<u>/search?q=`: the user's lines whose text holds `q` (`search_user_logs`).
    case userSearch(Channel, User)
    /// `GET /namehistory/<user id>`: the logins the user's lines carry (`get_user_name_history`).
    case nameHistory(String)
    /// `GET /<…>/stats`: lines and top chatters of the channel (`get_channel_stats`).
    case channelStats(Channel)
    /// `GET /<…>/{user|userid}/<u>/stats`: the user's line count in the channel (`get_user_stats`).
    case userStats(Channel, User)

    /// The route of `path` (percent-decoded, without the query); `query` reads `/list`'s arguments.
    ///
    /// - Throws: ``LogsError``: `notFound` for a path that is no route or names no possible channel
    ///   or user, `parseInt`/`invalidParam` for a date that is not one, `query` for `/list` without a
    ///   channel.
    /// - Complexity: O(path length). - Allocations: the segments.
    public init(path: String, query: (String) -> String??) throws(LogsError) {
        var trimmed = Substring(path)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard trimmed.hasPrefix("/") else { throw .notFound }
        let parts = trimmed.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        if parts == ["channels"] {
            self = .channels
            return
        }
        if parts == ["capabilities"] {
            self = .capabilities
            return
        }
        if parts.count == 2 && parts[0] == "namehistory" {
            guard Self.isId(parts[1]) else { throw .notFound }
            self = .nameHistory(String(parts[1]))
            return
        }
        if parts == ["list"] {
            let channel: Channel
            if let name = query("channel") {
                channel = try Self.channel(.name, Substring(name ?? ""))
            } else if let id = query("channelid") {
                channel = try Self.channel(.id, Substring(id ?? ""))
            } else {
                throw .query("missing field `channel` or `channelid`")
            }
            var user: User? = nil
            if let name = query("user") {
                user = try Self.user(isId: false, Substring(name ?? ""))
            } else if let id = query("userid") {
                user = try Self.user(isId: true, Substring(id ?? ""))
            }
            self = .list(channel, user)
            return
        }
        guard parts.count >= 2 else { throw .notFound }
        let kind: ChannelKind
        switch parts[0] {
        case "channel": kind = .name
        case "channelid": kind = .id
        default: throw .notFound
        }
        let channel = try Self.channel(kind, parts[1])
        switch parts.count {
        case 2:
            self = .channelLatest(channel)
        case 3 where parts[2] == "random":
            self = .channelRandom(channel)
        case 3 where parts[2] == "stats":
            self = .channelStats(channel)
        case 4 where parts[2] == "user" || parts[2] == "userid":
            self = .userLatest(channel, try Self.user(isId: parts[2] == "userid", parts[3]))
        case 5 where (parts[2] == "user" || parts[2] == "userid") && parts[4] == "random":
            self = .userRandom(channel, try Self.user(isId: parts[2] == "userid", parts[3]))
        case 5 where (parts[2] == "user" || parts[2] == "userid") && parts[4] == "search":
            self = .userSearch(channel, try Self.user(isId: parts[2] == "userid", parts[3]))
        case 5 where (parts[2] == "user" || parts[2] == "userid") && parts[4] == "stats":
            self = .userStats(channel, try Self.user(isId: parts[2] == "userid", parts[3]))
        case 5:
            let y = try LogsError.number(parts[2])
            let m = try LogsError.number(parts[3])
            let d = try LogsError.number(parts[4])
            guard let day = LogDay(year: y, month: m, day: d) else { throw .invalidParam("Invalid date") }
            self = .channelDay(channel, day)
        case 6 where parts[2] == "user" || parts[2] == "userid":
            let user = try Self.user(isId: parts[2] == "userid", parts[3])
            let y = try LogsError.number(parts[4])
            let m = try LogsError.number(parts[5])
            guard let month = LogMonth(year: y, month: m) else { throw .invalidParam("Invalid date") }
            self = .userMonth(channel, user, month)
        default:
            throw .notFound
        }
    }

    private enum ChannelKind { case name, id }

    private static func channel(_ kind: ChannelKind, _ text: Substring) throws(LogsError) -> Channel {
        switch kind {
        case .name:
            guard let login = LogName.login(text) else { throw .notFound }
            return .name(login)
        case .id:
            guard isId(text) else { throw .notFound }
            return .id(String(text))
        }
    }

    private static func user(isId: Bool, _ text: Substring) throws(LogsError) -> User {
        if isId {
            guard Self.isId(text) else { throw .notFound }
            return .id(String(text))
        }
        guard let login = LogName.login(text) else { throw .notFound }
        return .name(login)
    }

    /// Twitch ids are decimal numbers (``LogName/isId(_:)``).
    static func isId(_ text: Substring) -> Bool { LogName.isId(text) }
}
