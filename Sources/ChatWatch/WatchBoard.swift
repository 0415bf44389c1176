public import ChatStore
import Synchronization

/// What the ingest thread tells the UI thread besides windows: the channels (in display order)
/// with their mailboxes, room settings and message rates, the feed's status and problems.
///
/// Written by the ingest thread at channel discovery, on ROOMSTATE, once per second of chat per
/// channel (rates) and on status changes — never per line; read by the UI at most once per frame.
/// Everything sits behind one `Mutex`; ``version`` lets the UI skip the lock when nothing changed.
public final class WatchBoard: Sendable {
    /// One channel as the UI lists it.
    public struct Channel: Sendable {
        /// Login without `#`.
        public var name: String
        /// Index of the channel's log in the store, once its first line arrived.
        public var index: Int?
        /// Where its windows arrive (set with ``index``).
        public var mailbox: WindowMailbox?
        public var room = RoomSettings()
        /// Chat messages per second over the last ten seconds of the feed's clock.
        public var rate: Double = 0
    }

    struct State {
        var channels: [Channel] = []
        var status: FeedStatus = .starting
        var problems: [String] = []
        var problemCount = 0
    }

    private let state = Mutex(State())
    private let _version = Atomic<Int>(0)
    /// The most problem descriptions kept (the rest are counted); 0 keeps all.
    public let keptProblems: Int

    /// - Parameters:
    ///   - channels: channels to list first, in this order, before any of their chat arrived.
    ///   - keptProblems: the most problem descriptions kept (20 by default; 0 for all).
    public init(channels: [String] = [], keptProblems: Int = 20) {
        self.keptProblems = keptProblems
        state.withLock { s in s.channels = channels.map { Channel(name: $0) } }
    }

    /// Bumped by every change.
    public var version: Int { _version.load(ordering: .acquiring) }

    /// A copy of the channels.
    public var channels: [Channel] { state.withLock { $0.channels } }

    public var status: FeedStatus { state.withLock { $0.status } }

    /// Problems reported so far (the first ``keptProblems`` descriptions) and their total count.
    public var problems: (descriptions: [String], count: Int) { state.withLock { ($0.problems, $0.problemCount) } }

    // MARK: Ingest side

    /// Lists channel `name` (or completes its listing) with its log index and mailbox.
    func attach(name: String, index: Int, mailbox: WindowMailbox) {
        change { s in
            if let k = s.channels.firstIndex(where: { $0.name == name && $0.index == nil }) {
                s.channels[k].index = index
                s.channels[k].mailbox = mailbox
            } else {
                s.channels.append(Channel(name: name, index: index, mailbox: mailbox))
            }
        }
    }

    func setRoom(_ room: RoomSettings, index: Int) {
        change { s in
            if let k = s.channels.firstIndex(where: { $0.index == index }) { s.channels[k].room = room }
        }
    }

    func setRate(_ rate: Double, index: Int) {
        change { s in
            if let k = s.channels.firstIndex(where: { $0.index == index }) { s.channels[k].rate = rate }
        }
    }

    func setStatus(_ status: FeedStatus) { change { $0.status = status } }

    func report(_ problem: String) {
        change { s in
            s.problemCount += 1
            if keptProblems <= 0 || s.problems.count < keptProblems { s.problems.append(problem) }
        }
    }

    private func change(_ body: (inout State) -> Void) {
        state.withLock { body(&$0) }
        _version.add(1, ordering: .releasing)
    }
}
