public import ChatArchive
public import ChatLive
import ChatPosix
public import TwitchSession

/// What a reload does to a running capture or tail: the session joins and parts, capture's files
/// follow, and the change is said and (capture) stored.
extension ChannelReload {
    /// capture's tick: takes a SIGHUP (or, with ``watchIntervalMs``, a settled change of the file)
    /// and applies it.
    ///
    /// A reload stores a `reload` record in `_session` (or `reload-failed`, keeping the list in force)
    /// and says it with `say`; then the added channels get lanes of their own and are joined at the
    /// JOIN pace, and the removed ones are parted (`parted` records) and their files finished: their
    /// lines from then on go to `_session` as unjoined. Every other channel, its connection and its
    /// file go on untouched.
    ///
    /// - Throws: the writer's error (the run then stops, as for any).
    /// - Complexity: O(1) between looks (``poll(nowMs:)``); a reload O(channels).
    public func tick(
        now: Moment, session: LiveSession, writer: CaptureWriter, signalled: Bool? = nil, say: (String) -> Void
    ) throws(CaptureError) {
        guard let outcome = poll(nowMs: now.monotonicMs, signalled: signalled) else { return }
        let text = describe(outcome)
        say(text)
        switch outcome {
        case .kept:
            try writer.note(event: "reload-failed", text: text, at: Moment.now().wall)
        case .changed(let added, let removed, _):
            try writer.note(event: "reload", text: text, at: Moment.now().wall)
            writer.admit(channels: added)
            session.update(adding: added, removing: removed)
            try writer.retire(channels: removed)
        }
    }

    /// tail's tick: a reload is said with `say`; the added channels are joined at the JOIN pace, the
    /// removed ones parted (a `parted` session record in the output; lines the server sent before it
    /// had the PART are still printed). Every other channel and its connection go on untouched.
    public func tick(now: Moment, session: LiveSession, say: (String) -> Void) {
        guard let outcome = poll(nowMs: now.monotonicMs) else { return }
        say(describe(outcome))
        if case .changed(let added, let removed, _) = outcome {
            session.update(adding: added, removing: removed)
        }
    }
}
