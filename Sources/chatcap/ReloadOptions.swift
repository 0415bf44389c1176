import ArgumentParser

/// `--reload-on-change`, shared by `capture` and `tail`: besides SIGHUP, a change of
/// `--channels-file` reloads the channel list (``ChannelReload``).
struct ReloadOptions: ParsableArguments {
    @Option(
        name: .customLong("reload-on-change"),
        help: ArgumentHelp(
            "With --channels-file: also reload the channel list when the file changes (as SIGHUP does), checked "
                + "every this many seconds, \(ReloadOptions.intervalRange.text); a change is applied once the file "
                + "has stayed the same for one interval, so a file half written is not read.",
            valueName: "seconds"),
        transform: { try ReloadOptions.intervalRange.parse($0) })
    var interval: Double?

    static let intervalRange = NumberRange(0.1...3_600.0, unit: "seconds")

    /// Cross-field: the option watches `--channels-file`, so it needs one.
    func validate(channelsFile: String?) throws {
        if interval != nil && channelsFile == nil {
            throw ValidationError("--reload-on-change watches --channels-file: give one")
        }
    }
}
