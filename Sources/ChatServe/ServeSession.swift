import TwitchSession

/// The server side of one client's chat session: capability negotiation, login, joins, PING, as
/// Twitch's IRC server answers them. A value that takes client commands and returns ``ServeAction``s;
/// it never touches a socket, so it is tested with plain values.
///
/// ```
///  connected ──NICK──▶ registered (001…376 sent) ──JOIN #a──▶ joined [a] ──PART #a──▶ joined []
///      │  CAP LS: registration waits for CAP END (IRCv3); CAP REQ alone does not (Twitch)
/// ```
/// PASS is accepted and forgotten (never stored or reported). Commands other than CAP, PASS, NICK,
/// USER, PING, PONG and QUIT are ignored before registration; afterwards an unknown one gets 421.
/// Lines with tags are sent without them unless the client acknowledged `twitch.tv/tags`.
struct ServeSession: Sendable {
    /// The capabilities offered by `CAP LS` and acknowledged by `CAP REQ`.
    static let capabilities = ["twitch.tv/tags", "twitch.tv/commands", "twitch.tv/membership"]

    /// The login, lower case, once NICK was sent.
    private(set) var nick: String?
    private(set) var isRegistered = false
    /// `CAP LS` was sent and `CAP END` not yet: registration waits.
    private(set) var isNegotiating = false
    /// What `CAP REQ` acknowledged.
    private(set) var capabilities: Set<String> = []
    /// Joined channels (lower-case logins without `#`), in join order.
    private(set) var channels: [String] = []

    /// Whether lines go out with their IRCv3 tags.
    var sendsTags: Bool { capabilities.contains("twitch.tv/tags") }

    init() {}

    /// Answers one client command.
    ///
    /// - Parameters:
    ///   - refused: channels whose JOIN gets the `msg_channel_suspended` NOTICE.
    ///   - rooms: room ids for the ROOMSTATE a JOIN gets.
    /// - Complexity: O(parameters + joined channels). - Allocations: the reply lines.
    mutating func receive(_ command: ClientCommand, refused: Set<String>, rooms: RoomDirectory) -> [ServeAction] {
        var actions: [ServeAction] = []
        switch command.verb {
        case "CAP":
            capability(command.params, &actions)
        case "PASS", "USER", "PONG":
            break
        case "NICK":
            guard let login = command.params.first.map({ $0.lowercased() }), !isRegistered else { break }
            guard Login.isValid(login) else {
                actions.append(.send(":\(Self.server) 432 * \(Self.safe(login)) :Erroneous nickname"))
                break
            }
            nick = login
            if !isNegotiating { register(&actions) }
        case "PING":
            let token = Self.printable(command.params.last ?? Self.server)
            actions.append(.send(":\(Self.server) PONG \(Self.server) :\(token)"))
        case "QUIT":
            actions.append(.quit)
        case "JOIN" where isRegistered:
            for name in (command.params.first ?? "").split(separator: ",") {
                join(Login.normalize(name), refused: refused, rooms: rooms, &actions)
            }
        case "PART" where isRegistered:
            for name in (command.params.first ?? "").split(separator: ",") {
                let channel = Login.normalize(name)
                guard let index = channels.firstIndex(of: channel), let nick else { continue }
                channels.remove(at: index)
                actions.append(.send(":\(Self.prefix(nick)) PART #\(channel)"))
                actions.append(.parted(channel))
            }
        case "PRIVMSG" where isRegistered:
            guard command.params.count >= 2 else { break }
            actions.append(.said(channel: Login.normalize(command.params[0]), text: command.params[1]))
        case _ where isRegistered:
            actions.append(.send(":\(Self.server) 421 \(nick ?? "*") \(Self.safe(command.verb)) :Unknown command"))
        default:
            break
        }
        return actions
    }

    private mutating func capability(_ params: [String], _ actions: inout [ServeAction]) {
        switch params.first?.uppercased() {
        case "LS":
            if !isRegistered { isNegotiating = true }
            actions.append(.send(":\(Self.server) CAP * LS :\(Self.capabilities.joined(separator: " "))"))
        case "REQ":
            let requested = params.dropFirst().joined(separator: " ").split(separator: " ").map(String.init)
            let known = requested.allSatisfy {
                Self.capabilities.contains($0.hasPrefix("-") ? String($0.dropFirst()) : $0)
            }
            guard known, !requested.isEmpty else {
                actions.append(.send(":\(Self.server) CAP * NAK :\(requested.map(Self.safe).joined(separator: " "))"))
                return
            }
            for capability in requested {
                if capability.hasPrefix("-") {
                    capabilities.remove(String(capability.dropFirst()))
                } else {
                    capabilities.insert(capability)
                }
            }
            actions.append(.send(":\(Self.server) CAP * ACK :\(requested.joined(separator: " "))"))
        case "LIST":
            let list = Self.capabilities.filter(capabilities.contains).joined(separator: " ")
            actions.append(.send(":\(Self.server) CAP * LIST :\(list)"))
        case "END":
            guard isNegotiating else { return }
            isNegotiating = false
            if nick != nil { register(&actions) }
        default:
            break
        }
    }

    private mutating func register(_ actions: inout [ServeAction]) {
        guard !isRegistered, let nick else { return }
        isRegistered = true
        for (code, text) in Self.welcome {
            actions.append(.send(":\(Self.server) \(code) \(nick) :\(text)"))
        }
    }

    private mutating func join(
        _ channel: String, refused: Set<String>, rooms: RoomDirectory, _ actions: inout [ServeAction]
    ) {
        guard let nick, Login.isValid(channel) else { return }
        if refused.contains(channel) {
            actions.append(
                .send(
                    tagged(
                        "msg-id=msg_channel_suspended",
                        ":\(Self.server) NOTICE #\(channel) :This channel does not exist or has been suspended.")))
            actions.append(.refused(channel))
            return
        }
        if !channels.contains(channel) { channels.append(channel) }
        actions.append(.send(":\(Self.prefix(nick)) JOIN #\(channel)"))
        actions.append(.send(":\(nick).\(Self.server) 353 \(nick) = #\(channel) :\(nick)"))
        actions.append(.send(":\(nick).\(Self.server) 366 \(nick) #\(channel) :End of /NAMES list"))
        actions.append(
            .send(
                tagged(
                    "emote-only=0;followers-only=-1;r9k=0;room-id=\(rooms.id(of: channel));slow=0;subs-only=0",
                    ":\(Self.server) ROOMSTATE #\(channel)")))
        actions.append(.joined(channel))
    }

    /// `@tags rest` for a client that acknowledged `twitch.tv/tags`, else `rest`.
    func tagged(_ tags: String, _ rest: String) -> String {
        sendsTags ? "@\(tags) \(rest)" : rest
    }
}
