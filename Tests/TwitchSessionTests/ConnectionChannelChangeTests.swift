import IRCWire
import Testing
import TwitchSession

/// Channels added and removed while the machine runs (a reloaded `--channels-file`): JOINs at the
/// pace, PARTs, the set rejoined after a reconnect, and the records.
@Suite struct ConnectionChannelChangeTests {
    /// A machine registered and joined to `channels`.
    static func joined(_ channels: [String], settings: ConnectionSettings = ConnectionSettings()) -> SessionDriver {
        var driver = SessionDriver(channels: channels, settings: settings)
        driver.startMachine()
        driver.connectAndRegister()
        driver.echoJoins(channels)
        return driver
    }

    @Test("a restart's gap, opened before the start, ends with its record at the channel's JOIN echo, before `joined`")
    func restartGapEndsAtJoin() {
        var driver = SessionDriver(channels: ["a", "b"])
        let from = SessionDriver.start.wall - 60_000
        let reason = DisconnectReason.notRunning("capture was not running (stopped, then started again)")
        let opened = driver.machine.openGap(for: "#A", from: from, reason: reason)
        let again = driver.machine.openGap(for: "a", from: from, reason: reason)
        let other = driver.machine.openGap(for: "zz", from: from, reason: reason)
        #expect(opened && !again && !other, "one open gap per channel, and only for its own channels")
        driver.startMachine()
        driver.connectAndRegister()
        driver.advance(by: 1_500)
        let echoed = driver.echoJoins(["a", "b"])
        let gap = Gap(channel: "a", from: from, to: driver.now.wall, reason: reason)
        #expect(echoed.records.first == .gap(gap))
        #expect(echoed.records.dropFirst().first == .joined(channel: "a", at: driver.now.wall))
        #expect(driver.log.map(\.action).gaps == [gap], "b had no gap")
        #expect(gap.description.hasSuffix("(61500 ms): capture was not running (stopped, then started again)"))
    }

    @Test("channels added on a ready connection are joined at the JOIN pace, after the JOINs already sent")
    func addedAtPace() {
        var settings = ConnectionSettings()
        settings.joinLimit = 2
        var driver = Self.joined(["a", "b"], settings: settings)
        driver.advance(by: 1_000)
        #expect(driver.add("c", "#D", "e").joined.isEmpty, "2 JOINs in the last 10 s already")
        #expect(driver.machine.channels == ["a", "b", "c", "d", "e"])
        #expect(driver.machine.status(of: "d") == .waiting)
        #expect(driver.advance(by: 8_999).joined.isEmpty)
        #expect(driver.advance(by: 1).joined == ["c", "d"], "10 s after the first JOINs")
        #expect(driver.advance(by: 10_000).joined == ["e"])
        #expect(driver.echoJoins(["c", "d", "e"]).joinedRecords == ["c", "d", "e"])
        #expect(driver.machine.joinedChannels == ["a", "b", "c", "d", "e"])
        #expect(driver.machine.joinsSettled)
    }

    @Test(
        "a removed channel is parted and recorded; after a reconnect the added one is rejoined and the removed one not"
    )
    func rejoinSetFollowsChanges() {
        var driver = Self.joined(["a", "b", "c"])
        let t0 = driver.now.wall
        let removal = driver.remove("B")
        #expect(removal == [.send(.part("b")), .report(.parted(channel: "b", at: t0))])
        #expect(driver.machine.status(of: "b") == nil)
        #expect(driver.add("d").joined == ["d"])
        driver.echoJoins(["d"])
        #expect(driver.machine.channels == ["a", "c", "d"])

        driver.advance(by: 500)
        let lostAt = driver.now.wall
        driver.send(.closed(.endOfStream))
        driver.advance(by: 60_000)
        let rejoin = driver.connectAndRegister()
        #expect(rejoin.joined == ["a", "c", "d"])
        let echoed = driver.echoJoins(["a", "c", "d", "b"])
        #expect(echoed.gaps.map(\.channel) == ["a", "c", "d"], "a late echo of b is not ours any more")
        #expect(echoed.gaps.allSatisfy { $0.from == lostAt })
        #expect(echoed.joinedRecords == ["a", "c", "d"])
        #expect(driver.log.map(\.action).sent.filter { $0.verb == "PART" } == [.part("b")], "one PART, once")
    }

