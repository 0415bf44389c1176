import IRCWire
import Testing
import TwitchSession

/// RECONNECT without a hole: the machine keeps the old connection (retiring) while a replacement
/// joins, and records a gap only when the retiring one closed first.
@Suite struct ConnectionHandoverTests {
    /// A machine registered and joined to `channels`.
    static func joined(_ channels: [String]) -> SessionDriver {
        var driver = SessionDriver(channels: channels)
        driver.startMachine()
        driver.connectAndRegister()
        driver.echoJoins(channels)
        return driver
    }

    @Test("RECONNECT hands over: no close, no gap, a replacement connects at once")
    func handsOver() {
        var driver = Self.joined(["a", "b"])
        let actions = driver.receive(":tmi.twitch.tv RECONNECT")
        #expect(actions == [.handOver, .connect(after: 0)])
        #expect(driver.machine.isHandingOver)
        #expect(driver.machine.phase == .connecting)
    }

    @Test(
        "the replacement joins every channel and a line comes on both: the retiring connection is closed then, no gap recorded"
    )
    func closesRetiredOnceJoined() {
        var driver = Self.joined(["a", "b"])
        driver.receive(":tmi.twitch.tv RECONNECT")
        driver.advance(by: 300)
        let login = driver.connectAndRegister()
        #expect(login.joined == ["a", "b"])
        let first = driver.echoJoins(["a"])
        #expect(!first.contains(.closeRetired), "b still comes only from the retiring connection")
        let second = driver.echoJoins(["b"])
        #expect(!second.contains(.closeRetired), "what the retiring one sent before the joins may still be in flight")
        driver.advance(by: 30)
        let confirmed = driver.send(.overlapConfirmed)
        #expect(confirmed.filter { $0 == .closeRetired }.count == 1)
        #expect(confirmed.records.contains(.disconnected(.serverRequestedReconnect, at: driver.now.wall)))
        #expect(!driver.machine.isHandingOver)
        #expect(driver.log.map(\.action).gaps.isEmpty)
        // Later, the retiring connection's own end is news to no one.
        let late = driver.send(.retiredClosed(.endOfStream))
        #expect(late.isEmpty)
    }

    @Test("the retiring connection closes before the replacement joins: a gap from its close to the join")
    func overlapFailed() throws {
        var driver = Self.joined(["a", "b"])
        driver.receive(":tmi.twitch.tv RECONNECT")
        driver.advance(by: 100)
        driver.connectAndRegister()
        driver.echoJoins(["a"])
        driver.advance(by: 200)
        let closedAt = driver.now.wall
        let ended = driver.send(.retiredClosed(.endOfStream))
        #expect(ended.records == [.disconnected(.endOfStream, at: closedAt)])
        #expect(!ended.contains(.closeRetired))
        driver.advance(by: 700)
        let joinedB = driver.echoJoins(["b"])
        let gap = try #require(joinedB.gaps.first)
        #expect(joinedB.gaps.count == 1)
        #expect(gap.channel == "b")
        #expect(gap.from == closedAt)
        #expect(gap.to == closedAt + 700)
        #expect(gap.reason == .serverRequestedReconnect)
        #expect(driver.log.map(\.action).gaps.count == 1, "no gap for a, joined in time")
    }

    @Test("grace 0: the old connection ends at once, before the replacement even connects: every channel gets a gap")
    func closedAtOnce() {
        var driver = Self.joined(["a", "b"])
        driver.receive(":tmi.twitch.tv RECONNECT")
        driver.send(.retiredClosed(.endOfStream))
        driver.advance(by: 50)
        driver.connectAndRegister()
        let joins = driver.echoJoins(["a", "b"])
        #expect(joins.gaps.map(\.channel) == ["a", "b"])
        #expect(joins.gaps.allSatisfy { $0.to - $0.from == 50 })
        #expect(!joins.contains(.closeRetired))
    }

