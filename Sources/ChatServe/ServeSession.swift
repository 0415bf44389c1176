import TwitchSession

/// The server side of one client's chat session: capability negotiation, login, joins, PING, chat
/// messages, as Twitch's IRC server answers them. A value that takes client commands and returns
/// ``ServeAction``s; it never touches a socket, so it is tested with plain values.
///
/// ```
///  connected ──NICK──▶ registered (001…376, GLOBALUSERSTATE) ──JOIN #a──▶ joined [a] ──PART #a──▶ joined []
///      │  CAP LS: registration waits for CAP END (IRCv3); CAP REQ alone does not (Twitch)
/// ```
/// PASS is accepted and forgotten (never stored or reported). Commands other than CAP, PASS, NICK,
/// USER, PING, PONG and QUIT are ignored before registration; afterwards an unknown one gets 421.
/// Lines with tags are sent without them unless the client acknowledged `twitch.tv/tags`; GLOBALUSERSTATE
/// (after the welcome) and USERSTATE (after a JOIN's names list, and instead of an echo of the
/// client's own PRIVMSG) only with `twitch.tv/commands`, as Twitch does. Every login gets the same
/// plain user state: no badges, no colour, `display-name` as the NICK was typed, a made-up stable
/// `user-id`.
struct ServeSession: Sendable {
    /// The capabilities offered by `CAP LS` and acknowledged by `CAP REQ`.
    static let capabilities = ["twitch.tv/tags", "twitch.tv/commands", "twitch.tv/membership"]

    /// The login, lower case, once NICK was sent.
    private(set) var nick: String?
    /// The login as the NICK command typed it (`display-name`).
    private(set) var displayName: String?
    /// Makes the id of a message the client sends (random; tests fix it).
    var makeMessageId: @Sendable () -> String = { MessageIds.random() }
    private(set) var isRegistered = false
    /// `CAP LS` was sent and `CAP END` not yet: registration waits.
    private(set) var isNegotiating = false
    /// What `CAP REQ` acknowledged.
    private(set) var capabilities: Set<String> = []
    /// Joined channels (lower-case logins without `#`), in join order.
    private(set) var channels: [String] = []

    /// Whether lines go out with their IRCv3 tags.
    var sendsTags: Bool { capabilities.contains("twitch.tv/tags") }
    /// Whether Twitch's own commands (GLOBALUSERSTATE, USERSTATE) are sent.
    var sendsCommands: Bool { capabilities.contains("twitch.tv/commands") }

    init() {}

    /// Answers one client command.
    ///
    /// - Parameters:
    ///   - refused: channels whose JOIN gets the `msg_channel_suspended` NOTICE.
    ///   - rooms: the log's channels and room ids, for the ROOMSTATE a JOIN gets.
    ///   - unknownChannel: what a JOIN of a channel `rooms` does not have gets.
    /// - Complexity: O(parameters + joined channels). - Allocations: the reply lines.
    mutating func receive(
        _ command: ClientCommand, refused: Set<String>, rooms: RoomDirectory,
        unknownChannel: UnknownChannelPolicy = .empty
    ) -> [ServeAction] {
        var actions: [ServeAction] = []
        switch command.verb {
        case "CAP":
            capability(command.params, &actions)
        case "PASS", "USER":
            break
        case "PONG":
            actions.append(.pong)
        case "NICK":
            guard let login = command.params.first.map({ $0.lowercased() }), !isRegistered else { break }
            guard Login.isValid(login) else {
                actions.append(.send(":\(Self.server) 432 * \(Self.safe(login)) :Erroneous nickname"))
                break
            }
            nick = login
            displayName = command.params.first
            if !isNegotiating { register(&actions) }
        case "PING":
            let token = Self.printable(command.params.last ?? Self.server)
            actions.append(.send(":\(Self.server) PONG \(Self.server) :\(token)"))
        case "QUIT":
            actions.append(.quit)
        case "JOIN" where isRegistered:
            for name in (command.params.first ?? "").split(separator: ",") {
                join(Login.normalize(name), refused: refused, rooms: rooms, unknownChannel: unknownChannel, &actions)
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
            guard command.params.count >= 2, !command.params[1].isEmpty else { break }
            let channel = Login.normalize(command.params[0])
            guard Login.isValid(channel) else { break }
            let id = makeMessageId()
            // Twitch does not echo the sender's message: it answers with the sender's USERSTATE.
            if sendsCommands {
                actions.append(.send(tagged(userStateTags(id: id), ":\(Self.server) USERSTATE #\(channel)")))
            }
            actions.append(.said(channel: channel, text: command.params[1], id: id))
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
        if sendsCommands {
            actions.append(.send(tagged(globalUserStateTags, ":\(Self.server) GLOBALUSERSTATE")))
        }
        actions.append(.registered)
    }

    private mutating func join(
        _ channel: String, refused: Set<String>, rooms: RoomDirectory, unknownChannel: UnknownChannelPolicy,
        _ actions: inout [ServeAction]
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
        if !rooms.has(channel) {
            actions.append(.unknownChannel(channel, refused: unknownChannel == .refuse))
            // Twitch quietly drops a JOIN of a channel that does not exist.
            if unknownChannel == .refuse { return }
        }
        if !channels.contains(channel) { channels.append(channel) }
        actions.append(.send(":\(Self.prefix(nick)) JOIN #\(channel)"))
        actions.append(.send(":\(nick).\(Self.server) 353 \(nick) = #\(channel) :\(nick)"))
        actions.append(.send(":\(nick).\(Self.server) 366 \(nick) #\(channel) :End of /NAMES list"))
        if sendsCommands {
            actions.append(.send(tagged(userStateTags(id: nil), ":\(Self.server) USERSTATE #\(channel)")))
        }
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
