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
}
