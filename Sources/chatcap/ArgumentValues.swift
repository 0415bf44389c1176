import ArgumentParser

/// Argument values several commands read the same way: channel logins and `--speed`.
enum ArgumentValues {
    /// `#Name` or `name` → `name`.
    static func login(_ channel: String) -> String {
        (channel.hasPrefix("#") ? String(channel.dropFirst()) : channel).lowercased()
    }

    /// Whether `login` is a Twitch login: letters, digits and `_`, not empty.
    static func isLogin(_ login: String) -> Bool {
        !login.isEmpty && login.utf8.allSatisfy { $0 == UInt8(ascii: "_") || ($0 | 0x20) &- 97 < 26 || $0 &- 48 < 10 }
    }

    /// A `--speed` value: a positive factor of real time, or `nil` for `max`.
    static func speed(_ text: String) throws -> Double? {
        if text == "max" { return nil }
        guard let speed = Double(text), speed > 0, speed.isFinite else {
            throw ValidationError("--speed must be a positive number or max, not '\(text)'")
        }
        return speed
    }
}
