/// The channels of one server: the timeline each channel plays (see ``ChannelTimeline``) and who is
/// in each channel (for relaying what clients say).
///
/// By default a channel's timeline is made at its first JOIN and shared by every client that joins it
/// later, also after a reconnect: it plays on like a live channel. With ``ServeOptions/fromStart``
/// every JOIN makes a timeline of the client's own that starts at the log's start.
///
/// Confined to the server's loop thread.
final class TimelineHub {
    private let log: ReplayLog
    private let options: ServeOptions
    private let report: (String) -> Void
    private var shared: [String: ChannelTimeline] = [:]
    private var members: [String: [any ChannelMember]] = [:]
    /// Whether the first JOIN of a channel the log does not have was explained on stderr.
    private var explainedUnknown = false

    init(log: ReplayLog, options: ServeOptions, report: @escaping (String) -> Void) {
        self.log = log
        self.options = options
        self.report = report
    }

    /// The timeline `channel` plays for a client named `owner` that joins it: the channel's shared one
    /// (made now if it is the channel's first JOIN) or, with `--from-start`, a new one of its own.
    func timeline(for channel: String, owner: String) -> ChannelTimeline {
        if options.fromStart {
            return ChannelTimeline(
                channel: channel, label: "\(owner): #\(channel)", log: log, options: options, report: report)
        }
        if let timeline = shared[channel] { return timeline }
        let timeline = ChannelTimeline(
            channel: channel, label: "#\(channel)", log: log, options: options, report: report)
        shared[channel] = timeline
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
