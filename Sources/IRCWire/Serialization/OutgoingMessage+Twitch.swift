extension OutgoingMessage {
    /// The capabilities Twitch chat clients request.
    public static let twitchCapabilities = ["twitch.tv/tags", "twitch.tv/commands", "twitch.tv/membership"]

    /// `CAP REQ :caps…`
    public static func capabilityRequest(_ capabilities: [String] = twitchCapabilities) -> OutgoingMessage {
        OutgoingMessage(verb: "CAP", params: ["REQ", capabilities.joined(separator: " ")])
    }

    /// `PASS oauth:…`: marked secret so that it never reaches a log.
    public static func pass(token: String) -> OutgoingMessage {
        let value = token.hasPrefix("oauth:") ? token : "oauth:" + token
        return OutgoingMessage(verb: "PASS", params: [value], isSecret: true)
    }

    /// `NICK login`
    public static func nick(_ login: String) -> OutgoingMessage { OutgoingMessage(verb: "NICK", params: [login]) }

    /// `USER login 0 * :login`: completes registration on standard IRC servers (Twitch ignores it).
    public static func user(_ login: String) -> OutgoingMessage {
        OutgoingMessage(verb: "USER", params: [login, "0", "*", login])
    }

    /// `CAP END`: ends capability negotiation.
    public static func capabilityEnd() -> OutgoingMessage { OutgoingMessage(verb: "CAP", params: ["END"]) }

    /// `JOIN #a,#b` for channel logins given with or without `#`.
    public static func join(_ channels: [String]) -> OutgoingMessage {
        OutgoingMessage(verb: "JOIN", params: [channels.map(hashed).joined(separator: ",")])
    }

    /// `PART #channel`
    public static func part(_ channel: String) -> OutgoingMessage {
        OutgoingMessage(verb: "PART", params: [hashed(channel)])
    }

    /// `PONG :token`, answering a PING.
    public static func pong(_ token: String) -> OutgoingMessage { OutgoingMessage(verb: "PONG", params: [token]) }

    /// `PING :token`, our own liveness probe.
    public static func ping(_ token: String) -> OutgoingMessage { OutgoingMessage(verb: "PING", params: [token]) }

    /// `PRIVMSG #channel :text`, optionally as a reply (`@reply-parent-msg-id=…`).
    public static func privmsg(channel: String, text: String, replyTo parentId: String? = nil) -> OutgoingMessage {
        OutgoingMessage(
            tags: parentId.map { [OutgoingTag("reply-parent-msg-id", $0)] } ?? [], verb: "PRIVMSG",
            params: [hashed(channel), text])
    }

    private static func hashed(_ channel: String) -> String {
        channel.hasPrefix("#") ? channel.lowercased() : "#" + channel.lowercased()
    }
}
