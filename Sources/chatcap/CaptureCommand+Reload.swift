import ChatArchive
import ChatLive
import ChatPosix
import ChatRun
import TwitchSession

/// SIGHUP with `--channels-file`: the channel list changes without a restart (``ChannelReload``).
extension CaptureCommand {
    /// What the ingest loop's tick calls to take a SIGHUP (or, with `--reload-on-change`, a change of
    /// the file), or `nil` without `--channels-file` (SIGHUP then ends the process, its default).
    /// Installs the SIGHUP handler. What a reload does: ``ChannelReload/tick(now:session:writer:say:)``.
    ///
    /// - Parameters:
    ///   - channels: the list the run started with (after `--shard`).
    ///   - failed: called with a write error (the run then stops, as for any).
    func channelReloader(
        channels: [String], shard: ChannelShard?, session: LiveSession, writer: CaptureWriter,
        say: @escaping (String) -> Void, failed: @escaping (CaptureError) -> Void
    ) -> (() -> Void)? {
        guard let path = connection.channelsFile else { return nil }
        let reload = ChannelReload(
            path: path, arguments: self.channels, shard: shard, channels: channels,
            watchIntervalMs: reloading.interval.map { Seconds.milliseconds($0) })
        reload.install()
        return {
            do throws(CaptureError) {
                try reload.tick(now: Moment.now(), session: session, writer: writer, say: say)
            } catch {
                failed(error)
            }
        }
    }
}
