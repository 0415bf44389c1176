import ChatGzip
import ChatTestSupport

/// A small generated capture directory: two channels, moderation, two users, a rename, days in two
/// months, an hourly-rotated day, a malformed line, capture's `_session` folder.
///
/// | channel (room-id) | files |
/// | --- | --- |
/// | `alpha` (1001) | `2025-10-31.log.gz`, `2025-11-20.log.gz`, `2025-11-21.log.gz` |
/// | `beta` (1002) | `2025-11-21T04.log.gz`, `2025-11-21T05.log.gz` (hourly) |
///
/// Users: `bob` (2001), `carol` (2002), `dave_old` → `dave_new` (2003, renamed between October and
/// November).
final class LogsFixture: @unchecked Sendable {  // immutable after init
    let directory: InputTempDirectory
    var root: String { directory.path }

    /// A stored line: the `time` tag capture adds, then the line as the server sent it.
    static func stored(_ time: String, _ line: String) -> String {
        line.hasPrefix("@") ? "@time=\(time);" + line.dropFirst() : "@time=\(time) " + line
    }

    static func privmsg(_ login: String, id: Int, room: Int, channel: String, sent: Int64, text: String) -> String {
        let name = login.prefix(1).uppercased() + login.dropFirst()
        return "@badge-info=;badges=;color=#1E90FF;display-name=\(name);emotes=;id=msg-\(login)-\(sent);"
            + "room-id=\(room);tmi-sent-ts=\(sent);user-id=\(id) :\(login)!\(login)@\(login).tmi.twitch.tv "
            + "PRIVMSG #\(channel) :\(text)"
    }

    /// 2025-11-20T10:00:00Z and later seconds, in milliseconds.
    static let nov20: Int64 = 1_763_632_800_000
    static let nov21: Int64 = nov20 + 86_400_000
    static let oct31: Int64 = nov20 - 20 * 86_400_000

    static let alphaOct31 = [
        stored(
            "2025-10-31T10:00:00.000Z",
            privmsg("dave_old", id: 2003, room: 1001, channel: "alpha", sent: oct31, text: "old name"))
    ]

    static let alphaNov20 = [
        stored(
            "2025-11-20T10:00:00.100Z",
            privmsg("bob", id: 2001, room: 1001, channel: "alpha", sent: nov20, text: "hello")),
        stored(
            "2025-11-20T10:00:01.100Z",
            privmsg("carol", id: 2002, room: 1001, channel: "alpha", sent: nov20 + 1000, text: "\u{1}ACTION waves\u{1}")
        ),
        stored("2025-11-20T10:00:02.000Z", "@emote-only=0;room-id=1001;slow=0 :tmi.twitch.tv ROOMSTATE #alpha"),
        stored("2025-11-20T10:00:03.000Z", ":carol!carol@carol.tmi.twitch.tv JOIN #alpha"),
        "@time=2025-11-20T10:00:03.500Z;tags-and-nothing-else",
        stored(
            "2025-11-20T10:00:04.000Z",
            "@ban-duration=600;room-id=1001;target-user-id=2001;tmi-sent-ts=\(nov20 + 4000) :tmi.twitch.tv CLEARCHAT #alpha :bob"
        ),
        stored(
            "2025-11-20T10:00:05.000Z",
            "@login=carol;room-id=1001;target-msg-id=msg-carol-\(nov20 + 1000);tmi-sent-ts=\(nov20 + 5000) :tmi.twitch.tv CLEARMSG #alpha :waves"
        ),
        stored(
            "2025-11-20T10:00:06.000Z",
            "@badge-info=;badges=;display-name=Carol;login=carol;msg-id=resub;room-id=1001;system-msg=Carol\\ssubscribed\\sfor\\s3\\smonths!;tmi-sent-ts=\(nov20 + 6000);user-id=2002 :tmi.twitch.tv USERNOTICE #alpha :still here"
        ),
    ]

    static let alphaNov21 = [
        stored(
            "2025-11-21T10:00:00.000Z",
            privmsg("dave_new", id: 2003, room: 1001, channel: "alpha", sent: nov21, text: "new name")),
        stored(
            "2025-11-21T10:00:01.000Z",
            "@room-id=1001;target-user-id=2002;tmi-sent-ts=\(nov21 + 1000) :tmi.twitch.tv CLEARCHAT #alpha :carol"),
        stored("2025-11-21T10:00:02.000Z", "@room-id=1001;tmi-sent-ts=\(nov21 + 2000) :tmi.twitch.tv CLEARCHAT #alpha"),
    ]

    static let betaT04 = [
        stored(
            "2025-11-21T04:59:59.000Z",
            privmsg("bob", id: 2001, room: 1002, channel: "beta", sent: nov21 - 18_001_000, text: "first"))
    ]
    static let betaT05 = [
        stored(
            "2025-11-21T05:00:00.000Z",
            privmsg("carol", id: 2002, room: 1002, channel: "beta", sent: nov21 - 18_000_000, text: "second"))
    ]

    init(_ label: String = #function) throws {
        directory = try InputTempDirectory("logs-" + label)
        let gzip = try GzipCompressor()
        func write(_ path: String, _ lines: [String]) throws {
            let bytes = Array(lines.map { $0 + "\r\n" }.joined().utf8)
            _ = try directory.write(path, gzip.compress(bytes))
        }
        try write("alpha/2025-10-31.log.gz", Self.alphaOct31)
        try write("alpha/2025-11-20.log.gz", Self.alphaNov20)
        try write("alpha/2025-11-21.log.gz", Self.alphaNov21)
        try write("beta/2025-11-21T04.log.gz", Self.betaT04)
        try write("beta/2025-11-21T05.log.gz", Self.betaT05)
        try write("_session/2025-11-21.log.gz", [":chatcap CAPTURE start - :secret session record"])
        _ = try directory.write("alpha/notes.txt", Array("not a log\n".utf8))
    }

}
