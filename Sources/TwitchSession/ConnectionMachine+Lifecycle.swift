import IRCWire

extension ConnectionMachine {
    /// The timers, then the JOINs the rate limit allows. Runs after every event.
    mutating func runTimers(at now: Moment, _ actions: inout [ConnectionAction]) {
        guard phase == .registering || phase == .ready else { return }
        let time = now.monotonicMs
        if let deadline = handoverSettleDeadline, time >= deadline { closeRetired(at: now, &actions) }
        if let deadline = capabilityDeadline, time >= deadline {
            resolveCapabilities(.noAnswer(afterMs: settings.capabilityTimeoutMs), at: now, &actions)
        }
        if phase == .registering, let deadline = registrationDeadline, time >= deadline {
            connectionLost(.registrationTimedOut, at: now, close: true, &actions)
            return
        }
        if let sentAt = probeSentAt {
            if time - sentAt >= settings.pongTimeoutMs {
                connectionLost(.unresponsive, at: now, close: true, &actions)
                return
            }
        } else if let lastReceived, time - lastReceived.monotonicMs >= settings.idleTimeoutMs {
            probeCount += 1
            probeSentAt = time
            actions.append(.send(.ping("chatcap-\(probeCount)")))
        }
        guard phase == .ready else { return }
        expireJoins(at: now, &actions)
        sendJoins(at: now, &actions)
    }

    /// The connection is gone (or never came up): open gaps for the captured channels and schedule
    /// the next attempt.
    ///
    /// A gap starts now, except for a dead connection, where it starts at the last line received:
    /// the last moment the connection is known to have worked.
    mutating func connectionLost(
        _ reason: DisconnectReason, at now: Moment, close: Bool, _ actions: inout [ConnectionAction]
    ) {
        guard phase == .connecting || phase == .registering || phase == .ready else { return }
        let wasConnected = phase != .connecting
        lastDisconnect = reason
        actions.append(.report(.disconnected(reason, at: now.wall)))
        if close && wasConnected { actions.append(.close(reason)) }
        let gapStart = reason == .unresponsive ? (lastReceived?.wall ?? now.wall) : now.wall
        for index in channels.indices where statuses[index] == .joined && openGaps[index] == nil {
            openGaps[index] = OpenGap(from: gapStart, reason: reason)
        }
        leaveConnection(at: now)
        let delay = backoff.nextDelay(using: &generator)
        actions.append(.report(.reconnectScheduled(afterMs: delay, attempt: backoff.attempt, at: now.wall)))
        actions.append(.connect(after: delay))
    }

    /// Gives up for good: a fatal record, the connection closed, open gaps ended now.
    mutating func fail(
        _ reason: DisconnectReason, message: String, at now: Moment, _ actions: inout [ConnectionAction]
    ) {
        failure = reason
        actions.append(.report(.fatal(message, at: now.wall)))
        dropRetired(because: reason, at: now, &actions)
        if phase == .registering || phase == .ready { actions.append(.close(reason)) }
        closeOpenGaps(at: now, &actions)
        endConnection()
        phase = .stopped
    }

    /// Leaves the current connection (lost, or handed over): every channel it carried or was joining
    /// waits for the next one (refused ones stay refused), a connection that had been healthy resets
    /// the back-off, and the machine is connecting again.
    mutating func leaveConnection(at now: Moment) {
        for index in channels.indices where statuses[index] != .refused { statuses[index] = .waiting }
        if let connectedAt, now.monotonicMs - connectedAt.monotonicMs >= settings.backoff.healthyAfterMs {
            backoff.reset()
        }
        endConnection()
        phase = .connecting
    }

    /// Forgets everything that belongs to the current connection.
    mutating func endConnection() {
        connectedAt = nil
        lastReceived = nil
        capabilityDeadline = nil
        registrationDeadline = nil
        probeSentAt = nil
        joinQueue.removeAll(keepingCapacity: true)
        joinQueueHead = 0
        inFlight.removeAll(keepingCapacity: true)
        inFlightHead = 0
    }

    /// Ends the open gap of channel `index` now, with a record.
    mutating func closeGap(of index: Int, at now: Moment, _ actions: inout [ConnectionAction]) {
        guard let gap = openGaps[index] else { return }
        openGaps[index] = nil
        let end = max(gap.from, now.wall)
        let record = Gap(channel: channels[index], from: gap.from, to: end, reason: gap.reason)
        actions.append(.report(.gap(record)))
    }

    /// Ends every open gap now (the session stops).
    mutating func closeOpenGaps(at now: Moment, _ actions: inout [ConnectionAction]) {
        for index in channels.indices { closeGap(of: index, at: now, &actions) }
    }
}
