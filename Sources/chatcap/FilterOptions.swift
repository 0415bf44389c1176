import ArgumentParser
import ChatOutput
import TwitchSession

/// Which lines to write, shared by `replay` and `tail`.
struct FilterOptions: ParsableArguments {
    @Option(name: .customLong("channel"), help: "Only this channel (login, with or without #); repeatable.")
    var channels: [String] = []

    @Option(
        name: .customLong("user"),
        help:
            "Only lines from this login or about it (the CLEARCHAT/CLEARMSG that hit them, gifts to them); repeatable.")
    var users: [String] = []

    @Option(
        name: .customLong("type"),
        help: "Only this type (privmsg, usernotice, clearchat, notice, gap, session, …); repeatable.")
    var types: [String] = []

    @Option(help: "Only lines whose message text matches this regular expression.")
    var grep: String?

    @Flag(help: "Show messages a later CLEARMSG/CLEARCHAT removed with their tombstone (holds lines back).")
    var applyModeration = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --apply-moderation: seconds of chat time a line waits for a CLEARMSG/CLEARCHAT, \(FilterOptions.moderationWindowRange.text) (default 300 for replay, 5 for tail).",
            discussion:
                "Each channel has its own look-ahead: a line is written once its channel's ring (--capacity lines) has moved past it or this window has passed, whichever comes first; output keeps input order. Lines written early because more than 256 MiB were held are counted in the summary.",
            valueName: "seconds"),
        transform: { try FilterOptions.moderationWindowRange.parse($0) })
    var moderationWindow: Double?

    @Flag(help: "Show a shared-chat message once, not once per joined channel.")
    var dedupeShared = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Drop a line whose Twitch message id was already seen in its channel within this many seconds, \(FilterOptions.dedupeRange.text), e.g. to merge two captures of one channel.",
            discussion:
                "A line without an id (CLEARCHAT, CLEARMSG, JOIN, PART, NOTICE, ROOMSTATE, ...) is dropped when the same line, but for its receive-time tags (time, historical, rm-received-ts, rm-deleted), was kept from another input within the window; the summary counts both kinds. chatcap's own records always pass.",
            valueName: "seconds"),
        transform: { try FilterOptions.dedupeRange.parse($0) })
    var dedupe: Double?

    static let moderationWindowRange = NumberRange(0.1...86_400.0, unit: "seconds")
    static let dedupeRange = NumberRange(1...86_400.0, unit: "seconds")

    static let knownTypes = Set([
        "privmsg", "usernotice", "clearchat", "clearmsg", "roomstate", "userstate", "globaluserstate", "notice",
        "whisper", "join", "part", "reconnect", "ping", "pong", "cap", "numeric", "hosttarget", "unknown",
        // Records of our own: capture's stored records, tail's live ones.
        "gap", "session",
    ])

    func validate() throws {
        if let grep {
            do { _ = try Regex(grep) } catch { throw ValidationError("--grep: invalid regular expression: \(error)") }
        }
        for c in channels where !Login.isValid(Login.normalize(c)) {
            throw ValidationError(
                "--channel: '\(c)' is not a channel login (\(Login.whyInvalid(Login.normalize(c)))): no line could match"
            )
        }
        for u in users where !Login.isValid(u.lowercased()) {
            throw ValidationError("--user: '\(u)' is not a login (letters, digits and _): no line could match")
        }
        for t in types where !Self.knownTypes.contains(t) {
            throw ValidationError(
                "--type: unknown type '\(t)' (one of \(Self.knownTypes.sorted().joined(separator: ", ")))")
        }
    }

    /// - Parameter windowDefault: the moderation look-ahead window in seconds when none is given.
    func apply(to options: inout PipelineOptions, windowDefault: Double = 300) throws {
        options.moderationWindow = Int64((moderationWindow ?? windowDefault) * 1000)
        options.channels = Set(channels.map(Login.normalize))
        options.users = Set(users.map { $0.lowercased() })
        options.types = Set(types)
        options.grep = try grep.map { try Regex($0) }
        options.applyModeration = applyModeration
        options.dedupeShared = dedupeShared
        options.dedupeWindowMs = dedupe.map { Int64($0 * 1000) }
    }
}
