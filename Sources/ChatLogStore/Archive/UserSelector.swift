import IRCWire

/// Which lines are a user's: those whose user id (``StoredLine/userId``: `user-id`, else a
/// CLEARCHAT's `target-user-id`) is one of ``ids``, as rustlog selects them (`src/db/mod.rs`,
/// `read_user`: `WHERE user_id = ?`). A user asked for by login is known by the ids the archive's own
/// lines give that login, so the lines of a user who renamed (same `user-id`, another login) are
/// theirs too. Only when no line gives an id (lines without tags) are lines matched by login.
public struct UserSelector: Sendable, Equatable {
    /// The user's ids, as bytes.
    public var ids: [[UInt8]]
    /// The login asked for, when asked by login (lowercase).
    public var login: [UInt8]?

    public init(ids: [[UInt8]], login: [UInt8]?) {
        self.ids = ids
        self.login = login
    }

    /// Whether `line` is the user's.
    ///
    /// - Complexity: O(ids × id length). - Allocations: none.
    public func matches(_ line: StoredLine, in bytes: Span<UInt8>) -> Bool {
        if !ids.isEmpty {
            guard let id = line.userId else { return false }
            for known in ids where bytes.equals(known, at: id.raw.range) { return true }
            return false
        }
        guard let login, let user = line.userLogin(in: bytes) else { return false }
        return bytes.equals(lowercased: login, at: user.range)
    }

    /// The id `line` gives `login`, when the line names that login as its user and carries an id.
    ///
    /// - Allocations: the id, when there is one.
    public static func id(of login: [UInt8], in line: StoredLine, _ bytes: Span<UInt8>) -> [UInt8]? {
        guard let user = line.userLogin(in: bytes), bytes.equals(lowercased: login, at: user.range),
            let id = line.userId, !id.raw.isEmpty
        else { return nil }
        var out: [UInt8] = []
        for i in id.raw.range { out.append(bytes[i]) }
        return out
    }
}
