import ChatHTTP
import ChatStore
import Testing
import TwitchSession

/// `/healthz`'s rule over made-up channels: no session, no socket.
@Suite struct IngestHealthTests {
    @Test("every channel joined on registered connections: healthy, with the counts")
    func allJoined() {
        var health = IngestHealth()
        health.add("a", status: .joined, ready: true)
        health.add("b", status: .joined, ready: true)
        let verdict = health.verdict(connections: 2, connectionsUp: 2, lastDisconnect: "ignored when healthy")
        #expect(verdict == .init(healthy: true, text: "ok: 2 of 2 channels joined over 2 of 2 connections"))
    }

    @Test("each reason a channel is not joined is named: not registered, refused, timed out, joining")
    func reasons() {
        var health = IngestHealth()
        health.add("up", status: .joined, ready: true)
        health.add("down", status: .joined, ready: false)
        health.add("banned", status: .refused, ready: true)
        health.add("slow", status: .timedOut, ready: true)
        health.add("new", status: .joining(sentAt: 5), ready: true)
        health.add("queued", status: .waiting, ready: true)
        let verdict = health.verdict(connections: 2, connectionsUp: 1, lastDisconnect: "connection reset by peer")
        #expect(!verdict.healthy)
        #expect(
            verdict.text
                == "unavailable: 1 of 6 channels joined over 1 of 2 connections; not joined: "
                + "#down (connection not registered), #banned (JOIN refused), #slow (JOIN timed out), "
                + "#new (joining), #queued (joining); last disconnect: connection reset by peer")
    }

    @Test("past five channels not joined, the rest are counted: and N more")
    func namedThenCounted() {
        var health = IngestHealth()
        for index in 0..<12 { health.add("c\(index)", status: .waiting, ready: index >= 2) }
        #expect(health.missing.count == IngestHealth.namedChannels)
        let verdict = health.verdict(connections: 3, connectionsUp: 1, lastDisconnect: nil)
        #expect(
            verdict.text
                == "unavailable: 0 of 12 channels joined over 1 of 3 connections; not joined: "
                + "#c0 (connection not registered), #c1 (connection not registered), #c2 (joining), "
                + "#c3 (joining), #c4 (joining) and 7 more")
    }

    @Test("no channel is not healthy; every channel joined but a connection down (reconnecting) is not either")
    func emptyOrReconnecting() {
        let none = IngestHealth().verdict(connections: 0, connectionsUp: 0, lastDisconnect: nil)
        #expect(
            none
                == .init(
                    healthy: false, text: "unavailable: 0 of 0 channels joined over 0 of 0 connections; not joined: "))
        var health = IngestHealth()
        health.add("a", status: .joined, ready: true)
        let reconnecting = health.verdict(connections: 2, connectionsUp: 1, lastDisconnect: "RECONNECT")
        #expect(!reconnecting.healthy)
        #expect(reconnecting.text.hasSuffix("; last disconnect: RECONNECT"))
    }

    @Test("the snapshot takes the verdict and the gauges; the board says stopping once told, whatever was published")
    func snapshotAndBoard() {
        var health = IngestHealth()
        health.add("a", status: .joined, ready: true)
        health.add("b", status: .refused, ready: true)
        var snapshot = IngestSnapshot(command: "capture", version: "test", startedAt: Timestamp(milliseconds: 0))
        snapshot.assess(health, connections: 1, connectionsUp: 1, lastDisconnect: nil)
        #expect(snapshot.channels == 2 && snapshot.channelsJoined == 1 && snapshot.connectionsUp == 1)
        #expect(!snapshot.healthy)
        #expect(snapshot.health.hasSuffix("not joined: #b (JOIN refused)"))
        let board = IngestBoard(snapshot)
        var healthy = IngestHealth()
        healthy.add("a", status: .joined, ready: true)
        snapshot.assess(healthy, connections: 1, connectionsUp: 1, lastDisconnect: nil)
        board.publish(snapshot)
        #expect(board.current.healthy)
        board.stopping()
        #expect(!board.current.healthy)
        #expect(board.current.health == "stopping")
        #expect(board.current.channelsJoined == 1)
    }
}
