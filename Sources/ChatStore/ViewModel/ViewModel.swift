/// Publishes, per channel, the window of the last N entries and tells observers what changed,
/// coalesced to at most one change set per interval.
///
/// Publishing is O(1) and independent of N: a window is two sequence numbers, and the change set
/// is computed from the window last delivered (appends and evictions move the window) and the log's
/// bounded set of modified entries. Nothing about the visible entries is copied or rebuilt.
///
/// Publishing is also independent of the number of channels: an append marks its channel dirty
/// (``markDirty(_:)``, O(1)), and a tick (``publishDirty(now:force:log:)``, at most once per interval
/// unless forced) visits the dirty channels only.
///
/// ```
///  append(ch 7) ─ markDirty(7) ─┐          tick (every `interval` ms, or forced at the end)
///  append(ch 2) ─ markDirty(2) ─┼─ dirty: [7, 2] ──► publish(7), publish(2) ──► mailboxes
///  append(ch 7) ─ (queued) ─────┘                    (held back by its interval: stays dirty)
/// ```
///
/// Owned by the ingest loop. Observers on other threads receive ``WindowChange``s through their
/// ``WindowMailbox`` and resolve the window through the ring with a ``Reader``.
public final class ViewModel {
    /// Entries per window (default 150).
    public let windowSize: Int
    /// Minimum time between two change sets for the same channel, in milliseconds.
    public let interval: Int64

    private struct Observer {
        var channel: Int
        var mailbox: WindowMailbox
    }

    /// What the view model keeps per channel: 32 bytes (the window last published without its
    /// channel, which is the state's index; "none" as flags and sentinels instead of optionals), where
    /// a `Window?`, an `Int64?` and two flags took 48: with 10,000 channels and an array's doubling,
    /// 0.26 MB less.
    private struct ChannelState {
        /// The window last published: `lower ..< upper`, if `isPublished`.
        var lower: UInt64 = 0
        var upper: UInt64 = 0
        /// `Int64.min`: nothing delivered yet.
        var delivered = Int64.min
        private var flags: UInt8 = 0

        var isPublished: Bool {
            get { flags & 1 != 0 }
            set { flags = newValue ? flags | 1 : flags & ~1 }
        }
        var dirty: Bool {
            get { flags & 2 != 0 }
            set { flags = newValue ? flags | 2 : flags & ~2 }
        }
        var lastDelivery: Int64? {
            get { delivered == .min ? nil : delivered }
            set { delivered = newValue ?? .min }
        }

        /// The window last published, as the window of channel `channel` (this state's index).
        func published(channel: Int) -> Window? {
            isPublished ? Window(channel: channel, range: lower..<upper) : nil
        }

        mutating func publish(_ window: Window) {
            lower = window.range.lowerBound
            upper = window.range.upperBound
            isPublished = true
        }
    }

    private var observers: [Observer] = []
    private var states: [ChannelState] = []
    /// Bit `c` (word `c / 64`): channel `c` is in `dirtyChannels` (waiting for the next tick). Apart
    /// from ``states``: ``markDirty(_:)`` runs on every append and finds its channel already queued
    /// almost always; 10,000 channels' bits are 1.25 KB that stay in cache, where their states are
    /// 320 KB that do not (at 10,000 channels, 15% of the store's append was that one load).
    private var queued: [UInt64] = []
    /// Channels marked since the last tick, each once; `spare` is the other buffer of the pair.
    /// `Int32`: a store holds at most ``ChatStore/maximumChannels`` (2^18).
    private var dirtyChannels: [Int32] = []
    private var spare: [Int32] = []
    private var lastTick: Int64? = nil
    /// Change sets delivered so far (all channels).
    public private(set) var deliveries = 0
    /// Channel publishes attempted so far (dirty channels a tick visited, and direct calls of
    /// ``publish(_:now:force:)``): lets tests check that a tick never walks quiet channels.
    package private(set) var visited = 0

    public init(windowSize: Int = 150, interval: Int64 = 33) {
        precondition(windowSize > 0, "window size must be positive")
        self.windowSize = windowSize
        self.interval = interval
    }

    /// Registers an observer of `channel`'s window; its mailbox gets the current window at the next
    /// publish. Owner thread only.
    public func observe(channel: Int) -> WindowMailbox {
        let mailbox = WindowMailbox()
        observers.append(Observer(channel: channel, mailbox: mailbox))
        ensureState(channel)
        states[channel].dirty = true
        states[channel].lastDelivery = nil
        markDirty(channel)
        return mailbox
    }

