public import IRCWire

/// The `/` filter of `watch`: keeps chat whose sender login, display name or text contains the
/// needle (`@login` matches that login exactly), ASCII letters compared without case.
///
/// Applies to chat lines and to moderation lines about a user (matched by their login and text);
/// other system lines are hidden while a filter is on.
public struct WatchFilter: Sendable, Equatable {
    /// What the user typed.
    public let text: String
    private let needle: [UInt8]
    /// `@login`: match the sender exactly, not the text.
    private let exact: Bool

    /// `nil` for an empty needle.
    public init?(_ text: String) {
        let bytes = text.utf8.map(\.asciiLowercased)
        guard !bytes.isEmpty else { return nil }
        self.text = text
        exact = bytes.count > 1 && bytes.first == UInt8(ascii: "@")
        needle = exact ? Array(bytes.dropFirst()) : bytes
    }

    /// Whether the line passes.
    ///
    /// - Complexity: O(text × needle) at worst. - Allocations: none.
    public func matches(_ message: TwitchMessage, in bytes: Span<UInt8>) -> Bool {
        switch message.command {
        case .privmsg, .whisper:
            if let l = message.senderLogin(in: bytes), user(bytes, l.range) { return true }
            if let d = message.tags[.displayName], user(bytes, d.raw.range) { return true }
            return text(message, bytes)
        case .usernotice:
            if let l = message.tags[.login], user(bytes, l.raw.range) { return true }
            if let d = message.tags[.displayName], user(bytes, d.raw.range) { return true }
            return text(message, bytes)
        case .clearchat:
            guard let c = message.clearChat(in: bytes) else { return false }
            switch c.action {
            case .clearAll: return false
            case .ban(let l), .timeout(let l, _): return user(bytes, l.range)
            }
        case .clearmsg:
            if let l = message.tags[.login], user(bytes, l.raw.range) { return true }
            return text(message, bytes)
        default:
            return false
        }
    }

    private func user(_ bytes: Span<UInt8>, _ range: Range<Int>) -> Bool {
        exact ? bytes.equals(lowercased: needle, at: range) : contains(bytes, range)
    }

    private func text(_ message: TwitchMessage, _ bytes: Span<UInt8>) -> Bool {
        guard !exact, let t = message.text(in: bytes) else { return false }
        return contains(bytes, t.range)
    }

    private func contains(_ bytes: Span<UInt8>, _ range: Range<Int>) -> Bool {
        guard needle.count <= range.count else { return false }
        var start = range.lowerBound
        while start + needle.count <= range.upperBound {
            var k = 0
            while k < needle.count && bytes[start + k].asciiLowercased == needle[k] { k += 1 }
            if k == needle.count { return true }
            start += 1
        }
        return false
    }

    public static func == (a: WatchFilter, b: WatchFilter) -> Bool { a.needle == b.needle && a.exact == b.exact }
}
