import ChatPosix
import Glibc
public import TwitchSession

extension Credentials {
    /// Largest token file accepted.
    static let maxTokenFileSize = 4096

    /// The credentials for a session: the token from `tokenFile` if given, else from
    /// `CHATCAP_TOKEN`, else anonymous. A token never comes from a command-line value.
    ///
    /// - Parameters:
    ///   - tokenFile: a file holding the token (one line); it must not be accessible by group or others.
    ///   - login: the account's login; defaults to `CHATCAP_LOGIN`. Required with a token.
    ///   - environment: looks up environment variables (tests pass a dictionary's lookup).
    /// - Throws: ``CredentialsError``, whose messages name the file or variable and never the token.
    public static func resolve(
        tokenFile: String? = nil, login: String? = nil,
        environment: (String) -> String? = Credentials.processEnvironment
    ) throws(CredentialsError) -> Credentials {
        let token: String
        let source: String
        if let tokenFile {
            token = try readToken(
                fromFile: tokenFile,
                systemdCredential: isInCredentialsDirectory(tokenFile, environment("CREDENTIALS_DIRECTORY")))
            source = "token file '\(tokenFile)'"
        } else if let value = environment(tokenEnvironmentVariable) {
            token = trimmed(value)
            source = "environment variable \(tokenEnvironmentVariable)"
        } else {
            return .anonymous
        }
        guard !token.isEmpty else { throw .emptyToken(source: source) }
        guard let login = login ?? environment(loginEnvironmentVariable).map(trimmed), !login.isEmpty else {
            throw .missingLogin(source: source)
        }
        return try .oauth(login: login, token: token, source: source)
    }

    /// The value of an environment variable of this process.
    public static func processEnvironment(_ name: String) -> String? {
        // SAFETY: `getenv` returns null or a NUL-terminated string owned by the environment; it is
        // copied at once (no thread changes the environment while the CLI starts).
        guard let value = unsafe getenv(name) else { return nil }
        return unsafe String(cString: value)
    }

    /// Whether `path` names a file directly in `directory` (systemd's `$CREDENTIALS_DIRECTORY`), both
    /// resolved (`realpath`). `false` when either does not resolve.
    static func isInCredentialsDirectory(_ path: String, _ directory: String?) -> Bool {
        guard let directory, !directory.isEmpty, let slash = path.lastIndex(of: "/") else { return false }
        let parent = slash == path.startIndex ? "/" : String(path[..<slash])
        guard let resolved = resolvedPath(parent), let credentials = resolvedPath(directory) else { return false }
        return resolved == credentials
    }

    private static func resolvedPath(_ path: String) -> String? {
        // SAFETY: `realpath` with a null buffer returns null or a malloc'd NUL-terminated string, copied
        // and freed here.
        guard let resolved = unsafe realpath(path, nil) else { return nil }
        defer { unsafe free(resolved) }
        return unsafe String(cString: resolved)
    }

    /// Reads a token file after checking, on the opened descriptor, that it is a regular file that
    /// only its owner can access (`mode & 0o077 == 0`).
    ///
    /// A systemd credential (`LoadCredential=`, a file directly in `$CREDENTIALS_DIRECTORY`) is
    /// written 0400 with an ACL entry that lets the service's user read it, and `stat` shows the ACL's
    /// mask (`r--`) in the group bits (mode 0440) although no group can read it: there, the group may
    /// have read (and only read); others still nothing. The directory is the service's own, mounted
    /// read-only.
    ///
    /// - Returns: the contents without surrounding whitespace.
    /// - Throws: ``CredentialsError``.
    static func readToken(fromFile path: String, systemdCredential: Bool = false) throws(CredentialsError)
        -> String
    {
        var descriptor: Int32
        // Non-blocking: opening a FIFO for reading would otherwise wait for a writer forever; the
        // descriptor is then checked to be a regular file (for which O_NONBLOCK changes nothing).
        repeat {
            // SAFETY: `path` is passed as a NUL-terminated C string valid for the call.
            descriptor = unsafe open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        } while descriptor < 0 && errno == EINTR
        guard descriptor >= 0 else {
            throw .cannotReadTokenFile(path: path, reason: Errno.text(errno))
        }
        defer { close(descriptor) }
        var status = stat()
        // SAFETY: `fstat` fills the local `stat` structure.
        guard unsafe fstat(descriptor, &status) == 0 else {
            throw .cannotReadTokenFile(path: path, reason: Errno.text(errno))
        }
        let mode = UInt32(status.st_mode)
        // S_IFMT / S_IFREG: macros Swift does not import.
        guard mode & 0o170000 == 0o100000 else { throw .tokenFileNotRegular(path: path) }
        guard mode & (systemdCredential ? 0o037 : 0o077) == 0 else { throw .tokenFileTooOpen(path: path, mode: mode) }
        guard Int(status.st_size) <= maxTokenFileSize else { throw .tokenFileTooLarge(path: path) }
        var contents = [UInt8](repeating: 0, count: maxTokenFileSize + 1)
        var filled = 0
        while filled < contents.count {
            let start = filled
            // SAFETY: reads at most `contents.count - start` bytes into the array's storage from `start`.
            let count = unsafe contents.withUnsafeMutableBytes { raw in
                unsafe read(descriptor, raw.baseAddress! + start, raw.count - start)
            }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotReadTokenFile(path: path, reason: Errno.text(errno))
            }
            filled += count
        }
        guard filled <= maxTokenFileSize else { throw .tokenFileTooLarge(path: path) }
        let text = trimmed(String(decoding: contents[..<filled], as: UTF8.self))
        for index in contents.indices { contents[index] = 0 }
        return text
    }

    private static func trimmed(_ text: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        var slice = Substring(text)
        while let first = slice.first, isSpace(first) { slice = slice.dropFirst() }
        while let last = slice.last, isSpace(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
