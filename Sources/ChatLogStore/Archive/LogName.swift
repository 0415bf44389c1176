import ChatInput

/// The names an archive is made of, checked before any of them becomes part of a path: channel
/// folders (Twitch logins) and capture's file names.
///
/// A name that is not a login (`..`, `_session`, anything with `/`, `%`, NUL, upper case after
/// lowering, or longer than 25 bytes) never reaches the file system, so no request can name a file
/// outside the directory or one of capture's own records.
public enum LogName: Sendable {
    /// Whether `text` is a Twitch id: a decimal number of at most 20 digits.
    public static func isId(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.count <= 20 && text.utf8.allSatisfy { $0 &- UInt8(ascii: "0") < 10 }
    }

    /// Whether `name` is a Twitch login as capture names a channel's folder: 1…25 bytes of
    /// `[a-z0-9_]`, not starting with `_` (capture's own folders, `_session` and `_load`, do).
    ///
    /// - Complexity: O(`name` bytes). - Allocations: none.
    public static func isLogin(_ name: some StringProtocol) -> Bool {
        var count = 0
        for b in name.utf8 {
            count += 1
            guard count <= 25 else { return false }
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): continue
            case UInt8(ascii: "_") where count > 1: continue
            default: return false
            }
        }
        return count > 0
    }

    /// `name` lowered (ASCII), as Twitch treats logins case-insensitively, if it is then a login.
    public static func login(_ name: some StringProtocol) -> String? {
        let lowered = String(decoding: name.utf8.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
        return isLogin(lowered) ? lowered : nil
    }

    /// The UTC day a capture file holds, from its name (`YYYY-MM-DD[THH][.N].log[.gz]`, see
    /// `CaptureRotation`), or `nil` for any other name (chatcap's `*.irc` logs carry no day).
    ///
    /// - Complexity: O(name length). - Allocations: none beyond the check's.
    public static func day(ofFile name: String) -> LogDay? {
        guard InputPaths.isLogName(name), !name.hasSuffix(".irc"), !name.hasSuffix(".irc.gz") else { return nil }
        let b = Array(name.utf8.prefix(10))
        guard b.count == 10 else { return nil }
        func number(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                let d = b[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            return v
        }
        guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10) else { return nil }
        return LogDay(year: y, month: m, day: d)
    }
}
