import IRCWire
import Testing
import TwitchSession

@Suite struct ConnectionJoinTests {
    @Test("45 channels: 20 JOINs at once, 20 after 10 s, 5 after 20 s; never more than 20 in 10 s")
    func joinRateLimit() {
        let channels = sessionChannels(45)
        var driver = SessionDriver(channels: channels)
        driver.startMachine()
        var first = driver.connectAndRegister().joined
        #expect(first.count == 20)
        driver.echoJoins(first)
        #expect(driver.advance(by: 9_999).joined.isEmpty)
        let second = driver.advance(by: 1).joined
        #expect(second.count == 20)
        driver.echoJoins(second)
        #expect(driver.advance(by: 9_999).joined.isEmpty)
        let third = driver.advance(by: 1).joined
        #expect(third.count == 5)
        driver.echoJoins(third)
        first += second + third
        #expect(first == channels)

        // Every 10 s window [t, t + 10 s) holds at most 20 JOINs.
        let joinTimes = driver.log.filter { if case .send(let m) = $0.action { m.verb == "JOIN" } else { false } }
            .map(\.at.monotonicMs)
        for start in joinTimes {
            #expect(joinTimes.filter { $0 >= start && $0 < start + 10_000 }.count <= 20)
        }
        #expect(driver.machine.joinedChannels.count == 45)
    }

    @Test("the sliding window frees a slot 10 s after each JOIN, not in fixed buckets")
    func slidingWindow() {
        var settings = ConnectionSettings()
        settings.joinLimit = 2
        var driver = SessionDriver(channels: ["a", "b", "c", "d"], settings: settings)
        driver.startMachine()
        driver.send(.connected)
        driver.receive(":s 001 \(driver.machine.nick) :hi")  // JOIN a, b at t0
        #expect(driver.log.map(\.action).joined == ["a", "b"])
        #expect(driver.advance(by: 10_000).joined == ["c", "d"])
    }

    @Test("each JOIN outcome is reported once: joined, refused by NOTICE, timed out")
    func joinOutcomes() {
        var driver = SessionDriver(channels: ["good", "gone", "banned", "tos", "missing", "silent"])
        driver.startMachine()
        driver.connectAndRegister()
        let t0 = driver.now.wall
        #expect(driver.echoJoins(["good"]).joinedRecords == ["good"])
        #expect(driver.echoJoins(["good"]).records.isEmpty)
        let notices = [
            ("gone", "msg_channel_suspended", "This channel has been suspended."),
            ("banned", "msg_banned", "You are permanently banned from talking in banned."),
            ("tos", "tos_ban", "This channel has been closed due to terms of service violations."),
            ("missing", "msg_room_not_found", "That room does not exist."),
        ]
        for (channel, msgId, text) in notices {
            let actions = driver.receive("@msg-id=\(msgId) :tmi.twitch.tv NOTICE #\(channel) :\(text)")
            #expect(
                actions.records == [.joinFailed(channel: channel, reason: .refused(msgId: msgId, text: text), at: t0)])
            #expect(driver.receive("@msg-id=\(msgId) :tmi.twitch.tv NOTICE #\(channel) :\(text)").records.isEmpty)
        }
        #expect(driver.advance(by: 9_999).joinFailures.isEmpty)
        let timeout = driver.advance(by: 1)
        #expect(
            timeout.records == [.joinFailed(channel: "silent", reason: .timedOut(afterMs: 10_000), at: t0 + 10_000)])
        #expect(driver.advance(by: 30_000).joinFailures.isEmpty)
        #expect(driver.machine.status(of: "good") == .joined)
        #expect(driver.machine.status(of: "#Gone") == .refused)
        #expect(driver.machine.status(of: "silent") == .timedOut)
    }

    @Test("an unrelated NOTICE for a channel does not fail its JOIN")
    func unrelatedNotice() {
        var driver = SessionDriver(channels: ["a"])
        driver.startMachine()
        driver.connectAndRegister()
        let notice = driver.receive("@msg-id=emote_only_on :tmi.twitch.tv NOTICE #a :This room is in emote-only mode.")
        #expect(notice.records.isEmpty)
        #expect(driver.echoJoins(["a"]).joinedRecords == ["a"])
    }

    @Test("a late echo after the timeout is still reported as joined")
    func lateEcho() {
        var driver = SessionDriver(channels: ["slow"])
        driver.startMachine()
        driver.connectAndRegister()
        #expect(driver.advance(by: 10_000).joinFailures.count == 1)
        #expect(driver.echoJoins(["slow"]).joinedRecords == ["slow"])
    }

    @Test("after a reconnect, refused channels stay out; timed-out and joined ones are joined again")
    func rejoinAfterReconnect() {
        var driver = SessionDriver(channels: ["ok", "refused", "silent"])
        driver.startMachine()
        driver.connectAndRegister()
        driver.echoJoins(["ok"])
        driver.receive("@msg-id=msg_channel_suspended :tmi.twitch.tv NOTICE #refused :This channel has been suspended.")
        driver.advance(by: 10_000)
        driver.send(.closed(.endOfStream))
        driver.advance(by: 1_000)
        #expect(driver.connectAndRegister().joined == ["ok", "silent"])
    }
}
