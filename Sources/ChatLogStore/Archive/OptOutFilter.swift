import IRCWire

/// An ``OptOutList`` as a line test: whether a line is about a user who opted out (its user id —
/// `user-id`, else a CLEARCHAT's `target-user-id` — or its user's login is on the list), so the API
/// never serves it, whoever asks.
///
/// Each entry is kept with its FNV-1a hash; a line's id and login are hashed in place and only a hash
/// that is on the list is compared byte for byte, so the test costs the same for 1 entry or 100,000.
public struct OptOutFilter: Sendable, Equatable {
    private var ids: [UInt64: [[UInt8]]] = [:]
    private var logins: [UInt64: [[UInt8]]] = [:]

    public init(_ list: OptOutList) {
        for id in list.ids { ids[Self.hash(Array(id.utf8)), default: []].append(Array(id.utf8)) }
        for login in list.logins { logins[Self.hash(Array(login.utf8)), default: []].append(Array(login.utf8)) }
    }

    public var isEmpty: Bool { ids.isEmpty && logins.isEmpty }

    /// Whether `line` is about a user on the list.
    ///
    /// - Complexity: O(id + login length). - Allocations: none.
    public func excludes(_ line: StoredLine, in bytes: Span<UInt8>) -> Bool {
        if let id = line.userId, Self.lists(ids, bytes, id.raw.range, lowercased: false) { return true }
        // The login is looked for in the line only when some login is listed.
        if !logins.isEmpty, let login = line.userLogin(in: bytes),
            Self.lists(logins, bytes, login.range, lowercased: true)
        {
            return true
        }
        return false
    }

    /// Whether `line` is of a channel on the list (its login, the channel it is addressed to, or its
    /// `room-id`) or about a user on it (``excludes(_:in:)``): what capture does not write.
    ///
    /// - Complexity: O(channel + id + login length). - Allocations: none.
    public func withholds(_ line: StoredLine, in bytes: Span<UInt8>) -> Bool {
        if let channel = line.message.channel, Self.lists(logins, bytes, channel.range, lowercased: true) {
            return true
        }
        if let room = line.roomId, Self.lists(ids, bytes, room.raw.range, lowercased: false) { return true }
        return excludes(line, in: bytes)
    }

    /// Whether `table` holds the bytes of `range` (compared in lower case with `lowercased`).
    ///
    /// - Complexity: O(range) to hash, O(1) candidates. - Allocations: none.
    private static func lists(
        _ table: [UInt64: [[UInt8]]], _ bytes: Span<UInt8>, _ range: Range<Int>, lowercased: Bool
    ) -> Bool {
        guard !table.isEmpty, let candidates = table[hash(bytes, range)] else { return false }
        for candidate in candidates
        where lowercased ? bytes.equals(lowercased: candidate, at: range) : bytes.equals(candidate, at: range) {
            return true
        }
        return false
    }

    private static func hash(_ bytes: [UInt8]) -> UInt64 {
        var h = FNV1a64()
        for b in bytes { h.add(b.asciiLowercased) }
        return h.value
    }

    private static func hash(_ bytes: Span<UInt8>, _ range: Range<Int>) -> UInt64 {
        var h = FNV1a64()
        for i in range { h.add(bytes[i].asciiLowercased) }
        return h.value
    }
}
