import IRCWire
import Testing
import TwitchSession

/// Several machines pooled as a ``LiveSession`` pools them: one JOIN pace for all, plans of at most
/// `channelsPerConnection` channels. Driven by hand, with a shared ``JoinLimiter`` and a moved clock.
@Suite struct ConnectionPoolTests {
    /// Machines for `channels` split as the session splits them, all registered at `start`, sharing
    /// one pace; returns every JOIN sent, with its time, while the clock moves to `untilMs`.
    static func drive(
        channels: [String], settings: ConnectionSettings, untilMs: Int64, echo: Bool = true
    ) -> (plans: [ConnectionPlan], joins: [(at: Int64, connection: Int, channel: String)]) {
        let plans = ConnectionPlan.split(
            channels: channels, maxPerConnection: settings.channelsPerConnection, spacingMs: settings.connectSpacingMs)
        var machines = plans.map { ConnectionMachine(plan: $0, settings: settings, seed: 3) }
        var pace = JoinLimiter(limit: settings.joinLimit, windowMs: settings.joinWindowMs)
        var now = SessionDriver.start
        var joins: [(at: Int64, connection: Int, channel: String)] = []
        var actions: [ConnectionAction] = []
        func take(_ index: Int) {
            for channel in actions.joined {
                joins.append((now.monotonicMs - SessionDriver.start.monotonicMs, index, channel))
            }
            let sent = actions.joined
            actions.removeAll()
            guard echo else { return }
            let nick = machines[index].nick
            for channel in sent {
                let raw = Array(":\(nick)!\(nick)@\(nick).tmi.twitch.tv JOIN #\(channel)".utf8)
                let line = machines[index].classify(try! TwitchMessage.parse(raw.span), in: raw.span)
                machines[index].handle(.lineReceived(line), at: now, into: &actions, sharing: &pace)
                actions.removeAll()
            }
        }
        for i in machines.indices {
            _ = machines[i].start(at: now)
            machines[i].handle(.connected, at: now, into: &actions, sharing: &pace)
            actions.removeAll()
            let welcome = Array(":tmi.twitch.tv 001 \(machines[i].nick) :Welcome".utf8)
            let line = machines[i].classify(try! TwitchMessage.parse(welcome.span), in: welcome.span)
            machines[i].handle(.lineReceived(line), at: now, into: &actions, sharing: &pace)
            take(i)
        }
        // Tick every machine whose deadline passed, as the loop does, until `untilMs`.
        while true {
            let next = machines.compactMap { $0.nextDeadline(sharing: pace) }.min() ?? .max
            guard next - SessionDriver.start.monotonicMs <= untilMs else { break }
            if next > now.monotonicMs { now = now.advanced(byMs: next - now.monotonicMs) }
            for i in machines.indices {
                guard let due = machines[i].nextDeadline(sharing: pace), due <= now.monotonicMs else { continue }
                machines[i].handle(.tick, at: now, into: &actions, sharing: &pace)
                take(i)
            }
        }
        return (plans, joins)
    }

    @Test("1,000 channels split into 12 connections of at most 90, opened apart by the connect spacing")
    func poolSplit() {
        var settings = ConnectionSettings()
        settings.connectSpacingMs = 100
        let plans = ConnectionPlan.split(
            channels: sessionChannels(1_000), maxPerConnection: settings.channelsPerConnection,
            spacingMs: settings.connectSpacingMs)
        #expect(plans.count == 12)
        #expect(plans.allSatisfy { $0.channels.count <= 90 })
        #expect(plans.last?.channels.count == 10)
        #expect(plans.map(\.openAfterMs) == (0..<12).map { Int64($0) * 100 })
        #expect(Set(plans.flatMap(\.channels)).count == 1_000)
    }

    @Test("a smaller channels-per-connection makes more, smaller connections", arguments: [1, 25, 90])
    func perConnectionOption(perConnection: Int) {
        let plans = ConnectionPlan.split(channels: sessionChannels(200), maxPerConnection: perConnection)
        #expect(plans.count == (200 + perConnection - 1) / perConnection)
        #expect(plans.allSatisfy { $0.channels.count <= perConnection })
    }

    @Test(
        "connections share one JOIN pace: 200 channels over 3 connections at 20 per 10 s the last at 90 s, never more than 20 in any 10 s"
    )
    func sharedPace() {
        var settings = ConnectionSettings()
        settings.joinLimit = 20
        settings.idleTimeoutMs = 1_000_000  // the driver answers no PING
        let (plans, joins) = Self.drive(channels: sessionChannels(200), settings: settings, untilMs: 200_000)
        #expect(plans.count == 3)
        #expect(joins.count == 200)
        #expect(Set(joins.map(\.channel)) == Set(sessionChannels(200)))
        for join in joins {
            #expect(joins.filter { $0.at >= join.at && $0.at < join.at + 10_000 }.count <= 20)
        }
        #expect(joins.map(\.at).max() == 90_000)  // 10 windows of 20
        // Every connection got its channels (not only the first one).
        #expect(Set(joins.map(\.connection)) == [0, 1, 2])
    }

    @Test("the anonymous default pace is faster than the authenticated one, and both stay under Twitch's figures")
    func defaults() throws {
        #expect(ConnectionSettings.defaultJoinLimit(for: .anonymous) == ConnectionSettings.anonymousJoinLimit)
        let token = try Credentials.oauth(login: "somebot", token: "abcdefghijklmnopqrstuvwxyz0123")
        #expect(ConnectionSettings.defaultJoinLimit(for: token) == 20)
        #expect(ConnectionSettings.anonymousJoinLimit > 20 && ConnectionSettings.anonymousJoinLimit < 50)
        #expect(ConnectionSettings().channelsPerConnection == 90)
        #expect(ConnectionSettings().connectSpacingMs == 2_000)
    }

    @Test("at 2,000 per 10 s, 1,000 channels are all sent at once")
    func fastPace() {
        var settings = ConnectionSettings()
        settings.joinLimit = 2_000
        settings.connectSpacingMs = 0
        let (_, joins) = Self.drive(channels: sessionChannels(1_000), settings: settings, untilMs: 1_000)
        #expect(joins.count == 1_000)
        #expect(joins.allSatisfy { $0.at == 0 })
    }

    @Test("a JoinLimiter lets `limit` sends through, then the oldest frees a slot windowMs later")
    func limiter() {
        var limiter = JoinLimiter(limit: 3, windowMs: 1_000)
        for t in [0, 10, 20] as [Int64] {
            #expect(limiter.allows(now: t))
            limiter.record(now: t)
        }
        #expect(!limiter.allows(now: 999))
        #expect(limiter.earliestSend(now: 500) == 1_000)
        limiter.record(now: 1_000)
        #expect(limiter.earliestSend(now: 1_000) == 1_010)
    }
}
