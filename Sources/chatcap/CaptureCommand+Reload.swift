import ChatArchive
import ChatLive
import ChatPosix
import TwitchSession

/// SIGHUP with `--channels-file`: the channel list changes without a restart (``ChannelReload``).
extension CaptureCommand {
    /// What the ingest loop's tick calls to take a SIGHUP (or, with `--reload-on-change`, a change of
    /// the file), or `nil` without `--channels-file` (SIGHUP then ends the process, its default).
    /// Installs the SIGHUP handler.
    ///
    /// A reload stores a `reload` record in `_session` (or `reload-failed`, keeping the list in force)
    /// and says it on stderr; then the added channels get lanes of their own and are joined at the
    /// JOIN pace, and the removed ones are parted (`parted` records) and their files finished: their
    /// lines from then on go to `_session` as unjoined. Every other channel, its connection and its
    /// file go on untouched.
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
            guard let outcome = reload.poll(nowMs: Moment.now().monotonicMs) else { return }
            let text = reload.describe(outcome)
            say(text)
            do throws(CaptureError) {
                switch outcome {
                case .kept:
                    try writer.note(event: "reload-failed", text: text, at: Moment.now().wall)
                case .changed(let added, let removed, _):
                    try writer.note(event: "reload", text: text, at: Moment.now().wall)
                    writer.admit(channels: added)
                    session.update(adding: added, removing: removed)
                    try writer.retire(channels: removed)
                }
            } catch {
                failed(error)
            }
        }
    }
}
