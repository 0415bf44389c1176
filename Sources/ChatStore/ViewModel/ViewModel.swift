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
/// Owned by the ingest loop; its mutable state sits in raw memory behind a `let` pointer, so that
/// marking a channel dirty on every appended line pays no dynamic exclusivity checks (a class's `var`
/// properties cost a `swift_beginAccess` per access, about 200 instructions per line with a thousand
/// channels). Observers on other threads receive ``WindowChange``s through their
/// ``WindowMailbox`` and resolve the window through the ring with a ``Reader``.
@safe
public final class ViewModel {
    /// Entries per window (default 150).
    public let windowSize: Int
    /// Minimum time between two change sets for the same channel, in milliseconds.
    public let interval: Int64

    private struct Observer {
        var channel: Int
        var mailbox: WindowMailbox
    }

    private struct ChannelState {
        var published: Window? = nil
        var lastDelivery: Int64? = nil
        var dirty = false
        /// In `dirtyChannels` (waiting for the next tick).
        var queued = false
    }

    /// All mutable state (owner thread only, no overlapping access).
    @unsafe
    private struct State {
        var observers: [Observer] = []
        var channels: [ChannelState] = []
        /// Channels marked since the last tick, each once; `spare` is the other buffer of the pair.
        var dirtyChannels: [Int] = []
        var spare: [Int] = []
        var lastTick: Int64? = nil
        var deliveries = 0
        var visited = 0
    }
    private let state: UnsafeMutablePointer<State>

    // SAFETY (whole type): `state` lives from init to deinit; only the owner thread touches it.

    /// Change sets delivered so far (all channels).
    public var deliveries: Int { unsafe state.pointee.deliveries }
    /// Channel publishes attempted so far (dirty channels a tick visited, and direct calls of
    /// ``publish(_:now:force:)``): lets tests check that a tick never walks quiet channels.
    package var visited: Int { unsafe state.pointee.visited }

    public init(windowSize: Int = 150, interval: Int64 = 33) {
        precondition(windowSize > 0, "window size must be positive")
        self.windowSize = windowSize
        self.interval = interval
        unsafe state = .allocate(capacity: 1)
        unsafe state.initialize(to: State())
    }

    deinit {
        unsafe state.deinitialize(count: 1)
        unsafe state.deallocate()
    }

    /// Registers an observer of `channel`'s window; its mailbox gets the current window at the next
    /// publish. Owner thread only.
    public func observe(channel: Int) -> WindowMailbox {
        let mailbox = WindowMailbox()
        unsafe state.pointee.observers.append(Observer(channel: channel, mailbox: mailbox))
        ensureState(channel)
        unsafe state.pointee.channels[channel].dirty = true
        unsafe state.pointee.channels[channel].lastDelivery = nil
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
        if unsafe channel >= state.pointee.channels.count { ensureState(channel) }
        guard unsafe !state.pointee.channels[channel].queued else { return }
        unsafe state.pointee.channels[channel].queued = true
        unsafe state.pointee.dirtyChannels.append(channel)
    }

    /// Channels waiting for the next tick.
    public var dirtyCount: Int { unsafe state.pointee.dirtyChannels.count }

    /// Whether a tick at `now` would publish: the first one, and then one per ``interval``.
    ///
    /// - Complexity: O(1). - Allocations: none.
    @inline(__always)
    public func isTickDue(now: Int64) -> Bool {
        guard let lastTick = unsafe state.pointee.lastTick else { return true }
        return now - lastTick >= interval
    }

    /// The tick: publishes the dirty channels (those whose own interval has passed, or all with
    /// `force`) and keeps the ones held back for the next tick. Without `force`, does nothing until
    /// ``isTickDue(now:)``. `log` maps a channel index to its log.
    ///
    /// - Returns: change sets delivered.
    /// - Complexity: O(1) when no tick is due; O(dirty channels + their observers) otherwise —
    ///   never O(all channels).
    /// - Allocations: none in steady state.
    @discardableResult
    public func publishDirty(now: Int64, force: Bool = false, log: (Int) -> ChannelLog?) -> Int {
        guard force || isTickDue(now: now) else { return 0 }
        unsafe state.pointee.lastTick = now
        guard unsafe !state.pointee.dirtyChannels.isEmpty else { return 0 }
        // Swap the pair: the channels of this tick, and an empty list for the marks made meanwhile.
        var tick = unsafe state.pointee.dirtyChannels
        unsafe state.pointee.dirtyChannels = state.pointee.spare
        unsafe state.pointee.spare = []  // `dirtyChannels` and `tick` each hold their buffer alone
        var delivered = 0
        for channel in tick {
            unsafe state.pointee.channels[channel].queued = false
            guard let l = log(channel) else { continue }
            if publish(l, now: now, force: force) { delivered += 1 }
            if unsafe state.pointee.channels[channel].dirty { markDirty(channel) }  // held back by its interval
        }
        tick.removeAll(keepingCapacity: true)
        unsafe state.pointee.spare = tick
        return delivered
    }

    private func ensureState(_ channel: Int) {
        while unsafe state.pointee.channels.count <= channel { unsafe state.pointee.channels.append(ChannelState()) }
    }

    /// The window of the last N entries of `log`, right now.
    ///
    /// - Complexity: O(1). - Allocations: none.
    public func window(of log: ChannelLog) -> Window {
        let live = log.ring.liveRange
        let lower = max(
            live.lowerBound, live.upperBound >= UInt64(windowSize) ? live.upperBound - UInt64(windowSize) : 0)
        return Window(channel: log.index, range: lower..<live.upperBound, generation: log.generation)
    }

    /// Publishes `log`'s window to its observers if something changed and the interval has passed
    /// (or `force`). Only the latest state is delivered; skipped updates are folded into the next.
    ///
    /// - Returns: whether a change set was delivered.
    /// - Complexity: O(observers). - Allocations: none in steady state.
    @discardableResult
    public func publish(_ log: ChannelLog, now: Int64, force: Bool = false) -> Bool {
        let c = log.index
        ensureState(c)
        unsafe state.pointee.visited += 1
        let window = window(of: log)
        let previous = unsafe state.pointee.channels[c].published
        // Every append moves the window's upper bound and a reset its generation, so comparing windows
        // tells whether entries came or went; tombstones are the only change it cannot see.
        if window != previous || !log.modified.isEmpty { unsafe state.pointee.channels[c].dirty = true }
        guard unsafe state.pointee.channels[c].dirty else { return false }
        if !force, let last = unsafe state.pointee.channels[c].lastDelivery, now - last < interval { return false }
        let change: WindowChange
        if let previous, previous.generation == window.generation {
            change = WindowChange(
                window: window,
                inserted: max(previous.range.upperBound, window.range.lowerBound)..<window.range.upperBound,
                evicted: previous.range
                    .lowerBound..<max(
                        previous.range.lowerBound, min(window.range.lowerBound, previous.range.upperBound)),
                modified: log.modified, coalesced: 1)
        } else {
            var all = ModifiedSeqs()
            if previous != nil { all.markAllModified() }
            change = WindowChange(window: window, inserted: window.range, evicted: 0..<0, modified: all, coalesced: 1)
        }
        for observer in unsafe state.pointee.observers where observer.channel == c { observer.mailbox.post(change) }
        unsafe state.pointee.channels[c].published = window
        unsafe state.pointee.channels[c].lastDelivery = now
        unsafe state.pointee.channels[c].dirty = false
        log.modified = ModifiedSeqs()
        unsafe state.pointee.deliveries += 1
        return true
    }
}

@available(*, unavailable)
extension ViewModel: Sendable {}
