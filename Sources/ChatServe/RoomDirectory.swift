import IRCWire

/// Channel logins and their numeric room ids, for the `room-id` tag of the ROOMSTATE a JOIN gets.
///
/// Learned from the `room-id` tags of the log's lines when the server starts (see ``ReplayLog``); a
/// channel the log does not name gets a made-up but stable id (a hash of its login), so a client
/// always sees a complete ROOMSTATE.
///
/// Confined to the server's loop thread.
struct RoomDirectory {
    private var ids: [String: String] = [:]

    /// Records the room id of `message`'s channel, if the line names both and the channel is new.
    ///
    /// - Complexity: O(channel length) to look up; allocations only for a new channel.
    mutating func learn(from message: TwitchMessage, in bytes: Span<UInt8>) {
        guard let channel = message.channel, let room = message.tags[.roomId], !room.raw.isEmpty else { return }
        let login = String(decoding: bytes, in: channel)
        guard ids[login] == nil else { return }
        let id = String(decoding: bytes, in: room.raw)
        guard id.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return }
        ids[login] = id
    }

    /// The room id of `channel` (a lower-case login without `#`).
    func id(of channel: String) -> String {
        if let id = ids[channel] { return id }
        // FNV-1a, 32 bits: stable across runs and machines, unlike `hashValue`.
        var hash: UInt32 = 2_166_136_261
        for byte in channel.utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return String(100_000_000 + hash % 900_000_000)
    }
}
