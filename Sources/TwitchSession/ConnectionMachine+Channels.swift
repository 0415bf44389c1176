public import ChatStore
import IRCWire

extension ConnectionMachine {
    /// Whether another channel fits on this connection (``ConnectionSettings/channelsPerConnection``,
    /// at most ``ConnectionSettings/maxChannelsPerConnection``).
    public var hasRoom: Bool {
        channels.count < min(settings.channelsPerConnection, ConnectionSettings.maxChannelsPerConnection)
    }

    /// Adds `channel` at run time (a reloaded channel list): it waits for its JOIN like any channel of
    /// the connection, so it is joined at the JOIN pace once the connection is ready (the machine's
    /// next ``handle(_:at:)`` sends it, e.g. a `.tick`: ``nextDeadline`` is due at once), and again
    /// after every later reconnect. A channel removed earlier is added afresh.
    ///
    /// - Returns: `false` (nothing changes) when `channel` is not a login, is already one of this
    ///   connection's, or there is no room (``hasRoom``).
    /// - Complexity: O(1) amortised. - Allocations: the channel's slots (rare).
    @discardableResult
    public mutating func add(_ channel: String, at now: Moment) -> Bool {
        let login = Login.normalize(channel)
        guard Login.isValid(login), indexByChannel[login] == nil, hasRoom, phase != .stopped else { return false }
        let index = channels.count
        channels.append(login)
        indexByChannel[login] = index
        statuses.append(.waiting)
        openGaps.append(nil)
        awaitingHandover.append(false)
        // Before the welcome, the welcome queues every channel, this one too.
        if phase == .ready { joinQueue.append(index) }
        return true
    }

    /// Opens a gap for `channel` from `from` before the session starts (the hole a restart left):
    /// it ends, with its record, when the channel is joined (or its JOIN fails, or the session stops),
    /// like a reconnect's, so that what was said before the JOIN is inside a gap too.
    ///
    /// - Returns: whether `channel` is one of this connection's and had no open gap.
    public mutating func openGap(for channel: String, from: Timestamp, reason: DisconnectReason) -> Bool {
        guard let index = indexByChannel[Login.normalize(channel)], openGaps[index] == nil else { return false }
        openGaps[index] = OpenGap(from: from, reason: reason)
        return true
    }

    /// Removes `channel` at run time (a reloaded channel list): a `PART` when it is joined or a JOIN of
    /// it was sent on the current connection (a JOIN still unanswered is parted too: the server
    /// answers in order), its open gap (if any) ended now with a record, then a
    /// ``SessionRecord/parted(channel:at:)`` record. It is not rejoined after later reconnects, its
    /// JOIN echo (if one still comes) is ignored, and a RECONNECT handover no longer waits for it.
    ///
    /// - Returns: the actions (empty when `channel` is not one of this connection's).
    /// - Complexity: O(channels): the positions of the later channels move down by one.
    /// - Allocations: the action list.
    public mutating func remove(_ channel: String, at now: Moment) -> [ConnectionAction] {
        let login = Login.normalize(channel)
        guard let index = indexByChannel[login], phase != .stopped else { return [] }
        var actions: [ConnectionAction] = []
        if phase == .ready {
            switch statuses[index] {
            case .joined, .joining, .timedOut: actions.append(.send(.part(login)))
            case .waiting, .refused: break
            }
        }
        closeGap(of: index, at: now, &actions)
        actions.append(.report(.parted(channel: login, at: now.wall)))
        let awaited = awaitingHandover[index]
        channels.remove(at: index)
        statuses.remove(at: index)
        openGaps.remove(at: index)
        awaitingHandover.remove(at: index)
        indexByChannel[login] = nil
        for later in index..<channels.count { indexByChannel[channels[later]] = later }
        joinQueue = Self.renumbered(joinQueue[joinQueueHead...], without: index)
        joinQueueHead = 0
        inFlight = Self.renumbered(inFlight[inFlightHead...], without: index)
        inFlightHead = 0
        // The replacement of a RECONNECT was waiting for this channel only: the handover can settle.
        if awaited, isHandingOver, handoverSettleDeadline == nil, !awaitingHandover.contains(true) {
            handoverSettleDeadline = now.monotonicMs + settings.handoverSettleMs
        }
        return actions
    }

    /// Channel positions without `removed`, those after it moved down by one.
    private static func renumbered(_ positions: ArraySlice<Int>, without removed: Int) -> [Int] {
        positions.compactMap { $0 == removed ? nil : ($0 > removed ? $0 - 1 : $0) }
    }
}
