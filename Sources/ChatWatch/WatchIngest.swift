public import ChatPosix
public import ChatStore
public import IRCWire

/// The owner side of `watch`: appends lines to the store, shows channels to the UI as they appear,
/// keeps each channel's room settings and message rate, and publishes windows (the view model
/// coalesces them per its interval, 33 ms by default).
///
/// New channels are observed (``ViewModel/observe(channel:)``) right after their first line is
/// appended and before any window of theirs is published, so the UI's mailbox starts with the whole
/// window. With a channel list, lines of other channels are not stored at all.
///
/// Confined to the ingest thread (the store's owner); what the UI needs crosses over through
/// ``board`` and the mailboxes.
public final class WatchIngest {
    public let store: ChatStore
    public let board: WatchBoard
    /// Raised by the UI to end the feed.
    public let stop: StopFlag
    /// Channels to keep (lowercase logins without `#`), empty for all.
    private let wanted: [[UInt8]]
    private var attached = 0
    private var rooms: [RoomSettings] = []
    private var rates: [RateMeter] = []
    private let started = ContinuousClock.now
    /// Lines appended to the store.
    public private(set) var lines = 0
    /// Time from the start to the last ``finish()`` (for `--stats`).
    public private(set) var finishedAfter: Duration? = nil

    public init(store: ChatStore, board: WatchBoard, channels: [String] = [], stop: StopFlag = StopFlag()) {
        self.store = store
        self.board = board
        self.stop = stop
        wanted = channels.map { Array($0.utf8) }
    }

    /// Appends one line (if its channel is wanted) and publishes what is due.
    ///
    /// - Complexity: O(line); the publish check is O(1) between ticks, and a tick visits only the
    ///   channels that changed since the previous one.
    /// - Allocations: none in steady state (a few when a channel first appears).
    public func append(_ bytes: Span<UInt8>, _ message: TwitchMessage, receivedAt: Timestamp) {
        if !wanted.isEmpty {
            guard let channel = message.channel,
                wanted.contains(where: { bytes.equals(lowercased: $0, at: channel.range) })
            else { return }
        }
        let placement: ChatStore.Placement
        do throws(StoreError) {
            placement = try store.append(bytes, message: message, receivedAt: receivedAt)
        } catch {
            report("\(error)")
            return
        }
        lines += 1
        if store.channelCount != attached { attachNewChannels() }
        switch message.command {
        case .roomstate:
            if let r = message.roomState(in: bytes) {
                rooms[placement.channel].merge(r)
                board.setRoom(rooms[placement.channel], index: placement.channel)
            }
        case .privmsg:
            if rates[placement.channel].count(at: receivedAt.milliseconds) {
                board.setRate(rates[placement.channel].perSecond, index: placement.channel)
            }
        default:
            break
        }
        store.publish(now: elapsedMilliseconds())
    }

    /// Publishes windows that are due. Call while waiting for input.
    public func tick() { store.publish(now: elapsedMilliseconds()) }

    /// Publishes every pending change now (at the end of the input).
    public func finish() {
        store.publish(now: elapsedMilliseconds(), force: true)
        finishedAfter = ContinuousClock.now - started
    }

    public func setStatus(_ status: FeedStatus) { board.setStatus(status) }

    /// Records a problem with the input for the footer and the exit summary.
    public func report(_ problem: String) { board.report(problem) }

    private func attachNewChannels() {
        let count = store.channelCount
        while attached < count {
            let index = attached
            attached += 1
            rooms.append(RoomSettings())
            rates.append(RateMeter())
            guard let log = store.log(at: index), !log.name.isEmpty else { continue }  // connection-level lines
            board.attach(name: log.name, index: index, mailbox: store.viewModel.observe(channel: index))
        }
    }

    private func elapsedMilliseconds() -> Int64 { (ContinuousClock.now - started).inMilliseconds }
}

@available(*, unavailable)
extension WatchIngest: Sendable {}

/// Chat messages per second over the last ten seconds of a feed's clock (line time for replays).
struct RateMeter {
    private var buckets = InlineArray<10, Int32>(repeating: 0)
    private var second: Int64? = nil

    /// Counts a message at `milliseconds`; whether a new second began (time to republish the rate).
    mutating func count(at milliseconds: Int64) -> Bool {
        let s = milliseconds / 1000
        var rolled = false
        if second == nil || s > second! {
            let steps = second.map { min(10, s - $0) } ?? 10
            for k in 0..<Int(steps) { buckets[Self.slot(s - Int64(k))] = 0 }
            second = s
            rolled = true
        }
        if s > second! - 10 { buckets[Self.slot(s)] += 1 }
        return rolled
    }

    var perSecond: Double {
        var total: Int32 = 0
        for i in 0..<10 { total += buckets[i] }
        return Double(total) / 10
    }

    private static func slot(_ s: Int64) -> Int {
        let r = Int(s % 10)
        return r < 0 ? r + 10 : r
    }
}
