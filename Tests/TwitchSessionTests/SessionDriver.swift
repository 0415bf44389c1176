import ChatStore
import IRCWire
import TwitchSession

/// Wall-clock arithmetic for the tests, in milliseconds: `lostAt + 7_000`, `gap.to - gap.from`.
extension Timestamp {
    static func + (instant: Timestamp, milliseconds: Int64) -> Timestamp {
        instant.advanced(byMilliseconds: milliseconds)
    }
    static func - (instant: Timestamp, milliseconds: Int64) -> Timestamp {
        instant.advanced(byMilliseconds: -milliseconds)
    }
    static func - (later: Timestamp, earlier: Timestamp) -> Int64 { later.milliseconds - earlier.milliseconds }
}

/// Drives a ``ConnectionMachine`` like the ingest loop would, with a hand-moved clock.
struct SessionDriver {
    static let start = Moment(monotonicMs: 5_000_000, wallMs: 1_700_000_000_000)

    var machine: ConnectionMachine
    var now = SessionDriver.start
    /// Every action so far, with the moment it was returned.
    private(set) var log: [(at: Moment, action: ConnectionAction)] = []

    init(
        channels: [String], credentials: Credentials = .anonymous, settings: ConnectionSettings = ConnectionSettings(),
        seed: UInt64 = 7
    ) {
        machine = ConnectionMachine(channels: channels, credentials: credentials, settings: settings, seed: seed)
    }

    @discardableResult
    mutating func startMachine() -> [ConnectionAction] {
        record(machine.start(at: now))
    }

    @discardableResult
    mutating func send(_ event: ConnectionEvent) -> [ConnectionAction] {
        record(machine.handle(event, at: now))
    }

    /// Parses `raw` as the server would send it, classifies it and hands it to the machine.
    @discardableResult
    mutating func receive(_ raw: String) -> [ConnectionAction] {
        let bytes = Array(raw.utf8)
        let message = try! TwitchMessage.parse(bytes.span)
        let line = machine.classify(message, in: bytes.span)
        return send(.lineReceived(line))
    }

    /// Moves the clock by `ms`, ticking at every deadline on the way, as the loop does.
    @discardableResult
    mutating func advance(by ms: Int64) -> [ConnectionAction] {
        precondition(ms >= 0)
        let target = now.monotonicMs + ms
        var actions: [ConnectionAction] = []
        while let deadline = machine.nextDeadline, deadline <= target {
            precondition(deadline >= now.monotonicMs, "a deadline in the past was left unhandled")
            now = now.advanced(byMs: deadline - now.monotonicMs)
            actions += send(.tick)
        }
        now = now.advanced(byMs: target - now.monotonicMs)
        actions += send(.tick)
        return actions
    }

    /// `.connected`, CAP ACK and the welcome: a registered connection.
    @discardableResult
    mutating func connectAndRegister() -> [ConnectionAction] {
        var actions = send(.connected)
        actions += receive(":tmi.twitch.tv CAP * ACK :twitch.tv/tags twitch.tv/commands twitch.tv/membership")
        actions += receive(":tmi.twitch.tv 001 \(machine.nick) :Welcome, GLHF!")
        return actions
    }

    /// Echoes our JOIN for each channel.
    @discardableResult
    mutating func echoJoins(_ channels: [String]) -> [ConnectionAction] {
        let nick = machine.nick
        var actions: [ConnectionAction] = []
        for channel in channels { actions += receive(":\(nick)!\(nick)@\(nick).tmi.twitch.tv JOIN #\(channel)") }
        return actions
    }

    /// Adds `channels` at run time (each must be accepted), then ticks as the loop does: the JOINs
    /// the pace allows now.
    @discardableResult
    mutating func add(_ channels: String...) -> [ConnectionAction] {
        for channel in channels { precondition(machine.add(channel, at: now), "\(channel) not added") }
        return send(.tick)
    }

    /// Removes `channel` at run time.
    @discardableResult
    mutating func remove(_ channel: String) -> [ConnectionAction] {
        record(machine.remove(channel, at: now))
    }

    private mutating func record(_ actions: [ConnectionAction]) -> [ConnectionAction] {
        for action in actions { log.append((now, action)) }
        return actions
    }
}

extension Array where Element == ConnectionAction {
    var sent: [OutgoingMessage] {
        compactMap { if case .send(let message) = $0 { message } else { nil } }
    }
    var sentVerbs: [String] { sent.map(\.verb) }
    /// Channels of the JOINs sent, in order.
    var joined: [String] {
        sent.filter { $0.verb == "JOIN" }.flatMap { $0.params[0].split(separator: ",").map { String($0.dropFirst()) } }
    }
    var records: [SessionRecord] {
        compactMap { if case .report(let record) = $0 { record } else { nil } }
    }
    var gaps: [Gap] {
        records.compactMap { if case .gap(let gap) = $0 { gap } else { nil } }
    }
    var connectDelays: [Int64] {
        compactMap { if case .connect(let after) = $0 { after } else { nil } }
    }
    var closeReasons: [DisconnectReason] {
        compactMap { if case .close(let reason) = $0 { reason } else { nil } }
    }
    var joinFailures: [(channel: String, reason: JoinFailure)] {
        records.compactMap { if case .joinFailed(let channel, let reason, _) = $0 { (channel, reason) } else { nil } }
    }
    var joinedRecords: [String] {
        records.compactMap { if case .joined(let channel, _) = $0 { channel } else { nil } }
    }
}

/// `count` channel logins `c000`, `c001`, …
func sessionChannels(_ count: Int, prefix: String = "c") -> [String] {
    (0..<count).map { n in prefix + String(repeating: "0", count: max(0, 3 - String(n).count)) + String(n) }
}
