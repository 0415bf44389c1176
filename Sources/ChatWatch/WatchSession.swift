public import ChatMemory
public import ChatPosix
public import ChatStore

/// `chatcap watch`: a full-screen view of chat as it is ingested.
///
/// Two threads. The ingest thread runs the ``WatchFeed`` (a recording or live chat),
/// which owns the ``ChatStore`` and appends every line through a ``WatchIngest``; the view model
/// publishes each channel's window to its mailbox, coalesced to one change set per 33 ms. The
/// calling thread becomes the UI (``WatchScreen``): it takes the mailboxes at most 30 times a
/// second, resolves windows through the rings with its own ``Reader``, and rewrites only the rows
/// that changed.
///
/// The terminal is restored on every way out: `q`, Ctrl-C (a key in raw mode), SIGINT, SIGTERM,
/// SIGHUP (the signal handler sets a flag; the loop restores), the terminal going away, and crash
/// signals (``TerminalSignals``). When the feed ends the view stays up, saying so, until `q`.
public final class WatchSession {
    /// How the session is set up.
    public struct Options: Sendable {
        /// Channels to show (lowercase logins without `#`), in Tab order; empty: every channel, in
        /// order of first appearance.
        public var channels: [String] = []
        /// Entries kept per channel (how far back one can scroll).
        public var capacity = EntryRing.defaultCapacity
        /// Entries per published window.
        public var windowSize = 150
        /// The view model's coalescing interval, in milliseconds.
        public var interval: Int64 = 33
        /// The shortest time between two frames (33.3 ms: at most 30 a second).
        public var frameInterval: Duration = .microseconds(33_334)
        /// The terminal to draw on.
        public var terminalPath = "/dev/tty"
        /// Input problems described one by one in the exit summary (the rest are counted); 0 for all.
        public var reportLimit = 20
        /// The bound on what the rings reserve (`--memory-budget`); `nil`: each keeps `capacity` entries.
        /// The budget never trims a channel below `windowSize` entries.
        public var budget: MemoryBudget? = nil

        public init() {}
    }

    /// What happened, for the exit summary.
    public struct Report: Sendable {
        public var stats: WatchStats
        public var status: FeedStatus
        /// Input problems: the first few descriptions and the total count.
        public var problems: [String]
        public var problemCount: Int
    }

    public let options: Options
    public let store: ChatStore
    public let board: WatchBoard
    /// Raised when the UI ends; feeds stop soon after.
    public let stop = StopFlag()

    public init(options: Options = Options()) {
        self.options = options
        store = ChatStore(
            capacity: options.capacity, windowSize: options.windowSize, interval: options.interval, pages: .system,
            budget: options.budget)
        board = WatchBoard(channels: options.channels, keptProblems: options.reportLimit)
    }

    /// Shows chat from `feed` until the user quits; the terminal is restored when this returns.
    ///
    /// - Throws: when there is no terminal to draw on (nothing was changed then).
    public func run(_ feed: any WatchFeed) throws(TerminalError) -> Report {
        let terminal = try TerminalDevice(path: options.terminalPath)
        let wake = try TerminalSignals.install()
        try terminal.enterFullScreen()
        defer { terminal.restore() }

        let ingest = WatchIngest(store: store, board: board, channels: options.channels, stop: stop)
        let handoff = Handoff(feed: feed, ingest: ingest)
        let finished = StopFlag()
        let thread = PosixThread {
            handoff.feed.run(into: handoff.ingest)
            finished.raise()
        }
        guard let reader = store.readers.makeReader() else {
            preconditionFailure("a fresh store has free reader slots")
        }
        let screen = WatchScreen(
            terminal: terminal, board: board, context: LayoutContext(store: store, reader: reader),
            frameInterval: options.frameInterval)
        screen.run(wake: wake)
        terminal.restore()

        stop.raise()
        // A feed blocked on its input (a pipe that stays open) cannot notice the flag: give it a
        // moment, then leave it to end with the process.
        for _ in 0..<200 where !finished.isRaised { sleepThread(for: .milliseconds(5)) }
        var stats = screen.stats
        let status = board.status
        if finished.isRaised {
            thread.join()
            stats.lines = ingest.lines
            if status.isFinal, let d = ingest.finishedAfter {
                stats.ingestSeconds = d.inSeconds
            }
        } else {
            thread.detach()
        }
        let problems = board.problems
        return Report(stats: stats, status: status, problems: problems.descriptions, problemCount: problems.count)
    }
}

@available(*, unavailable)
extension WatchSession: Sendable {}

/// The feed and its ingest side on their way to the ingest thread.
private final class Handoff: @unchecked Sendable {  // created here, then used by the ingest thread only (until joined)
    let feed: any WatchFeed
    let ingest: WatchIngest
    init(feed: any WatchFeed, ingest: WatchIngest) {
        self.feed = feed
        self.ingest = ingest
    }
}
