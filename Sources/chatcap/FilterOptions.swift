import ArgumentParser
import ChatReplay
import TwitchSession

/// Which lines to write, shared by `replay` and `tail`.
struct FilterOptions: ParsableArguments {
    @Option(name: .customLong("channel"), help: "Only this channel (login, with or without #); repeatable.")
    var channels: [String] = []

    @Option(name: .customLong("user"), help: "Only lines from this login; repeatable.")
    var users: [String] = []

    @Option(name: .customLong("type"), help: "Only this type (privmsg, usernotice, clearchat, notice, …); repeatable.")
    var types: [String] = []

    @Option(help: "Only lines whose message text matches this regular expression.")
    var grep: String?

    @Flag(help: "Show messages a later CLEARMSG/CLEARCHAT removed with their tombstone (holds lines back).")
    var applyModeration = false

    @Flag(help: "Show a shared-chat message once, not once per joined channel.")
    var dedupeShared = false

    static let knownTypes = Set([
        "privmsg", "usernotice", "clearchat", "clearmsg", "roomstate", "userstate", "globaluserstate", "notice",
        "whisper", "join", "part", "reconnect", "ping", "pong", "cap", "numeric", "hosttarget", "unknown",
    ])

    func validate() throws {
        if let grep {
            do { _ = try Regex(grep) } catch { throw ValidationError("--grep: invalid regular expression: \(error)") }
        }
        for t in types where !Self.knownTypes.contains(t) {
            throw ValidationError(
                "--type: unknown type '\(t)' (one of \(Self.knownTypes.sorted().joined(separator: ", ")))")
        }
    }

    func apply(to options: inout ReplayOptions) throws {
        options.channels = Set(channels.map(Login.normalize))
        options.users = Set(users.map { $0.lowercased() })
        options.types = Set(types)
        options.grep = try grep.map { try Regex($0) }
        options.applyModeration = applyModeration
        options.dedupeShared = dedupeShared
    }
}