    @Test("a channel removed while its JOIN is unanswered is parted; its timeout and late echo are not reported")
    func removedWhileJoining() {
        var driver = SessionDriver(channels: ["a", "b", "c"])
        driver.startMachine()
        #expect(driver.connectAndRegister().joined == ["a", "b", "c"])
        driver.advance(by: 1_000)
        #expect(driver.remove("b").sent == [.part("b")])
        driver.echoJoins(["a", "c"])
        #expect(driver.advance(by: 20_000).joinFailures.isEmpty, "b's JOIN does not time out: it is gone")
        #expect(driver.echoJoins(["b"]).records.isEmpty)
        #expect(driver.machine.joinsSettled)
        #expect(driver.machine.joinedChannels == ["a", "c"])
    }

    @Test("a channel removed before its JOIN was sent (held by the pace) gets no PART and no JOIN")
    func removedWhileWaiting() {
        var settings = ConnectionSettings()
        settings.joinLimit = 1
        var driver = SessionDriver(channels: ["a", "b", "c"], settings: settings)
        driver.startMachine()
        #expect(driver.connectAndRegister().joined == ["a"])
        let removal = driver.remove("b")
        #expect(removal.sent.isEmpty)
        #expect(removal.records == [.parted(channel: "b", at: driver.now.wall)])
        #expect(driver.advance(by: 10_000).joined == ["c"], "c moves up into b's turn")
        #expect(driver.advance(by: 30_000).joined.isEmpty)
    }

    @Test("a removed channel added again is joined again, as a new channel")
    func reAdded() {
        var driver = Self.joined(["a", "b"])
        driver.remove("b")
        driver.advance(by: 100)
        #expect(driver.add("b").joined == ["b"])
        #expect(driver.echoJoins(["b"]).joinedRecords == ["b"])
        #expect(driver.machine.channels == ["a", "b"])
        #expect(driver.machine.status(of: "b") == .joined)
    }

    @Test("a channel removed while disconnected: its open gap ends at the removal, then the parted record")
    func removedDuringGap() {
        var driver = Self.joined(["a", "b"])
        let lostAt = driver.now.wall
        driver.send(.closed(.endOfStream))
        driver.advance(by: 400)
        let removal = driver.remove("b")
        #expect(removal.sent.isEmpty, "no connection to PART on")
        #expect(
            removal.records == [
                .gap(Gap(channel: "b", from: lostAt, to: lostAt + 400, reason: .endOfStream)),
                .parted(channel: "b", at: lostAt + 400),
            ])
        driver.advance(by: 60_000)
        #expect(driver.connectAndRegister().joined == ["a"])
        #expect(driver.echoJoins(["a"]).gaps.map(\.channel) == ["a"])
    }

    @Test("during a RECONNECT handover, removing the only channel the replacement still lacks lets it settle")
    func removedDuringHandover() {
        var driver = Self.joined(["a", "b"])
        driver.receive(":tmi.twitch.tv RECONNECT")
        driver.advance(by: 100)
        driver.connectAndRegister()
        driver.echoJoins(["a"])
        #expect(!driver.advance(by: 3_000).contains(.closeRetired), "b comes from the retiring connection only")
        driver.remove("b")
        #expect(driver.machine.isHandingOver)
        let settled = driver.advance(by: 2_000)
        #expect(settled.contains(.closeRetired), "settled 2 s after the removal, as after a last join")
        #expect(driver.log.map(\.action).gaps.isEmpty)
    }

    @Test("add refuses a channel already there, a name that is not a login, and one past the connection's room")
    func addRefusals() {
        var settings = ConnectionSettings()
        settings.channelsPerConnection = 3
        var driver = Self.joined(["a", "b"], settings: settings)
        let now = driver.now
        let outcomes = [
            driver.machine.add("#A", at: now), driver.machine.add("no way", at: now), driver.machine.add("c", at: now),
        ]
        #expect(outcomes == [false, false, true])
        #expect(!driver.machine.hasRoom)
        let full = driver.machine.add("d", at: now)
        #expect(!full)
        #expect(driver.machine.channels == ["a", "b", "c"])
        #expect(driver.remove("zzz").isEmpty, "not one of ours")
    }
}
