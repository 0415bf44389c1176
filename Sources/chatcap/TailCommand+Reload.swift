import ChatPosix
import ChatRun

/// SIGHUP with `--channels-file`: the channel list changes without a restart (``ChannelReload``).
extension TailCommand {
    /// The reload of `--channels-file` (with `--reload-on-change`, also on a change of the file), or
    /// `nil` without one (SIGHUP then ends the process, its default). What a reload does:
    /// ``ChannelReload/tick(now:session:say:)``.
    func channelReloader() throws -> ChannelReload? {
        guard let path = connection.channelsFile else { return nil }
        return ChannelReload(
            path: path, arguments: channels, shard: nil, channels: try connection.channels(channels),
            watchIntervalMs: reloading.interval.map { Seconds.milliseconds($0) })
    }
}
