public import IRCWire

/// Who the session logs in as: anonymous (`justinfan` + random digits, read-only) by default, or an
/// account login with its OAuth token.
///
/// The token never appears in text: ``description``, ``debugDescription`` and the reflection used
/// by `dump` all redact it, and the `PASS` line built from it is marked secret. Read it only through
/// ``passMessage``, when writing to the server.
///
/// A value; `Sendable`, so it can be resolved on the main thread and handed to the ingest thread.
public struct Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The account login (lower case), or `nil` when anonymous.
    public let login: String?
    private let token: Secret?

    private init(login: String?, token: Secret?) {
        self.login = login
        self.token = token
    }

    /// Read-only anonymous access as `justinfan` followed by random digits.
    public static let anonymous = Credentials(login: nil, token: nil)

    /// An account login with its OAuth token (with or without the `oauth:` prefix).
    ///
    /// - Throws: ``CredentialsError/malformedToken(source:)`` or ``CredentialsError/invalidLogin(_:)``;
    ///   neither message shows the token.
    public static func oauth(login: String, token: String, source: String = "the token") throws(CredentialsError)
        -> Credentials
    {
        let login = login.lowercased()
        guard !login.isEmpty, login.utf8.count <= 64,
            login.utf8.allSatisfy({
                $0 &- UInt8(ascii: "a") < 26 || $0 &- UInt8(ascii: "0") < 10 || $0 == UInt8(ascii: "_")
            })
        else { throw .invalidLogin(login) }
        let bare = token.hasPrefix("oauth:") ? token.dropFirst(6) : Substring(token)
        guard !bare.isEmpty else { throw .emptyToken(source: source) }
        guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .malformedToken(source: source) }
        return Credentials(login: login, token: Secret(value: token))
    }

    public var isAnonymous: Bool { token == nil }

    /// `PASS oauth:…` (marked secret), or `nil` when anonymous.
    public var passMessage: OutgoingMessage? { token.map { OutgoingMessage.pass(token: $0.value) } }

    /// The nick to register with: the login, or `justinfan` and 5 to 8 random digits.
    public func nick(using generator: inout some RandomNumberGenerator) -> String {
        if let login { return login }
        return "justinfan\(Int.random(in: 10_000...99_999_999, using: &generator))"
    }

    public var description: String {
        guard let login else { return "anonymous" }
        return "oauth(login: \(login), token: \(Secret.redacted))"
    }

    public var debugDescription: String { "Credentials(\(description))" }

    public var customMirror: Mirror {
        Mirror(
            self, children: ["login": login as Any, "token": token == nil ? "none" : Secret.redacted],
            displayStyle: .struct)
    }
}

/// A string that never shows itself in text or reflection.
struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    static let redacted = "<redacted>"
    let value: String

    var description: String { Self.redacted }
    var debugDescription: String { Self.redacted }
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension Credentials {
    /// The environment variable that may hold the OAuth token.
    public static let tokenEnvironmentVariable = "CHATCAP_TOKEN"
    /// The environment variable that may hold the token's login.
    public static let loginEnvironmentVariable = "CHATCAP_LOGIN"
}
