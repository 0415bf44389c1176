import ChatPosix
import ChatRun
import TwitchSession

/// SIGHUP with `--channels-file`: the channel list changes without a restart (``ChannelReload``).
extension CaptureCommand {
    /// The reload of `--channels-file` (with `--reload-on-change`, also on a change of the file), or
    /// `nil` without one (SIGHUP then ends the process, its default). What a reload does:
    /// ``ChannelReload/tick(now:session:writer:say:)``.
    ///
    /// - Parameter channels: the list the run starts with (after `--shard`).
    func channelReloader(channels: [String], shard: ChannelShard?) -> ChannelReload? {
        connection.channelsFile.map {
            ChannelReload(
                path: $0, arguments: self.channels, shard: shard, channels: channels,
                watchIntervalMs: reloading.interval.map { Seconds.milliseconds($0) })
        }
    }
}
