import IRCWire

extension ServeSession {
    /// The server name in every reply's source.
    static let server = "tmi.twitch.tv"

    /// What Twitch sends after a successful login: 001–004 and the MOTD, with Twitch's texts.
    static let welcome: [(code: String, text: String)] = [
        ("001", "Welcome, GLHF!"),
        ("002", "Your host is tmi.twitch.tv"),
        ("003", "This server is rather new"),
        ("004", "-"),
        ("375", "-"),
        ("372", "You are in a maze of twisty passages, all alike."),
        ("376", ">"),
    ]

    /// `nick!nick@nick.tmi.twitch.tv`, the source of a user's JOIN and PART.
    static func prefix(_ nick: String) -> String { "\(nick)!\(nick)@\(nick).\(server)" }

    /// `text` made safe as a middle parameter of a reply: no spaces, no leading `:`, no control
    /// bytes, at most 64 bytes (it echoes what a client sent).
    static func safe(_ text: String) -> String {
        var bytes = Array(text.utf8.prefix(64)).filter { $0 > 0x20 && $0 != 0x7F }
        if bytes.first == UInt8(ascii: ":") { bytes.removeFirst() }
        return bytes.isEmpty ? "*" : String(decoding: bytes, as: UTF8.self)
    }

    /// `text` without control bytes, for a trailing parameter that echoes what a client sent.
    static func printable(_ text: String) -> String {
        String(decoding: text.utf8.filter { $0 >= 0x20 && $0 != 0x7F }, as: UTF8.self)
    }

    /// The user-id every message and state of `login` carries: made up, the same on every run.
    static func userId(of login: String) -> String { RoomDirectory.stableId(login) }

    /// The GLOBALUSERSTATE tags of this client, as Twitch sends them after the login.
    var globalUserStateTags: String {
        let nick = nick ?? "*"
        return "badge-info=;badges=;color=;display-name=\(TagValue.escaping(displayName ?? nick));emote-sets=0;turbo=0;"
            + "user-id=\(Self.userId(of: nick));user-type="
    }

    /// The USERSTATE tags of this client in a channel: after its JOIN, and after each PRIVMSG (with
    /// that message's `id`).
    func userStateTags(id: String?) -> String {
        let nick = nick ?? "*"
        return "badge-info=;badges=;color=;display-name=\(TagValue.escaping(displayName ?? nick));emote-sets=0;"
            + (id.map { "id=\($0);" } ?? "") + "mod=0;subscriber=0;user-type="
    }

    /// The line the other clients of `channel` get for this client's `text`, tagged as Twitch tags a
    /// chat message: the sender's state, no emotes, the message `id`, the room, `tmi-sent-ts` (now).
    /// `/me` (a CTCP ACTION) is kept as sent.
    func relayedPrivmsg(channel: String, text: String, id: String, roomId: String, sentAtMs: Int64) -> String {
        let nick = nick ?? "*"
        let tags =
            "badge-info=;badges=;color=;display-name=\(TagValue.escaping(displayName ?? nick));emotes=;first-msg=0;flags=;"
            + "id=\(id);mod=0;returning-chatter=0;room-id=\(roomId);subscriber=0;tmi-sent-ts=\(sentAtMs);turbo=0;"
            + "user-id=\(Self.userId(of: nick));user-type="
        return "@\(tags) :\(Self.prefix(nick)) PRIVMSG #\(channel) :\(text)"
    }

}
