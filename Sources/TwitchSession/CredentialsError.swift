/// Why credentials could not be set up. No case carries the token itself.
public enum CredentialsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The token file cannot be opened or read.
    case cannotReadTokenFile(path: String, reason: String)
    /// The token file is not a regular file.
    case tokenFileNotRegular(path: String)
    /// The token file can be read (or written) by group or others.
    case tokenFileTooOpen(path: String, mode: UInt32)
    /// The token file is implausibly large for a token.
    case tokenFileTooLarge(path: String)
    /// The token (from `source`) is empty.
    case emptyToken(source: String)
    /// The token (from `source`) holds spaces or control characters.
    case malformedToken(source: String)
    /// A token was given without the login it belongs to.
    case missingLogin(source: String)
    /// The login is not a Twitch login (letters, digits, underscore).
    case invalidLogin(String)

    public var description: String {
        switch self {
        case .cannotReadTokenFile(let path, let reason):
            return "cannot read token file '\(path)': \(reason)"
        case .tokenFileNotRegular(let path):
            return "token file '\(path)' is not a regular file"
        case .tokenFileTooOpen(let path, let mode):
            let octal = String(mode & 0o777, radix: 8)
            return "refusing token file '\(path)': it is accessible by group or others (mode 0\(octal)). "
                + "Restrict it to its owner with `chmod 600 \(path)` and try again."
        case .tokenFileTooLarge(let path):
            return "token file '\(path)' is too large to hold a token"
        case .emptyToken(let source):
            return "the token from \(source) is empty"
        case .malformedToken(let source):
            return "the token from \(source) contains spaces or control characters; expected one line like oauth:abc123"
        case .missingLogin(let source):
            let variable = Credentials.loginEnvironmentVariable
            return "a token (from \(source)) needs the login of its account: set \(variable) "
                + "or pass the login"
        case .invalidLogin(let login):
            return "'\(login)' is not a Twitch login (letters, digits and underscores only)"
        }
    }
}
