import IRCWire

/// The channels the log has, and their numeric room ids, for answering JOINs: whether the channel
/// is known (see ``UnknownChannelPolicy``) and the `room-id` of the ROOMSTATE it gets.
///
/// Learned when the server starts (see ``ReplayLog``): channels from every line addressed to one (or
/// from the path of a file in capture's layout), room ids from the lines' `room-id` tags. A channel
/// whose room id the log does not give gets a made-up but stable id (a hash of its login), so a
/// client always sees a complete ROOMSTATE.
///
/// Confined to the server's loop thread.
struct RoomDirectory {
    private var ids: [String: String] = [:]
    private var known: Set<LoginKey> = []
    /// The channels of `ids`, to skip a line of a channel whose id is known without making a string.
    private var withId: Set<LoginKey> = []

    /// Records the channel of `message` as known, and its room id if the line gives one and the
    /// channel has none yet.
    ///
    /// - Complexity: O(channel length). - Allocations: none for a channel already known with its id;
    ///   the set's growth for a new channel; the strings of a new room id.
    mutating func learn(from message: TwitchMessage, in bytes: Span<UInt8>) {
        guard let channel = message.channel else { return }
        let span = bytes.extracting(channel.range)
        let key = LoginKey(span)
        if let key { known.insert(key) }
        guard let room = message.tags[.roomId], !room.raw.isEmpty, key.map({ !withId.contains($0) }) ?? true
        else { return }
        let login = String(decoding: bytes, in: channel)
        guard ids[login] == nil else { return }
        let id = String(decoding: bytes, in: room.raw)
        guard id.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return }
        ids[login] = id
        if let key { withId.insert(key) }
    }

    /// Records `channel` (a lower-case login without `#`) as known, e.g. from a capture directory's name.
    mutating func learn(channel: String) {
        var channel = channel
        if let key = channel.withUTF8({ unsafe LoginKey($0.span) }) { known.insert(key) }
    }

    /// Whether the log has a line of `channel` (a lower-case login without `#`).
    func has(_ channel: String) -> Bool {
        var channel = channel
        guard let key = channel.withUTF8({ unsafe LoginKey($0.span) }) else { return false }
        return known.contains(key)
    }

    /// How many channels the log has.
    var channelCount: Int { known.count }

    /// The room id of `channel` (a lower-case login without `#`).
    func id(of channel: String) -> String {
        ids[channel] ?? Self.stableId(channel)
    }

    /// A made-up numeric id for `login` (9 digits), the same on every run and machine: for room ids
    /// the log does not give and for the `user-id` of serve's clients.
    static func stableId(_ login: String) -> String {
        // FNV-1a, 32 bits: stable across runs and machines, unlike `hashValue`.
        var hash: UInt32 = 2_166_136_261
        for byte in login.utf8 {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return String(100_000_000 + hash % 900_000_000)
    }
}

/// A channel login of at most 32 bytes held inline, so that a set of them is looked up without
/// making a string per line.
struct LoginKey: Hashable, Sendable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var count: UInt8

    /// `nil` for an empty name or one over 32 bytes.
    ///
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    init?(_ bytes: Span<UInt8>) {
        guard (1...32).contains(bytes.count) else { return nil }
        count = UInt8(bytes.count)
        // SAFETY: `words` holds 32 bytes and at most 32 are written.
        unsafe withUnsafeMutableBytes(of: &words) { raw in
            for i in bytes.indices { unsafe raw[i] = bytes[i] }
        }
    }

    static func == (a: LoginKey, b: LoginKey) -> Bool {
        a.count == b.count && a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2
            && a.words.3 == b.words.3
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
