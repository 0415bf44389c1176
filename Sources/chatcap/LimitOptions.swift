import ArgumentParser
import ChatStore

/// `--report-limit`: each command declares it with its own default (20 on stderr; `stats` lists 100
/// in its output) and checks it here.
enum ReportLimit {
    /// The option's help, for a command that describes problems `destination`.
    static func help(_ destination: String) -> ArgumentHelp {
        ArgumentHelp(
            "Problems (malformed or over-long lines, damaged inputs, …) described one by one \(destination), "
                + "with input and line; further ones are only counted in the summary. 0 or more; 0 describes all.",
            valueName: "n")
    }

    /// A usage error (exit 64) for a negative limit.
    static func validate(_ limit: Int) throws {
        guard limit >= 0 else {
            throw ValidationError("--report-limit must be 0 (describe every problem) or a positive count, not \(limit)")
        }
    }
}

/// `--channel-limit` (hidden, for tests): the most channels the store keeps, so that what happens past
/// the real limit (262,144) can be tested with a few dozen channels.
struct ChannelLimitOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "For tests: the most channels kept, 1 to \(ChatStore.maximumChannels) (the default). Lines of "
                + "further channels are written without moderation or de-duplication (replay, tail) or "
                + "dropped with exit status 65 (dump); each is counted in the summary.",
            valueName: "n", visibility: .hidden))
    var channelLimit = ChatStore.maximumChannels

    func validate() throws {
        guard (1...ChatStore.maximumChannels).contains(channelLimit) else {
            throw ValidationError("--channel-limit must be 1 to \(ChatStore.maximumChannels), not \(channelLimit)")
        }
    }
}
