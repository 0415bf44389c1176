import ChatLive
import ChatPosix
import ChatRun
import TwitchSession

/// SIGHUP with `--channels-file`: the channel list changes without a restart (``ChannelReload``).
extension TailCommand {
    /// What the ingest loop's tick calls to take a SIGHUP (or, with `--reload-on-change`, a change of
    /// the file), or `nil` without `--channels-file` (SIGHUP then ends the process, its default).
    /// Installs the SIGHUP handler. What a reload does: ``ChannelReload/tick(now:session:say:)``.
    func channelReloader(session: LiveSession) throws -> (() -> Void)? {
        guard let path = connection.channelsFile else { return nil }
        let reload = ChannelReload(
            path: path, arguments: channels, shard: nil, channels: try connection.channels(channels),
            watchIntervalMs: reloading.interval.map { Seconds.milliseconds($0) })
        reload.install()
        return { reload.tick(now: Moment.now(), session: session, say: Diagnostics.note) }
    }
}