    /// Notes that `channel` changed (an append, a moderation mark, a reset) so that the next tick
    /// publishes it. Owner thread only.
    ///
    /// - Complexity: O(1). - Allocations: none in steady state (the dirty list and the per-channel
    ///   state grow when a channel first appears).
    @inline(__always)
    public func markDirty(_ channel: Int) {
        if channel >= states.count { ensureState(channel) }
        let bit = UInt64(1) << UInt64(channel & 63)
        guard queued[channel >> 6] & bit == 0 else { return }
        queued[channel >> 6] |= bit
        dirtyChannels.append(Int32(truncatingIfNeeded: channel))
    }

    /// Channels waiting for the next tick.
    public var dirtyCount: Int { dirtyChannels.count }

    /// Whether any observer watches a channel (``observe(channel:)``): a tick without one delivers
    /// to nobody, so a caller with nothing to show (replay, dump) may skip the ticks.
    public var isObserved: Bool { !observers.isEmpty }

    /// Whether a tick at `now` would publish: the first one, and then one per ``interval``.
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inline(__always)
    public func isTickDue(now: Int64) -> Bool {
        guard let lastTick else { return true }
        return now - lastTick >= interval
    }

    /// The tick: publishes the dirty channels (those whose own interval has passed, or all with
    /// `force`) and keeps the ones held back for the next tick. Without `force`, does nothing until
    /// ``isTickDue(now:)``. `log` maps a channel index to its log, unretained (the caller keeps every
    /// log alive during the call): a retain and a release on each visited log's object were 2-3% of
    /// replay's profile at 10,000 channels, atomic updates of lines no longer in cache.
    ///
    /// - Returns: change sets delivered.
    /// - Complexity: O(1) when no tick is due; O(dirty channels + their observers) otherwise —
    ///   never O(all channels).
    /// - Allocations: none in steady state.
    @discardableResult
    public func publishDirty(now: Int64, force: Bool = false, log: (Int) -> Unmanaged<ChannelLog>?) -> Int {
        guard force || isTickDue(now: now) else { return 0 }
        lastTick = now
        guard !dirtyChannels.isEmpty else { return 0 }
        swap(&dirtyChannels, &spare)
        var delivered = 0
        for c in spare {
            let channel = Int(c)
            queued[channel >> 6] &= ~(UInt64(1) << UInt64(channel & 63))
            guard let l = unsafe log(channel) else { continue }
            if unsafe l._withUnsafeGuaranteedRef({ publish($0, now: now, force: force) }) { delivered += 1 }
            if states[channel].dirty { markDirty(channel) }  // held back by its interval
        }
        spare.removeAll(keepingCapacity: true)
        return delivered
    }

    private func ensureState(_ channel: Int) {
        while states.count <= channel { states.append(ChannelState()) }
        while queued.count <= channel >> 6 { queued.append(0) }
    }

    /// The window of the last N entries of `log`, right now.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func window(of log: ChannelLog) -> Window {
        let live = log.ring.liveRange
        let lower = max(
            live.lowerBound, live.upperBound >= UInt64(windowSize) ? live.upperBound - UInt64(windowSize) : 0)
        return Window(channel: log.index, range: lower..<live.upperBound)
    }

    /// Publishes `log`'s window to its observers if something changed and the interval has passed
    /// (or `force`). Only the latest state is delivered; skipped updates are folded into the next.
    ///
    /// - Returns: whether a change set was delivered.
    /// - Complexity: O(observers). - Allocations: none in steady state.
    @discardableResult
    public func publish(_ log: ChannelLog, now: Int64, force: Bool = false) -> Bool {
        ensureState(log.index)
        visited += 1
        let window = window(of: log)
        let previous = states[log.index].published(channel: log.index)
        // Every append moves the window's upper bound, so comparing windows tells whether entries came
        // or went; tombstones are the only change it cannot see.
        if window != previous || log.hasModified { states[log.index].dirty = true }
        guard states[log.index].dirty else { return false }
        if !force, let last = states[log.index].lastDelivery, now - last < interval { return false }
        // The change set only for observers: a replay has none, and builds no 273-byte set per visit.
        if !observers.isEmpty {
            let change: WindowChange
            if let previous {
                change = WindowChange(
                    window: window,
                    inserted: max(previous.range.upperBound, window.range.lowerBound)..<window.range.upperBound,
                    evicted: previous.range
                        .lowerBound..<max(
                            previous.range.lowerBound, min(window.range.lowerBound, previous.range.upperBound)),
                    modified: log.modified, coalesced: 1)
            } else {
                change = WindowChange(
                    window: window, inserted: window.range, evicted: 0..<0, modified: ModifiedSeqs(), coalesced: 1)
            }
            for observer in observers where observer.channel == log.index { observer.mailbox.post(change) }
        }
        states[log.index].publish(window)
        states[log.index].lastDelivery = now
        states[log.index].dirty = false
        log.clearModified()
        deliveries += 1
        return true
    }
}

@available(*, unavailable)
extension ViewModel: Sendable {}
