import ChatPosix
public import ChatStore
public import TwitchSession

/// The channel list changed at run time (a reloaded `--channels-file`): channels joined and parted
/// on the connections already open, every other channel left alone.
extension LiveSession {
    /// The channels of the session now, connection by connection (normalised).
    ///
    /// - Complexity: O(channels). - Allocations: the array.
    public var channels: [String] { connections.flatMap(\.machine.channels) }

    /// Opens a gap for each of `channels` from `from` (the hole a restart left), before ``run(until:)``:
    /// each ends, with its record (and a backfill, with ``recentMessages``), when its channel is
    /// joined (``ConnectionMachine/openGap(for:from:reason:)``).
    ///
    /// - Complexity: O(channels × connections). - Allocations: none beyond the machines' own.
    public func openGaps(_ channels: [String], from: Timestamp, reason: DisconnectReason) {
        for channel in channels {
            for c in connections where c.machine.openGap(for: channel, from: from, reason: reason) {
                break
            }
        }
    }

    /// Removes `removing` and adds `adding` (logins, any case, `#` optional) while the session runs.
    /// Call it on the ingest thread (from ``onTick``).
    ///
    /// A removed channel is parted on its connection (``ConnectionMachine/remove(_:at:)``: `PART`,
    /// its open gap ended, a `parted` record through `onRecord`). An added one goes to the first
    /// connection with room (``ConnectionMachine/hasRoom``), or to a new connection opened for it
    /// (connections opened together are ``ConnectionSettings/connectSpacingMs`` apart), and is joined
    /// at the session's shared JOIN pace. No connection is closed or reopened: the channels not named
    /// go on without a break. A connection left without channels stays open (a later add uses it).
    ///
    /// - Returns: the channels actually removed and added, normalised, in order (a channel not in the
    ///   session is not removed; one already in it, or named twice, is not added again).
    /// - Complexity: O(channels) per channel removed; O(connections) per channel added.
    /// - Allocations: the lists and the actions (a reload is rare).
    @discardableResult
    public func update(adding: [String], removing: [String]) -> (added: [String], removed: [String]) {
        let now = Moment.now()
        var removed: [String] = []
        for channel in removing {
            let login = Login.normalize(channel)
            guard let c = connections.first(where: { $0.machine.status(of: login) != nil }) else { continue }
            perform(c.machine.remove(login, at: now), on: c)
            removed.append(login)
        }
        var added: [String] = []
        var present = Set(channels)
        var touched: [Connection] = []
        var opened = 0
        for channel in adding {
            let login = Login.normalize(channel)
            guard Login.isValid(login), present.insert(login).inserted else { continue }
            let c: Connection
            if let roomy = connections.first(where: { $0.machine.phase != .stopped && $0.machine.hasRoom }) {
                c = roomy
            } else {
                c = Connection(
                    machine: ConnectionMachine(
                        channels: [], credentials: credentials, settings: settings,
                        openAfterMs: Int64(opened) * settings.connectSpacingMs))
                opened += 1
                connections.append(c)
            }
            guard c.machine.add(login, at: now) else { continue }
            added.append(login)
            if !touched.contains(where: { $0 === c }) { touched.append(c) }
        }
        for c in touched {
            if c.machine.phase == .idle {
                perform(c.machine.start(at: now), on: c)
                continue
            }
            // The JOINs the shared pace allows now; the loop's deadline sends the rest.
            actions.removeAll(keepingCapacity: true)
            c.machine.handle(.tick, at: now, into: &actions, sharing: &pace)
            perform(actions, on: c)
        }
        return (added, removed)
    }
}
