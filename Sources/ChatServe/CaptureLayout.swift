import TwitchSession

/// Recognises a file in `chatcap capture`'s layout, `DIR/<channel>/<YYYY-MM-DD>[THH][.N].log.gz`,
/// whose lines are all of `<channel>` (capture writes lines of other channels to `_session`), so that
/// the server learns its channel from the path instead of reading it at start.
enum CaptureLayout {
    /// The channel of a capture file at `path`, or `nil` when the path is not in capture's layout.
    ///
    /// - Complexity: O(path length). - Allocations: the components and the result.
    static func channel(ofFile path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 2, isCaptureFileName(parts[parts.count - 1]) else { return nil }
        let channel = parts[parts.count - 2]
        // `_session` (and any name starting with `_`) is not a channel: Twitch logins start with a
        // letter or digit.
        guard channel.first != "_", Login.isValid(String(channel)), channel == channel.lowercased() else {
            return nil
        }
        return String(channel)
    }

    /// `2025-11-21.log.gz`, `2025-11-21T04.log.gz`, `2025-11-21.3.log.gz`, `2025-11-21T04.3.log.gz`.
    static func isCaptureFileName(_ name: Substring) -> Bool {
        guard name.hasSuffix(".log.gz") else { return false }
        let stem = Array(name.utf8.dropLast(".log.gz".utf8.count))
        func digits(_ range: Range<Int>) -> Bool {
            range.upperBound <= stem.count && range.allSatisfy { stem[$0] &- UInt8(ascii: "0") < 10 }
        }
        // YYYY-MM-DD
        guard stem.count >= 10, digits(0..<4), stem[4] == UInt8(ascii: "-"), digits(5..<7),
            stem[7] == UInt8(ascii: "-"), digits(8..<10)
        else { return false }
        var i = 10
        if i < stem.count, stem[i] == UInt8(ascii: "T") {
            guard digits((i + 1)..<(i + 3)) else { return false }
            i += 3
        }
        if i < stem.count {
            guard stem[i] == UInt8(ascii: "."), i + 1 < stem.count, digits((i + 1)..<stem.count) else { return false }
        }
        return true
    }
}
