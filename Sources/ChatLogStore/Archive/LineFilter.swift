public import ChatStore
import IRCWire

/// Which served lines an answer takes: a user's only (``user``), those whose shown time is in
/// ``window``, those whose text holds ``needle`` (ASCII letters in any case, as ClickHouse's
/// `positionCaseInsensitive` in rustlog's `search_user_logs`, `src/db/mod.rs`); never a line about a
/// user who opted out (``optOut``). All that are set must hold.
public struct LineFilter: Sendable, Equatable {
    public var user: UserSelector?
    public var window: Range<Timestamp>?
    /// Lines about these users are never taken.
    public var optOut: OptOutFilter?
    /// The text searched for, ASCII lowercased; never empty when set.
    public private(set) var needle: [UInt8]?

    public init(
        user: UserSelector? = nil, window: Range<Timestamp>? = nil, search: String? = nil,
        optOut: OptOutFilter? = nil
    ) {
        self.user = user
        self.window = window
        self.optOut = optOut.flatMap { $0.isEmpty ? nil : $0 }
        if let search, !search.isEmpty { needle = search.utf8.map(\.asciiLowercased) }
    }

    /// Whether `line` is one of the answer's.
    ///
    /// - Complexity: O(ids) for a user, O(1) for a window, O(text × needle) for a search.
    /// - Allocations: none.
    public func admits(_ line: StoredLine, in bytes: Span<UInt8>) -> Bool {
        if let user, !user.matches(line, in: bytes) { return false }
        if let optOut, optOut.excludes(line, in: bytes) { return false }
        if let window, !window.contains(line.timestamp(in: bytes)) { return false }
        if let needle {
            guard let text = line.message.text(in: bytes) else { return false }
            return Self.contains(needle, in: bytes, text.range)
        }
        return true
    }

    /// Whether `bytes[range]` holds `needle` (lowercase), ASCII letters compared in any case.
    static func contains(_ needle: [UInt8], in bytes: Span<UInt8>, _ range: Range<Int>) -> Bool {
        let n = needle.count
        guard n <= range.count else { return false }
        var start = range.lowerBound
        while start + n <= range.upperBound {
            var k = 0
            while k < n && bytes[start + k].asciiLowercased == needle[k] { k += 1 }
            if k == n { return true }
            start += 1
        }
        return false
    }
}