    @Test(
        "a refused channel on the replacement no longer holds the retiring one; without a line on both it closes 2 s later"
    )
    func refusalEndsWait() {
        var driver = Self.joined(["a", "b"])
        driver.receive(":tmi.twitch.tv RECONNECT")
        driver.connectAndRegister()
        driver.echoJoins(["a"])
        let early = driver.send(.overlapConfirmed)
        #expect(early.isEmpty, "b is still awaited")
        driver.receive("@msg-id=msg_channel_suspended :tmi.twitch.tv NOTICE #b :This channel has been suspended.")
        #expect(driver.advance(by: 1_999).filter { $0 == .closeRetired }.isEmpty)
        #expect(driver.advance(by: 1).filter { $0 == .closeRetired }.count == 1, "quiet channels: settled after 2 s")
        #expect(driver.log.map(\.action).gaps.isEmpty)
    }

    @Test("RECONNECT on the replacement while the retiring one still plays: the older one is closed first")
    func secondReconnect() {
        var driver = Self.joined(["a"])
        driver.receive(":tmi.twitch.tv RECONNECT")
        driver.connectAndRegister()  // a not joined yet on the replacement
        let again = driver.receive(":tmi.twitch.tv RECONNECT")
        // Registered but a not joined: the second RECONNECT closes the first retiring connection
        // (its channel not handed over: a gap opens) and hands over the replacement.
        #expect(again.prefix(1) == [.closeRetired])
        #expect(again.suffix(2) == [.handOver, .connect(after: 0)])
        driver.advance(by: 40)
        driver.connectAndRegister()
        let rejoined = driver.echoJoins(["a"])
        #expect(rejoined.gaps.map(\.to) == [driver.now.wall])
    }

    @Test("stopping during an overlap closes the retiring connection without a gap")
    func stopDuringOverlap() {
        var driver = Self.joined(["a"])
        driver.receive(":tmi.twitch.tv RECONNECT")
        let stop = driver.machine.stop(at: driver.now)
        #expect(stop.contains(.closeRetired))
        #expect(stop.gaps.isEmpty)
        #expect(stop.records.contains(.disconnected(.stopped, at: driver.now.wall)))
    }

    @Test("RECONNECT before the welcome is a lost connection: closed, reconnected after the back-off")
    func beforeWelcome() {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.send(.connected)
        let actions = driver.receive(":tmi.twitch.tv RECONNECT")
        #expect(actions.closeReasons == [.serverRequestedReconnect])
        #expect(!actions.contains(.handOver))
    }
}

@Suite struct OverlapFilterTests {
    /// What `filter` answers to each (fingerprint, side), in order.
    static func admit(
        _ lines: [(UInt64, OverlapFilter.Side)], identified: Bool = false, into filter: inout OverlapFilter
    ) -> [Bool] {
        lines.map { filter.admit($0.0, from: $0.1, identified: identified) }
    }

    @Test("a line on both sides is written once, whichever side comes first")
    func onceEachWay() {
        var filter = OverlapFilter()
        let kept = Self.admit(
            [(1, .retiring), (1, .replacement), (2, .replacement), (2, .retiring)], into: &filter)
        #expect(kept == [true, false, true, false])
        #expect(filter.duplicates == 2)
    }

    @Test("a line really sent twice (same fingerprint) is kept twice when both sides carry both copies")
    func repeatsKept() {
        var filter = OverlapFilter()
        let kept = Self.admit(
            [(7, .retiring), (7, .retiring), (7, .replacement), (7, .replacement), (7, .replacement)], into: &filter)
        #expect(kept == [true, true, false, false, true], "the third copy only the replacement saw is kept")
        #expect(filter.duplicates == 2)
    }

