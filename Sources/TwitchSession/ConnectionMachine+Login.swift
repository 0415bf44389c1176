import IRCWire

extension ConnectionMachine {
    /// NOTICE texts (without tags there is no msg-id) that mean the server rejected our login.
    static let authenticationFailures = [
        "Login authentication failed", "Improperly formatted auth", "Login unsuccessful",
    ]

    /// The connection is up: request capabilities and log in.
    mutating func didConnect(at now: Moment, _ actions: inout [ConnectionAction]) {
        guard phase == .connecting else { return }
        phase = .registering
        connectionCount += 1
        connectedAt = now
        lastReceived = now
        probeSentAt = nil
        nick = initialNick
        capabilityOutcome = nil
        registrationDeadline = now.monotonicMs + settings.registrationTimeoutMs
        actions.append(.report(.connected(attempt: connectionCount, at: now.wall)))
        if settings.capabilities.isEmpty {
            capabilityDeadline = nil
        } else {
            capabilityDeadline = now.monotonicMs + settings.capabilityTimeoutMs
            actions.append(.send(.capabilityRequest(settings.capabilities)))
        }
        if let pass = credentials.passMessage { actions.append(.send(pass)) }
        actions.append(.send(.nick(nick)))
        // Standard IRC servers complete registration only after USER; Twitch accepts and ignores it.
        actions.append(.send(.user(nick)))
    }

    /// A chat line came (one ``ServerLine/mayControl(_:)`` says is ``ServerLine/other``): what
    /// ``handle(_:at:into:sharing:)`` does for it (the connection is alive, a probe is answered),
    /// without classifying it and without running the timers, which a `.tick` runs when
    /// ``nextDeadline(sharing:)`` says.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public mutating func chatReceived(at now: Moment) {
        guard phase == .registering || phase == .ready else { return }
        lastReceived = now
        probeSentAt = nil
    }

    mutating func didReceive(_ line: ServerLine, at now: Moment, _ actions: inout [ConnectionAction]) {
        guard phase == .registering || phase == .ready else { return }
        // Any line proves the connection alive and answers our probe, as a chat line does.
        chatReceived(at: now)
        switch line {
        case .other, .pong:
            break
        case .ping(let token):
            actions.append(.send(.pong(token)))
        case .capabilitiesAcknowledged(let granted):
            let missing = settings.capabilities.filter { !granted.contains($0) }
            resolveCapabilities(
                missing.isEmpty ? .acknowledged(granted) : .partial(granted: granted, missing: missing), at: now,
                &actions)
        case .capabilitiesRejected(let refused):
            resolveCapabilities(.rejected(refused.isEmpty ? settings.capabilities : refused), at: now, &actions)
        case .welcome(let confirmed):
            guard phase == .registering else { return }
            phase = .ready
            registrations += 1
            registrationDeadline = nil
            if !confirmed.isEmpty && confirmed != "*" { nick = confirmed.lowercased() }
            queueAllJoins()
        case .ownJoin(let channel):
            didJoin(channel, at: now, &actions)
        case .notice(let channel, let msgId, let text):
            if channel == nil, Self.authenticationFailures.contains(where: { text.contains($0) }) {
                fail(.authenticationFailed(text), message: authenticationMessage(text), at: now, &actions)
                return
            }
            if let channel, let msgId { didRefuseJoin(channel, msgId: msgId, text: text, at: now, &actions) }
        case .reconnect:
            handOver(at: now, &actions)
        }
    }

    /// Records the capability outcome once per connection and ends capability negotiation.
    mutating func resolveCapabilities(
        _ outcome: CapabilityOutcome, at now: Moment, _ actions: inout [ConnectionAction]
    ) {
        guard capabilityDeadline != nil else { return }
        capabilityDeadline = nil
        capabilityOutcome = outcome
        actions.append(.report(.capabilities(outcome, at: now.wall)))
        // A standard IRCv3 server holds registration until CAP END; Twitch accepts it.
        actions.append(.send(OutgoingMessage(verb: "CAP", params: ["END"])))
    }

    private func authenticationMessage(_ text: String) -> String {
        let who = credentials.login.map { "'\($0)'" } ?? "the anonymous login"
        let variable = Credentials.tokenEnvironmentVariable
        return "the server rejected the login for \(who): \(text). Check the token (\(variable) "
            + "or the token file), that it belongs to that login and has not expired. Not reconnecting."
    }
}
