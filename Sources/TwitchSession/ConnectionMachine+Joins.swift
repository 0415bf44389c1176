import IRCWire

extension ConnectionMachine {
    /// NOTICE msg-ids that answer a JOIN with a refusal.
    static let joinRefusals: Set<String> = [
        "msg_channel_suspended", "msg_banned", "tos_ban", "msg_room_not_found", "msg_channel_blocked",
        "msg_suspended", "msg_invalid_channel",
    ]

    /// After the welcome: every channel not refused waits for its JOIN, in order.
    mutating func queueAllJoins() {
        joinQueue.removeAll(keepingCapacity: true)
        joinQueueHead = 0
        inFlight.removeAll(keepingCapacity: true)
        inFlightHead = 0
        for index in channels.indices where statuses[index] != .refused {
            statuses[index] = .waiting
            joinQueue.append(index)
        }
    }

    /// Sends the JOINs the rate limit allows now.
    mutating func sendJoins(at now: Moment, _ actions: inout [ConnectionAction]) {
        let time = now.monotonicMs
        while joinQueueHead < joinQueue.count && limiter.allows(now: time) {
            let index = joinQueue[joinQueueHead]
            joinQueueHead += 1
            guard statuses[index] == .waiting else { continue }
            limiter.record(now: time)
            statuses[index] = .joining(sentAt: time)
            inFlight.append(index)
            actions.append(.send(.join([channels[index]])))
        }
        if joinQueueHead == joinQueue.count {
            joinQueue.removeAll(keepingCapacity: true)
            joinQueueHead = 0
        }
    }

    /// Reports every JOIN that went unanswered for the timeout, oldest first.
    mutating func expireJoins(at now: Moment, _ actions: inout [ConnectionAction]) {
        while inFlightHead < inFlight.count {
            let index = inFlight[inFlightHead]
            guard case .joining(let sentAt) = statuses[index] else {
                inFlightHead += 1  // answered meanwhile
                continue
            }
            guard now.monotonicMs - sentAt >= settings.joinTimeoutMs else { break }
            inFlightHead += 1
            statuses[index] = .timedOut
            let reason = JoinFailure.timedOut(afterMs: settings.joinTimeoutMs)
            actions.append(.report(.joinFailed(channel: channels[index], reason: reason, at: now.wall)))
        }
        if inFlightHead == inFlight.count {
            inFlight.removeAll(keepingCapacity: true)
            inFlightHead = 0
        }
    }

    /// The send time of the oldest JOIN still unanswered.
    var oldestInFlightSendTime: Int64? {
        for position in inFlightHead..<inFlight.count {
            if case .joining(let sentAt) = statuses[inFlight[position]] { return sentAt }
        }
        return nil
    }

    /// Our JOIN echo: the channel is captured from now on, and its gap (if any) ends.
    mutating func didJoin(_ channel: String, at now: Moment, _ actions: inout [ConnectionAction]) {
        guard let index = indexByChannel[channel], statuses[index] != .joined else { return }
        closeGap(of: index, at: now, &actions)
        statuses[index] = .joined
        actions.append(.report(.joined(channel: channel, at: now.wall)))
        handedOver(index, at: now, &actions)
    }

    /// A NOTICE for one of our channels: a refusal ends a JOIN in flight (or timed out) for good.
    mutating func didRefuseJoin(
        _ channel: String, msgId: String, text: String, at now: Moment, _ actions: inout [ConnectionAction]
    ) {
        guard Self.joinRefusals.contains(msgId), let index = indexByChannel[channel] else { return }
        switch statuses[index] {
        case .joining, .timedOut, .waiting:
            closeGap(of: index, at: now, &actions)
            statuses[index] = .refused
            let reason = JoinFailure.refused(msgId: msgId, text: text)
            actions.append(.report(.joinFailed(channel: channel, reason: reason, at: now.wall)))
            handedOver(index, at: now, &actions)
        case .joined, .refused:
            break
        }
    }
}
