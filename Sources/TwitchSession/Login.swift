import IRCWire

/// Twitch logins (user and channel names) as every command reads them.
public enum Login: Sendable {
    /// A channel or user name as the server echoes it: trimmed, without a leading `#`, lower case.
    ///
    /// - Allocations: the string.
    public static func normalize(_ name: some StringProtocol) -> String {
        var login = Substring(name)
        while let first = login.first, first == " " || first == "#" { login = login.dropFirst() }
        while let last = login.last, last == " " { login = login.dropLast() }
        return login.lowercased()
    }

    /// Whether `bytes` can be a Twitch login: 1–25 ASCII letters, digits and `_` (any case; also the
    /// shape of an anonymous `justinfan12345`).
    ///
    /// - Complexity: O(`bytes.count`). - Allocations: none.
    public static func isValid(_ bytes: Span<UInt8>) -> Bool {
        guard (1...25).contains(bytes.count) else { return false }
        for i in bytes.indices {
            let b = bytes[i].asciiLowercased
            guard b == UInt8(ascii: "_") || b &- UInt8(ascii: "a") < 26 || b &- UInt8(ascii: "0") < 10 else {
                return false
            }
        }
        return true
    }

    /// ``isValid(_:)`` for a string.
    public static func isValid(_ name: String) -> Bool { isValid(name.utf8.span) }

    /// Why `login` (normalised) is not a valid one, for an error message: its length or its
    /// characters (`letters, digits and _`).
    public static func whyInvalid(_ login: some StringProtocol) -> String {
        let count = login.utf8.count
        if count == 0 { return "empty" }
        if count > 25 { return "\(count) characters; a login has at most 25" }
        return "letters, digits and _"
    }
}
