import ChatIndex
import ChatStore
import IRCWire
import TwitchSession

/// The channel list changed at run time (a reloaded `--channels-file`): channels admitted to lanes
/// of their own, or retired from them.
extension CaptureWriter {
    /// Whether lanes follow a channel list (``CaptureOptions/channels``); without one every channel
    /// has its lane and there is nothing to admit or retire.
    public var followsChannelList: Bool { joinedKeys != nil }

    /// Gives `channels` (logins, any case, `#` optional) files of their own from now on: their lines
    /// no longer go to `_session` as unjoined. A channel retired earlier gets its lane back (its next
    /// line opens a file again, a new gzip member).
    ///
    /// - Complexity: O(total bytes of the names). - Allocations: a key per channel new to the writer.
    public func admit(channels: [String]) {
        guard joinedKeys != nil else { return }
        for channel in channels {
            let key = Array(Login.normalize(channel).utf8).map(\.asciiLowercased)
            let hash = joinedIndex.key(for: key.span)
            if let position = joinedPosition(of: key.span, key: hash) {
                joinedNow[position] = true
            } else {
                joinedIndex.insert(UInt64(joinedKeys!.count), forKey: hash)
                joinedKeys!.append(key)
                joinedNow.append(true)
            }
            if let lane = existingLane(key) { lane.isParted = false }
        }
    }

    /// Takes `channels` off the list: each one's open file is finished (a complete gzip member) and
    /// closed now, and its lines from now on (those the server sends before it has our PART) go to
    /// `_session` as unjoined (``unjoinedLines``), so that its file holds nothing received after its
    /// removal.
    ///
    /// - Throws: ``CaptureError`` (sticky) when finishing a file fails.
    /// - Complexity: O(total bytes of the names) and a file close per channel with one open.
    public func retire(channels: [String]) throws(CaptureError) {
        guard joinedKeys != nil else { return }
        try checkUsable()
        for channel in channels {
            let key = Array(Login.normalize(channel).utf8).map(\.asciiLowercased)
            if let position = joinedPosition(of: key.span, key: joinedIndex.key(for: key.span)) {
                joinedNow[position] = false
            }
            guard let lane = existingLane(key) else { continue }
            lane.isParted = true
            if unsafe lastLane?.toOpaque() == Unmanaged.passUnretained(lane).toOpaque() { unsafe lastLane = nil }
            try closeFile(of: lane)
        }
    }

    /// The lane of `key` (lowercase login bytes), if a line of it was stored.
    private func existingLane(_ key: [UInt8]) -> CaptureLane? {
        laneIndex.value(forKey: laneIndex.key(for: key.span)) { lanes[Int($0)].key == key }.map { lanes[Int($0)] }
    }
}
