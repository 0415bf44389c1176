/// A source of chat for `watch`. It runs on the ingest thread and hands every line to the
/// ``WatchIngest`` it is given — a recording (``RecordingFeed``) or live chat (``LiveFeed``) —
/// so the store, the view model and the UI do not care where lines come from.
///
/// A feed must return soon after ``WatchIngest/stop`` is raised (checking it per line and while
/// idle), call ``WatchIngest/tick()`` at least every few tens of milliseconds while it waits (so
/// that coalesced windows still get published), and report its state through
/// ``WatchIngest/setStatus(_:)``.
public protocol WatchFeed: AnyObject {
    /// Feeds lines until the source is exhausted or `ingest.stop` is raised.
    func run(into ingest: WatchIngest)
}