    /// serve sends RECONNECT every few hundred lines: the replacement (B) of one overlap is often
    /// handed over itself (to C) while it still delivers late copies of what the connection before it
    /// (A) delivered. Those copies must stay dropped (the clean-clone run wrote one twice).
    @Test("a chained handover: the old replacement's late copies of the retired side's lines stay dropped")
    func chainedHandover() {
        var filter = OverlapFilter()
        // A (retiring) delivers 1 and 2; B (replacement) has only caught up with 1 when B is handed over.
        #expect(Self.admit([(1, .retiring), (2, .retiring), (1, .replacement)], into: &filter) == [true, true, false])
        filter.handOver()
        // B is now the retiring side: its late 2 was written already (by A); 3 is new; C's 3 is B's copy.
        #expect(
            Self.admit([(2, .retiring), (3, .retiring), (3, .replacement)], into: &filter) == [false, true, false])
        #expect(filter.duplicates == 3)
    }

    @Test(
        "caught up once a line with an id that the replacement delivered after settling comes on both, whichever copy comes second"
    )
    func caughtUpEitherWay() {
        var behind = OverlapFilter()
        #expect(Self.admit([(1, .retiring)], into: &behind) == [true])
        behind.settle()
        #expect(Self.admit([(2, .replacement)], identified: true, into: &behind) == [true])
        #expect(!behind.caughtUp, "one copy proves nothing")
        #expect(Self.admit([(2, .retiring)], identified: true, into: &behind) == [false])
        #expect(behind.caughtUp, "the retiring connection's copy came second")

        var ahead = OverlapFilter()
        ahead.settle()
        #expect(Self.admit([(3, .retiring)], identified: true, into: &ahead) == [true])
        #expect(Self.admit([(3, .replacement)], identified: true, into: &ahead) == [false])
        #expect(ahead.caughtUp, "the replacement's copy came second")
    }

    @Test(
        "not caught up by an id-less line, by a line the replacement delivered before settling, or before a settle at all; a handover starts again"
    )
    func caughtUpOnlyByProof() {
        var filter = OverlapFilter()
        #expect(Self.admit([(9, .replacement), (9, .retiring)], into: &filter) == [true, false])
        #expect(!filter.caughtUp, "not settled")
        #expect(Self.admit([(1, .replacement)], identified: true, into: &filter) == [true])
        filter.settle()
        #expect(filter.isSettled)
        #expect(Self.admit([(1, .retiring)], identified: true, into: &filter) == [false])
        #expect(!filter.caughtUp, "the replacement delivered 1 before it had joined everything")
        #expect(Self.admit([(2, .replacement), (2, .retiring)], into: &filter) == [true, false])
        #expect(!filter.caughtUp, "an id-less line (a JOIN's ROOMSTATE) can come on each connection on its own")
        #expect(Self.admit([(3, .replacement)], identified: true, into: &filter) == [true])
        #expect(Self.admit([(3, .retiring)], identified: true, into: &filter) == [false])
        #expect(filter.caughtUp)
        #expect(Self.admit([(5, .retiring)], identified: true, into: &filter) == [true])
        filter.handOver()
        #expect(!filter.caughtUp && !filter.isSettled, "a new overlap")
        filter.settle()
        // The old replacement, now retiring, delivers its late copy of 5: no line of the new
        // replacement's has come on both.
        #expect(Self.admit([(5, .retiring)], identified: true, into: &filter) == [false])
        #expect(!filter.caughtUp, "5 came on the connection before, not on the new replacement")
        #expect(Self.admit([(4, .replacement)], identified: true, into: &filter) == [true])
        #expect(Self.admit([(4, .retiring)], identified: true, into: &filter) == [false])
        #expect(filter.caughtUp)
    }

    @Test("bounded: the oldest fingerprints are forgotten past the capacity")
    func bounded() {
        var filter = OverlapFilter(capacity: 2)
        let kept = Self.admit(
            [(1, .retiring), (2, .retiring), (3, .retiring), (1, .replacement), (3, .replacement)], into: &filter)
        #expect(kept == [true, true, true, true, false], "1 was forgotten when 3 came")
    }
}
