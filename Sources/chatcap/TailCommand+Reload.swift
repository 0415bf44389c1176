import ChatLive
import ChatPosix
import TwitchSession

/// SIGHUP with `--channels-file`: the channel list changes without a restart (``ChannelReload``).
extension TailCommand {
    /// What the ingest loop's tick calls to take a SIGHUP (or, with `--reload-on-change`, a change of
    /// the file), or `nil` without `--channels-file` (SIGHUP then ends the process, its default).
    /// Installs the SIGHUP handler.
    ///
    /// A reload is said on stderr; the added channels are joined at the JOIN pace, the removed ones
    /// parted (a `parted` session record in the output; lines the server sent before it had the PART
    /// are still printed). Every other channel and its connection go on untouched.
    func channelReloader(session: LiveSession) throws -> (() -> Void)? {
        guard let path = connection.channelsFile else { return nil }
        let reload = ChannelReload(
            path: path, arguments: channels, shard: nil, channels: try connection.channels(channels),
            watchIntervalMs: reloading.interval.map { Seconds.milliseconds($0) })
        reload.install()
        return {
            guard let outcome = reload.poll(nowMs: Moment.now().monotonicMs) else { return }
            Diagnostics.note(reload.describe(outcome))
            if case .changed(let added, let removed, _) = outcome {
                session.update(adding: added, removing: removed)
            }
        }
    }
}
