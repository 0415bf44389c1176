import ChatLive
import ChatPosix
import ChatTestSupport
import Foundation
import Glibc
import Synchronization
import Testing
import TwitchSession

/// RECONNECT handovers against a scripted server on 127.0.0.1 whose retiring connection lags behind,
/// as on a busy machine: what the retiring connection alone carried (sent before the replacement
/// joined) is read before it is closed.
@Suite(.timeLimit(.minutes(10))) struct LiveSessionHandoverTests {
    /// What the session delivered, and whether the test is over (read by the server's threads).
    final class Collected: Sendable {
        let ids = Mutex<[String]>([])
        let done = Mutex(false)
        /// The first 5,000 lines of the backlog are written (in the socket buffers or read).
        let backlogStarted = Mutex(false)
    }

    /// One accepted client of the scripted server: lines in, bytes out. Used by one thread at a time
    /// (the server's; the backlog writer only sends while the server thread no longer reads it).
    final class Peer: @unchecked Sendable {
        let fd: Int32
        private var pending = [UInt8]()
        init(_ fd: Int32) { self.fd = fd }

        /// The next line the client sent (without CRLF), `nil` at its end.
        func line() -> String? {
            while true {
                if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[..<end], as: UTF8.self)
                    pending.removeSubrange(...end)
                    return line.hasSuffix("\r") ? String(line.dropLast()) : line
                }
                var buffer = [UInt8](repeating: 0, count: 4_096)
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return nil }
                pending += buffer[..<n]
            }
        }

        /// Answers the client's CAP, NICK and JOIN until it has joined `channel`; its nick.
        func register(channel: String) -> String? {
            var nick = "justinfan"
            while let line = line() {
                if line.hasPrefix("CAP REQ") {
                    send(":tmi.twitch.tv CAP * ACK :\(line.split(separator: ":", maxSplits: 1).last ?? "")")
                } else if line.hasPrefix("NICK ") {
                    nick = String(line.dropFirst(5))
                    send(":tmi.twitch.tv 001 \(nick) :Welcome, GLHF!")
                } else if line == "JOIN #\(channel)" {
                    return nick
                }
            }
            return nil
        }

        /// Writes `lines` whole (blocking until the client has taken them).
        func send(_ lines: String...) { send(lines) }
        func send(_ lines: [String]) {
            let bytes = Array(lines.map { $0 + "\r\n" }.joined().utf8)
            var at = 0
            while at < bytes.count {
                let n = bytes[at...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { return }
                at += n
            }
        }

        /// Whether the client has closed its end (what it sent meanwhile is read and dropped);
        /// does not wait.
        func closedByClient() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n == 0 { return true }
                if n < 0 { return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR }
            }
        }

        private let closed = Mutex(false)

        /// Closes the socket once, however often it is called: a second close would close whatever
        /// descriptor of another test took the number meanwhile (the suites share one process).
        func close() {
            guard
                closed.withLock({
                    let was = $0
                    $0 = true
                    return !was
                })
            else { return }
            _ = Glibc.close(fd)
        }
    }

    /// Runs a session of `channel` against the scripted server on `port` until the line with id
    /// `last` came (and 200 ms more), at most a minute; the ids of the lines it delivered, in order.
    static func capture(
        _ channel: String, port: UInt16, until last: String, _ collected: Collected,
        settings: ConnectionSettings = ConnectionSettings()
    ) throws -> [String] {
        var settings = settings
        settings.joinLimit = 100
        let session = try LiveSession(
            channels: [channel], credentials: .anonymous,
            endpoint: Endpoint(host: "127.0.0.1", port: port, tls: nil), settings: settings,
            onLine: { bytes, _, _, _ in
                let line = String(decoding: bytes.withUnsafeBufferPointer { Array($0) }, as: UTF8.self)
                if let id = LineTags.value("id", in: line) { collected.ids.withLock { $0.append(id) } }
            }, onRecord: { _ in }, onProblem: { _ in })
        let stop = session.stop
        let watcher = Thread {
            let start = Date()
            while Date().timeIntervalSince(start) < 60, !collected.ids.withLock({ $0.contains(last) }) {
                usleep(20_000)
            }
            usleep(200_000)
            stop.raise()
        }
        watcher.start()
        _ = session.run(until: Moment.now().monotonicMs + 90_000)
        collected.done.withLock { $0 = true }
        return collected.ids.withLock { $0 }
    }

    /// Every expected id delivered once, and nothing else.
    static func check(_ ids: [String], _ expected: [String]) {
        let missing = Set(expected).subtracting(ids).sorted()
        let unexpected = Set(ids).subtracting(expected).sorted()
        #expect(missing.count == 0, "missing, e.g. \(missing.prefix(3))")
        #expect(ids.count - Set(ids).count == 0, "doubled")
        #expect(unexpected.count == 0, "unexpected, e.g. \(unexpected.prefix(3))")
    }

    static func joined(_ nick: String, _ channel: String) -> String {
        ":\(nick)!\(nick)@\(nick).tmi.twitch.tv JOIN #\(channel)"
    }

    /// The first connection joins `channel`, gets line a0 and RECONNECT; the second joins it. Both
    /// connections, open (the caller closes them), or `nil` when a client went away.
    static func reconnectOnce(_ listener: SocketLoopbackListener, _ channel: String) -> (Peer, Peer)? {
        let first = Peer(listener.accept())
        guard let nick1 = first.register(channel: channel) else {
            first.close()
            return nil
        }
        first.send(joined(nick1, channel), chat("a0", channel), ":tmi.twitch.tv RECONNECT")
        let second = Peer(listener.accept())
        guard let nick2 = second.register(channel: channel) else {
            first.close()
            second.close()
            return nil
        }
        second.send(joined(nick2, channel))
        return (first, second)
    }

    static func chat(_ id: String, _ channel: String) -> String {
        "@id=\(id);tmi-sent-ts=1 :u!u@u.tmi.twitch.tv PRIVMSG #\(channel) :message \(id) "
            + String(repeating: "x", count: 300)
    }

    @Test(
        "a second RECONNECT while the first retiring connection still holds unread lines: those lines are read before it is closed, none lost, none doubled"
    )
    func retiringBacklogIsRead() throws {
        let listener = try SocketLoopbackListener()
        defer { listener.close() }
        let channel = "lunafrost"
        // Sent only on the first connection, after the replacement asked to join and before its
        // JOIN is answered: chat only the retiring connection carries (8 MB, more than the socket
        // buffers hold, so most of it is still unread when the second RECONNECT comes).
        let backlog = (0..<20_000).map { "b\($0)" }
        let expected = ["a0", "a1", "a2"] + backlog + ["r0", "r1", "r2", "c0"]
        let collected = Collected()
        defer { collected.done.withLock { $0 = true } }
        let server = Thread {
            let first = Peer(listener.accept())
            defer { first.close() }
            guard let nick = first.register(channel: channel) else { return }
            first.send(":\(nick)!\(nick)@\(nick).tmi.twitch.tv JOIN #\(channel)")
            first.send(["a0", "a1", "a2"].map { Self.chat($0, channel) } + [":tmi.twitch.tv RECONNECT"])
            let second = Peer(listener.accept())
            defer { second.close() }
            guard let nick2 = second.register(channel: channel) else { return }
            // The first connection's backlog goes out on a thread of its own (it blocks until read);
            // once it has begun, the second connection joins, carries a few lines, and is sent
            // RECONNECT in its turn, while most of the backlog is still to come.
            // The first connection is closed only once its writer is done with it.
            let writerDone = DispatchSemaphore(value: 0)
            defer { writerDone.wait() }
            let writer = Thread {
                first.send(backlog[..<5_000].map { Self.chat($0, channel) })
                collected.backlogStarted.withLock { $0 = true }
                first.send(backlog[5_000...].map { Self.chat($0, channel) })
                shutdown(first.fd, Int32(SHUT_WR))
                writerDone.signal()
            }
            writer.start()
            while collected.backlogStarted.withLock({ !$0 }) { usleep(1_000) }
            second.send(":\(nick2)!\(nick2)@\(nick2).tmi.twitch.tv JOIN #\(channel)")
            second.send(["r0", "r1", "r2"].map { Self.chat($0, channel) } + [":tmi.twitch.tv RECONNECT"])
            let third = Peer(listener.accept())
            defer { third.close() }
            guard let nick3 = third.register(channel: channel) else { return }
            third.send(":\(nick3)!\(nick3)@\(nick3).tmi.twitch.tv JOIN #\(channel)")
            third.send(Self.chat("c0", channel))
            // The second connection's lines all came on the third too in Twitch; here the third
            // carries only what follows, and the second closes once the third has joined.
            usleep(300_000)
            second.close()
            while collected.done.withLock({ !$0 }) { usleep(20_000) }
        }
        server.start()

        // The drain waits for the writer thread: on a busy machine it can pause longer than the 500 ms
        // the drain waits by default for more, so here the drain waits for the first connection's end.
        var patient = ConnectionSettings()
        patient.retiredQuietMs = 30_000
        patient.retiredDrainMs = 60_000
        let ids = try Self.capture(channel, port: listener.port, until: "c0", collected, settings: patient)
        Self.check(ids, expected)
    }

    @Test(
        "the join's ROOMSTATE, the same on every connection, is no sign that the retiring connection was read: chat it alone carries later is still read"
    )
    func repeatedJoinLineConfirmsNothing() throws {
        let listener = try SocketLoopbackListener()
        defer { listener.close() }
        let channel = "lunafrost"
        let roomState = "@emote-only=0;room-id=1;slow=0 :tmi.twitch.tv ROOMSTATE #\(channel)"
        let late = (0..<5).map { "x\($0)" }
        let expected = ["a0", "m0", "k0", "c0"] + late
        let collected = Collected()
        defer { collected.done.withLock { $0 = true } }
        let server = Thread {
            let first = Peer(listener.accept())
            defer { first.close() }
            guard let nick1 = first.register(channel: channel) else { return }
            first.send(Self.joined(nick1, channel), roomState, Self.chat("a0", channel), ":tmi.twitch.tv RECONNECT")
            // The second connection joins (its own ROOMSTATE) and a line comes on both: the first
            // is handed over and closed.
            let second = Peer(listener.accept())
            defer { second.close() }
            guard let nick2 = second.register(channel: channel) else { return }
            second.send(Self.joined(nick2, channel), roomState)
            usleep(100_000)
            first.send(Self.chat("m0", channel))
            usleep(100_000)
            second.send(Self.chat("m0", channel), ":tmi.twitch.tv RECONNECT")
            // The third joins with the same ROOMSTATE. The second, behind, delivers what was said
            // before that join only 1.2 s later (longer than a drain waits for more), then a line both carry.
            let third = Peer(listener.accept())
            defer { third.close() }
            guard let nick3 = third.register(channel: channel) else { return }
            third.send(Self.joined(nick3, channel), roomState)
            usleep(1_200_000)
            second.send(late.map { Self.chat($0, channel) })
            usleep(100_000)
            second.send(Self.chat("k0", channel))
            usleep(100_000)
            third.send(Self.chat("k0", channel))
            usleep(200_000)
            second.close()
            third.send(Self.chat("c0", channel))
            while collected.done.withLock({ !$0 }) { usleep(20_000) }
        }
        server.start()
        // Only the line both carry (k0) may end the handover, not the settle time on a busy machine.
        var settings = ConnectionSettings()
        settings.handoverSettleMs = 60_000
        Self.check(
            try Self.capture(channel, port: listener.port, until: "c0", collected, settings: settings), expected)
    }

    @Test(
        "a retiring connection read behind its replacement (its copies come second, chat going on) is closed once it delivers a line the replacement carried after joining, not at the settle time; none lost, none doubled"
    )
    func retiringBehindIsClosedWhenCaughtUp() throws {
        let listener = try SocketLoopbackListener()
        defer { listener.close() }
        let channel = "lunafrost"
        let collected = Collected()
        defer { collected.done.withLock { $0 = true } }
        let sent = Mutex<[String]>([])
        let closedByClient = Mutex<Bool?>(nil)
        let server = Thread {
            guard let (first, second) = Self.reconnectOnce(listener, channel) else { return }
            defer {
                first.close()
                second.close()
            }
            usleep(100_000)
            // Chat goes on, each line to the replacement 30 ms before the retiring connection: it is behind.
            // p0 was said before the replacement joined: only the retiring connection carries it.
            second.send(Self.chat("m0", channel))
            usleep(50_000)
            first.send(Self.chat("p0", channel), Self.chat("m0", channel))
            var ids = ["a0", "p0", "m0"]
            // As Twitch (and serve's grace), the retiring connection plays on until it is closed:
            // here until the client closes it, or 10 s.
            let start = Date()
            var n = 0
            while Date().timeIntervalSince(start) < 10 {
                if first.closedByClient() {
                    closedByClient.withLock { $0 = true }
                    break
                }
                let id = "l\(n)"
                n += 1
                ids.append(id)
                second.send(Self.chat(id, channel))
                usleep(30_000)
                first.send(Self.chat(id, channel))
            }
            closedByClient.withLock { if $0 == nil { $0 = false } }
            sent.withLock { $0 = ids + ["c0"] }
            second.send(Self.chat("c0", channel))
            while collected.done.withLock({ !$0 }) { usleep(20_000) }
        }
        server.start()
        // Only a line on both may end the handover here: not the settle time.
        var settings = ConnectionSettings()
        settings.handoverSettleMs = 60_000
        let ids = try Self.capture(channel, port: listener.port, until: "c0", collected, settings: settings)
        #expect(closedByClient.withLock { $0 } == true, "the retiring connection was closed by the client")
        Self.check(ids, sent.withLock { $0 })
    }

    @Test(
        "a quiet retiring connection closed at the settle time is read on beside its replacement, not by a wait that holds the replacement's lines back; its late line is still read"
    )
    func retiredDrainDoesNotHoldTheLoop() throws {
        let listener = try SocketLoopbackListener()
        defer { listener.close() }
        let channel = "lunafrost"
        let collected = Collected()
        defer { collected.done.withLock { $0 = true } }
        // Whether r0, sent on the replacement while the retiring connection was still being read
        // on (not yet closed by the client), was delivered while that lasted.
        let deliveredMeanwhile = Mutex<Bool?>(nil)
        let server = Thread {
            // Nothing comes on both: the settle time (200 ms) closes the retiring connection, which
            // is then read on for as long as more comes within 30 s.
            guard let (first, second) = Self.reconnectOnce(listener, channel) else { return }
            defer {
                first.close()
                second.close()
            }
            usleep(600_000)
            second.send(Self.chat("r0", channel))
            let start = Date()
            var delivered = false
            while Date().timeIntervalSince(start) < 10, !first.closedByClient() {
                if collected.ids.withLock({ $0.contains("r0") }) {
                    delivered = true
                    break
                }
                usleep(10_000)
            }
            deliveredMeanwhile.withLock { $0 = delivered }
            // Chat said before the replacement joined, late on the retiring connection: still read.
            first.send(Self.chat("late0", channel))
            usleep(300_000)
            first.close()
            second.send(Self.chat("c0", channel))
            while collected.done.withLock({ !$0 }) { usleep(20_000) }
        }
        server.start()
        var settings = ConnectionSettings()
        settings.handoverSettleMs = 200
        settings.retiredQuietMs = 30_000
        settings.retiredDrainMs = 60_000
        let ids = try Self.capture(channel, port: listener.port, until: "c0", collected, settings: settings)
        #expect(deliveredMeanwhile.withLock { $0 } == true, "r0 delivered while the retiring connection was read on")
        Self.check(ids, ["a0", "r0", "late0", "c0"])
    }
}
