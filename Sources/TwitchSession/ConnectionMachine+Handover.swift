extension ConnectionMachine {
    /// RECONNECT on a registered connection: the connection is kept open as the *retiring* one (it
    /// goes on delivering chat until the server closes it), a replacement is opened at once and
    /// joins the channels; the retiring one is closed when the replacement has joined every channel
    /// it was capturing and a line has come on both (``ConnectionEvent/overlapConfirmed``: what the
    /// retiring connection sent before it has been read), or ``ConnectionSettings/handoverSettleMs``
    /// after the joins when none comes (quiet channels) (``ConnectionAction/closeRetired``). No gap opens for a channel the
    /// replacement joins before the retiring connection closes; one that is not joined by then gets
    /// a gap from that moment (``ConnectionEvent/retiredClosed(_:)``).
    ///
    /// Without ``ConnectionSettings/overlapReconnects``, or before the welcome, RECONNECT closes the
    /// connection and reconnects as any lost connection does.
    mutating func handOver(at now: Moment, _ actions: inout [ConnectionAction]) {
        guard settings.overlapReconnects, phase == .ready else {
            connectionLost(.serverRequestedReconnect, at: now, close: true, &actions)
            return
        }
        // A RECONNECT on the replacement while the one before it still plays: that one goes now.
        if isHandingOver { closeRetired(at: now, &actions) }
        isHandingOver = true
        lastDisconnect = .serverRequestedReconnect
        for index in channels.indices where statuses[index] == .joined { awaitingHandover[index] = true }
        leaveConnection(at: now)
        actions.append(.handOver)
        actions.append(.connect(after: 0))
    }

    /// The replacement no longer needs channel `index` from the retiring connection (joined or
    /// refused there): closes the retiring connection once no channel does.
    mutating func handedOver(_ index: Int, at now: Moment, _ actions: inout [ConnectionAction]) {
        guard isHandingOver, awaitingHandover[index] else { return }
        awaitingHandover[index] = false
        if !awaitingHandover.contains(true) { handoverSettleDeadline = now.monotonicMs + settings.handoverSettleMs }
    }

    /// A line came on both connections after the replacement joined everything: what the retiring
    /// connection sent before that line has been read, and what follows comes on the replacement.
    mutating func overlapConfirmed(at now: Moment, _ actions: inout [ConnectionAction]) {
        guard isHandingOver, handoverSettleDeadline != nil else { return }
        closeRetired(at: now, &actions)
    }

    /// Closes the retiring connection now (every channel handed over, a new RECONNECT, the end).
    /// Channels still waiting for the replacement get a gap from now.
    mutating func closeRetired(at now: Moment, _ actions: inout [ConnectionAction]) {
        guard isHandingOver else { return }
        actions.append(.closeRetired)
        retiredEnded(.serverRequestedReconnect, at: now, &actions)
    }

    /// The retiring connection is gone (closed by the server or by us): a `disconnected` record,
    /// and a gap from now for every channel the replacement has not joined yet.
    mutating func retiredEnded(_ reason: DisconnectReason, at now: Moment, _ actions: inout [ConnectionAction]) {
        guard isHandingOver else { return }
        isHandingOver = false
        handoverSettleDeadline = nil
        actions.append(.report(.disconnected(reason, at: now.wall)))
        for index in channels.indices where awaitingHandover[index] {
            awaitingHandover[index] = false
            if openGaps[index] == nil {
                openGaps[index] = OpenGap(from: now.wall, reason: .serverRequestedReconnect)
            }
        }
    }

    /// The session ends: the retiring connection is closed with it, without gaps (it delivered
    /// until now).
    mutating func dropRetired(because reason: DisconnectReason, at now: Moment, _ actions: inout [ConnectionAction]) {
        guard isHandingOver else { return }
        isHandingOver = false
        handoverSettleDeadline = nil
        for index in channels.indices { awaitingHandover[index] = false }
        actions.append(.closeRetired)
        actions.append(.report(.disconnected(reason, at: now.wall)))
    }
}
