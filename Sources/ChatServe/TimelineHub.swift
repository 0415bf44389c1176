import ChatHTTP

/// The timelines of one server (see ``LogTimeline``) and who is in each channel (for relaying what
/// clients say).
///
/// By default the server has one timeline, made at the first JOIN and shared by every client and
/// channel: a later JOIN, also after a reconnect, joins the channel where it is, like a live channel.
/// With ``ServeOptions/fromStart`` each client gets timelines of its own that start at the log's start.
///
/// Confined to the server's loop thread.
final class TimelineHub {
    private let log: ReplayLog
    private let options: ServeOptions
    private let report: (String) -> Void
    /// Where the shared timeline records what it plays, if anywhere.
    private let history: RecentHistory?
    private var shared: LogTimeline?
    private var members: [String: [any ChannelMember]] = [:]
    /// Whether the first JOIN of a channel the log does not have was explained on stderr.
    private var explainedUnknown = false

    init(log: ReplayLog, options: ServeOptions, history: RecentHistory? = nil, report: @escaping (String) -> Void) {
        self.log = log
        self.options = options
        self.history = history
        self.report = report
    }

    /// The timeline a JOIN by the client named `owner` plays from: the shared one (made at the first
    /// JOIN) or, with `--from-start`, one of the client's `own` timelines that has not started yet
    /// (channels joined in one burst share it) or else a new one, from the log's start.
    func timeline(owner: String, own: [LogTimeline]) -> LogTimeline {
        if options.fromStart {
            if let fresh = own.first(where: { !$0.hasStarted }) { return fresh }
            return LogTimeline(owner: owner, log: log, options: options, report: report)
        }
        if let shared { return shared }
        let timeline = LogTimeline(owner: nil, log: log, options: options, history: history, report: report)
        shared = timeline
        return timeline
    }

    /// Records that `member` is in `channel`.
    func enter(_ member: any ChannelMember, _ channel: String) {
        if members[channel, default: []].contains(where: { $0 === member }) { return }
        members[channel, default: []].append(member)
    }

    /// Records that `member` left `channel`.
    func leave(_ member: any ChannelMember, _ channel: String) {
        members[channel]?.removeAll { $0 === member }
        if members[channel]?.isEmpty == true { members[channel] = nil }
    }

    /// Who is in `channel` now.
    func members(of channel: String) -> [any ChannelMember] {
        members[channel] ?? []
    }

    /// The report for a JOIN of a channel the log does not have: the first one explains the policy.
    func unknownChannelReport(_ channel: String, client: String) -> String {
        let outcome =
            options.unknownChannel == .empty
            ? "joined, with nothing to play" : "JOIN dropped without an answer"
        var text = "\(client): #\(channel) is not in the log: \(outcome) (--unknown-channel \(options.unknownChannel))"
        if !explainedUnknown {
            explainedUnknown = true
            text +=
                options.unknownChannel == .empty
                ? "; --unknown-channel refuse drops such JOINs, as Twitch does for a channel that does not exist"
                : "; --unknown-channel empty lets such JOINs succeed with an empty channel"
        }
        return text
    }
}

/// A client in a channel, as the hub relays to it: it takes a chat line another client sent.
protocol ChannelMember: AnyObject {
    /// Takes a relayed line (with its tags, without CR LF).
    func receiveRelayed(_ line: String)
}

@available(*, unavailable)
extension TimelineHub: Sendable {}
