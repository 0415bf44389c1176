import IRCWire
import Testing
import TwitchSession

@Suite struct ConnectionReconnectTests {
    static func noJitter() -> ConnectionSettings {
        var settings = ConnectionSettings()
        settings.backoff.jitter = .none
        return settings
    }

    @Test("back-off doubles from 1 s and stops at 60 s while connects keep failing")
    func backoffGrowsToCap() {
        var driver = SessionDriver(channels: ["a"], settings: Self.noJitter())
        driver.startMachine()
        var delays: [Int64] = []
        var attempts: [Int] = []
        for _ in 0..<9 {
            let actions = driver.send(.closed(.connectFailed("Connection refused")))
            delays += actions.connectDelays
            attempts += actions.records.compactMap {
                if case .reconnectScheduled(_, let attempt, _) = $0 { attempt } else { nil }
            }
            driver.advance(by: delays.last!)
        }
        #expect(delays == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000])
        #expect(attempts == Array(1...9))
    }

    @Test("a connection that stayed up 60 s resets the back-off; a shorter one does not")
    func backoffResets() {
        var driver = SessionDriver(channels: ["a"], settings: Self.noJitter())
        driver.startMachine()
        for _ in 0..<4 { driver.send(.closed(.connectFailed("refused"))) }  // next would be 16 s
        driver.connectAndRegister()
        driver.advance(by: 30_000)
        #expect(driver.send(.closed(.endOfStream)).connectDelays == [16_000])
        driver.advance(by: 16_000)
        driver.connectAndRegister()
        for _ in 0..<6 {
            driver.advance(by: 10_000)
            driver.receive("PING :tmi.twitch.tv")
        }
        #expect(driver.send(.closed(.endOfStream)).connectDelays == [1_000])
    }

