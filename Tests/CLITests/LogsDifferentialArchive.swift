import ChatTestSupport
import Foundation

/// A generated capture directory for comparing `chatcap logs --dir` with `--clickhouse`: three channels
/// (and 50 quiet ones) over 45 days in three months (Oct 20 – Dec 3, 2025), written as capture writes them (a `time` tag in
/// front, files named by the UTC day — `beta` by the hour — the line was received on).
///
/// It holds what the API distinguishes: PRIVMSGs (actions, bits, replies, UTF-8, `'` and `\` in text),
/// resubs, timeouts, bans, clears, deleted messages, lines the API never serves (JOIN, ROOMSTATE, a
/// malformed line), a line sent before midnight and received after it, a served line without
/// `tmi-sent-ts`, a user who renamed (`dave_old` → `dave_new`, id 2003, on Nov 10), a user with one line
/// (`solo`), and a channel folder whose name is no login (never served by either store). Beside the
/// three channels every route is asked of, 50 quiet ones (`q00`…`q49`, a few lines on about half the
/// days), and lines recovered by backfill (``recovered(channel:day:rng:)``): written after later live
/// lines, with `historical=1` and the service's `rm-received-ts`, as capture writes them.
struct LogsDifferentialArchive {
    static let channels: [(name: String, room: Int)] = [("alpha", 1001), ("beta", 1002), ("gamma_x", 1003)]
    static let quietChannels: [(name: String, room: Int)] = (0..<50).map { (String(format: "q%02d", $0), 5000 + $0) }
    static let users: [(login: String, id: Int)] = (1...8).map { (String(format: "u%02d", $0), 3000 + $0) }
    /// Oct 20, 2025 00:00 UTC.
    static let firstDay: Int64 = 1_760_918_400_000
    static let dayCount = 45
    static let renameDay = 21  // Nov 10
    static let words = [
        "hello", "it's", "back\\slash", "Kappa", "PogChamp", "ÄÖü 🎉", "gg", "what", "based", "lol", "\"quoted\"",
    ]

    /// Every stored line by file (relative path), with the time capture received it (a file is written
    /// in that order).
    private(set) var files: [String: [(received: Int64, line: String)]] = [:]
    /// The days (0…44) with served lines, by channel.
    private(set) var days: [String: Set<Int>] = [:]

    init() {
        var rng = SplitMix64(seed: 36)
        for (c, channel) in Self.channels.enumerated() {
            var lastReceived: Int64 = 0
            for day in 0..<Self.dayCount where rng.next(100) < 85 || day == Self.renameDay {
                let start = Self.firstDay + Int64(day) * 86_400_000
                let count = 6 + rng.next(14)
                // Some lines in bursts (sent within 400 ms of the one before), received up to 1.5 s later:
                // the order capture received them in is not always the order Twitch sent them in.
                var sent: [Int64] = []
                for _ in 0..<count {
                    let burst = !sent.isEmpty && rng.next(10) < 3
                    sent.append(burst ? sent.last! + Int64(rng.next(400)) : start + Int64(rng.next(86_000_000)))
                }
                sent.sort()
                if day == 10 && c == 0 { sent.append(start + 86_399_900) }  // received after midnight
                var lines: [(received: Int64, line: String)] = []
                for (i, at) in sent.enumerated() {
                    var received = at + 20 + Int64(rng.next(1500))
                    while received <= lastReceived || lines.contains(where: { $0.received == received }) {
                        received += 1
                    }
                    lines.append((received, Self.line(channel: channel, day: day, index: i, sent: at, rng: &rng)))
                }
                lastReceived = lines.map(\.received).max() ?? lastReceived
                for (received, line) in lines { add(channel.name, received: received, line) }
                if day % 7 == 3 { recovered(channel: channel, day: day, rng: &rng) }
            }
        }
        for (q, channel) in Self.quietChannels.enumerated() {
            for day in 0..<Self.dayCount where rng.next(100) < 45 {
                let start = Self.firstDay + Int64(day) * 86_400_000
                for i in 0..<(1 + rng.next(3)) {
                    let sent = start + Int64(i) * 3_600_000 + Int64(rng.next(3_000_000))
                    add(
                        channel.name, received: sent + 30,
                        Self.line(channel: channel, day: day, index: i, sent: sent, rng: &rng))
                }
                if q < 5 && day % 9 == 4 { recovered(channel: channel, day: day, rng: &rng) }
            }
        }
        add(
            "gamma_x", received: Self.firstDay + 30 * 86_400_000 + 5,
            Self.privmsg("gamma_x", 1003, "solo", 4242, Self.firstDay + 30 * 86_400_000, "only once"))
        add(
            "alpha", received: Self.firstDay + 12 * 86_400_000 + 7,
            "@emote-only=0;room-id=1001 :tmi.twitch.tv ROOMSTATE #alpha")
        add("alpha", received: Self.firstDay + 12 * 86_400_000 + 9, "@room-id=1001;tags-and-nothing-else")
        add(
            "alpha", received: Self.firstDay + 12 * 86_400_000 + 11,
            "@badges=;color=;display-name=U01;room-id=1001;user-id=3001 :u01!u01@u01.tmi.twitch.tv PRIVMSG #alpha :no tmi-sent-ts"
        )
        let evil = Self.firstDay + 31 * 86_400_000
        files["evil'--x/2025-11-20.log", default: []].append(
            (evil, Self.stored(evil, Self.privmsg("evil", 1, "u01", 3001, evil, "hidden"))))
    }

    /// Three messages of a gap in `channel` on `day` (sent from 23:00 on, within a minute), recovered by a
    /// backfill and so received (written) at 23:30, after the live lines of the day: `historical=1` and
    /// the service's `rm-received-ts` in front, as ``BackfillCoordinator`` writes them.
    private mutating func recovered(channel: (name: String, room: Int), day: Int, rng: inout SplitMix64) {
        let start = Self.firstDay + Int64(day) * 86_400_000 + 23 * 3_600_000
        for i in 0..<3 {
            let sent = start + Int64(i) * 20_000 + Int64(rng.next(1000))
            let user = Self.users[rng.next(Self.users.count)]
            let line = Self.privmsg(channel.name, channel.room, user.login, user.id, sent, "recovered \(i) gg")
            add(
                channel.name, received: start + 1_800_000 + Int64(i),
                "@historical=1;rm-received-ts=\(sent + 40);" + line.dropFirst())
        }
    }

    /// Writes the files under `root` (gzipped).
    func write(to root: String) throws {
        for (path, lines) in files {
            let full = root + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let ordered = lines.enumerated().sorted {
                ($0.element.received, $0.offset) < ($1.element.received, $1.offset)
            }
            try Data(ordered.map { $0.element.line + "\r\n" }.joined().utf8).write(to: URL(fileURLWithPath: full))
            let zipped = try CLI.shell("gzip -f " + InputShell.quote(full))
            guard zipped.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
    }

    /// The day numbers (0…44) with served lines of `channel`.
    func activeDays(_ channel: String) -> [Int] { days[channel, default: []].sorted() }

    private mutating func add(_ channel: String, received: Int64, _ line: String) {
        let day = Int((received - Self.firstDay) / 86_400_000)
        let name = Self.dayName(received) + (channel == "beta" ? "T" + Self.hour(received) : "") + ".log"
        files[channel + "/" + name, default: []].append((received, Self.stored(received, line)))
        if line.contains("room-id=") && !line.contains("ROOMSTATE") { days[channel, default: []].insert(day) }
    }

    private static func line(
        channel: (name: String, room: Int), day: Int, index: Int, sent: Int64, rng: inout SplitMix64
    ) -> String {
        let c = channel.name
        let r = channel.room
        let who = rng.next(10)
        let user: (login: String, id: Int) =
            who >= Self.users.count ? (day < Self.renameDay ? "dave_old" : "dave_new", 2003) : Self.users[who]
        let kind = rng.next(100)
        let text = (0..<(1 + rng.next(4))).map { _ in Self.words[rng.next(Self.words.count)] }.joined(separator: " ")
        switch kind {
        case 0..<8:
            let months = 2 + rng.next(30)
            return
                "@badge-info=subscriber/\(months);badges=subscriber/12;color=#8A2BE2;display-name=\(user.login.uppercased());"
                + "id=sub-\(c)-\(sent);login=\(user.login);msg-id=resub;room-id=\(r);"
                + "system-msg=\(user.login)\\ssubscribed\\sfor\\s\(months)\\smonths!;tmi-sent-ts=\(sent);user-id=\(user.id) "
                + ":tmi.twitch.tv USERNOTICE #\(c)" + (rng.next(2) == 0 ? " :\(text)" : "")
        case 8..<13:
            return
                "@ban-duration=\(60 * (1 + rng.next(10)));room-id=\(r);target-user-id=\(user.id);tmi-sent-ts=\(sent) "
                + ":tmi.twitch.tv CLEARCHAT #\(c) :\(user.login)"
        case 13..<15:
            return
                "@room-id=\(r);target-user-id=\(user.id);tmi-sent-ts=\(sent) :tmi.twitch.tv CLEARCHAT #\(c) :\(user.login)"
        case 15:
            return "@room-id=\(r);tmi-sent-ts=\(sent) :tmi.twitch.tv CLEARCHAT #\(c)"
        case 16..<20:
            return "@login=\(user.login);room-id=\(r);target-msg-id=m-\(sent - 1000);tmi-sent-ts=\(sent) "
                + ":tmi.twitch.tv CLEARMSG #\(c) :\(text)"
        case 20..<24:
            return ":\(user.login)!\(user.login)@\(user.login).tmi.twitch.tv JOIN #\(c)"
        case 24..<26:
            return "@emote-only=0;followers-only=-1;room-id=\(r);slow=0 :tmi.twitch.tv ROOMSTATE #\(c)"
        default:
            var line = privmsg(c, r, user.login, user.id, sent, kind % 10 == 0 ? "\u{1}ACTION \(text)\u{1}" : text)
            if kind % 7 == 0 { line = "@bits=\(100 * (1 + kind % 5));" + line.dropFirst() }
            if kind % 11 == 0 { line = "@reply-parent-msg-id=m-\(sent - 5000);" + line.dropFirst() }
            return line
        }
    }

    static func privmsg(_ c: String, _ room: Int, _ login: String, _ id: Int, _ sent: Int64, _ text: String) -> String {
        "@badge-info=;badges=;color=#1E90FF;display-name=\(login.prefix(1).uppercased() + login.dropFirst());emotes=;"
            + "id=m-\(sent);room-id=\(room);tmi-sent-ts=\(sent);user-id=\(id) :\(login)!\(login)@\(login).tmi.twitch.tv "
            + "PRIVMSG #\(c) :\(text)"
    }

    /// The line with capture's `time` tag in front.
    static func stored(_ received: Int64, _ line: String) -> String {
        let time = "@time=" + rfc3339(received)
        return line.hasPrefix("@") ? time + ";" + line.dropFirst() : time + " " + line
    }

    static func rfc3339(_ ms: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }

    static func dayName(_ ms: Int64) -> String { String(rfc3339(ms).prefix(10)) }
    static func hour(_ ms: Int64) -> String { String(rfc3339(ms).dropFirst(11).prefix(2)) }

    /// `y/m/d` of day `n` (0: Oct 20, 2025), as routes write it.
    static func route(day n: Int) -> String {
        let parts = dayName(firstDay + Int64(n) * 86_400_000).split(separator: "-").map { Int($0)! }
        return "\(parts[0])/\(parts[1])/\(parts[2])"
    }
}

extension SplitMix64 {
    /// A number in `0..<bound`.
    fileprivate mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