    @Test("the policy's ceiling: base · 2^n, capped, without overflow")
    func ceiling() {
        let policy = BackoffPolicy()
        #expect(
            (0..<8).map(policy.ceiling(forAttempt:)) == [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000])
        #expect(policy.ceiling(forAttempt: 1_000) == 60_000)
    }

    @Test("jitter stays within its bounds and spreads", arguments: [BackoffPolicy.Jitter.full, .equal])
    func jitterBounds(jitter: BackoffPolicy.Jitter) {
        var settings = ConnectionSettings()
        settings.backoff.jitter = jitter
        var seen: [Int: Set<Int64>] = [:]
        for seed in UInt64(0)..<60 {
            var driver = SessionDriver(channels: ["a"], settings: settings, seed: seed)
            driver.startMachine()
            for attempt in 0..<8 {
                let delay = driver.send(.closed(.connectFailed("refused"))).connectDelays[0]
                let ceiling = settings.backoff.ceiling(forAttempt: attempt)
                let floor = jitter == .full ? 0 : ceiling / 2
                #expect(delay >= floor && delay <= ceiling, "attempt \(attempt): \(delay) not in \(floor)...\(ceiling)")
                seen[attempt, default: []].insert(delay)
            }
        }
        for (attempt, delays) in seen { #expect(delays.count > 20, "attempt \(attempt) barely varies") }
    }

    @Test("a disconnect leaves one gap per joined channel, from the loss to the JOIN echo")
    func gapCoversDisconnectedInterval() {
        let channels = ["a", "b", "c"]
        var driver = SessionDriver(channels: channels, settings: Self.noJitter())
        driver.startMachine()
        driver.connectAndRegister()
        driver.echoJoins(channels)
        driver.advance(by: 5_000)
        let lostAt = driver.now.wall
        let lost = driver.send(.closed(.failed("Connection reset by peer")))
        #expect(lost.gaps.isEmpty)
        #expect(lost.records.contains(.disconnected(.failed("Connection reset by peer"), at: lostAt)))
        driver.advance(by: 1_000)
        driver.connectAndRegister()
        driver.advance(by: 250)
        let back = driver.echoJoins(["a", "b"])
        driver.advance(by: 100)
        let backC = driver.echoJoins(["c"])
        let reason = DisconnectReason.failed("Connection reset by peer")
        #expect(
            back.gaps == [
                Gap(channel: "a", from: lostAt, to: lostAt + 1_250, reason: reason),
                Gap(channel: "b", from: lostAt, to: lostAt + 1_250, reason: reason),
            ])
        #expect(backC.gaps == [Gap(channel: "c", from: lostAt, to: lostAt + 1_350, reason: reason)])
        // The gap is reported before the join that ends it.
        #expect(back.records.first == .gap(back.gaps[0]))
        #expect(driver.log.map(\.action).gaps.count == 3)
    }

    @Test("failed reconnects extend one gap per channel instead of leaving holes")
    func gapAcrossFailedReconnects() {
        var driver = SessionDriver(channels: ["a", "b"], settings: Self.noJitter())
        driver.startMachine()
        driver.connectAndRegister()
        driver.echoJoins(["a", "b"])
        let lostAt = driver.now.wall
        driver.receive(":tmi.twitch.tv RECONNECT")
        driver.send(.retiredClosed(.endOfStream))  // the server closes the old connection at once
        driver.advance(by: 1_000)
        driver.send(.closed(.connectFailed("refused")))
        driver.advance(by: 2_000)
        driver.send(.connected)  // up, but lost before the welcome
        driver.send(.closed(.endOfStream))
        driver.advance(by: 4_000)
        driver.connectAndRegister()
        let back = driver.echoJoins(["a", "b"])
        #expect(
            back.gaps.map { [$0.channel, "\($0.from)", "\($0.to)"] } == [
                ["a", "\(lostAt)", "\(lostAt + 7_000)"], ["b", "\(lostAt)", "\(lostAt + 7_000)"],
            ])
        #expect(back.gaps.allSatisfy { $0.reason == .serverRequestedReconnect })
        #expect(driver.log.map(\.action).gaps.count == 2)
    }

    @Test("a dead connection's gap starts at the last line received")
    func gapOfDeadConnection() {
        var driver = SessionDriver(channels: ["a"], settings: Self.noJitter())
        driver.startMachine()
        driver.connectAndRegister()
        driver.echoJoins(["a"])
        driver.advance(by: 3_000)
        driver.receive("@id=1 :u!u@u PRIVMSG #a :last words")
        let lastLine = driver.now.wall
        driver.advance(by: 70_000)  // PING at +60 s, dead at +70 s
        driver.advance(by: 1_000)
        driver.connectAndRegister()
        let back = driver.echoJoins(["a"])
        #expect(
            back.gaps == [Gap(channel: "a", from: lastLine, to: lastLine + 71_000, reason: .unresponsive)])
    }

    @Test("channels never captured get no gap; a refusal on rejoin ends the gap; stop ends open gaps")
    func gapEdges() {
        var driver = SessionDriver(channels: ["a", "b", "c"], settings: Self.noJitter())
        driver.startMachine()
        driver.connectAndRegister()
        driver.echoJoins(["a", "b"])  // c never answers
        let lostAt = driver.now.wall
        driver.send(.closed(.endOfStream))
        driver.advance(by: 1_000)
        driver.connectAndRegister()
        let refused = driver.receive(
            "@msg-id=msg_channel_suspended :tmi.twitch.tv NOTICE #a :This channel has been suspended.")
        #expect(refused.gaps == [Gap(channel: "a", from: lostAt, to: lostAt + 1_000, reason: .endOfStream)])
        #expect(refused.joinFailures.map(\.channel) == ["a"])
        driver.send(.closed(.endOfStream))
        driver.advance(by: 500)
        let stopped = driver.machine.stop(at: driver.now)
        #expect(stopped.gaps == [Gap(channel: "b", from: lostAt, to: lostAt + 1_500, reason: .endOfStream)])
        #expect(!driver.log.map(\.action).gaps.contains { $0.channel == "c" })
    }
}
