import ChatLive
import Foundation
import IRCWire
import Testing
import TwitchSession

@Suite struct CredentialsTests {
    static let token = "oauth:s3cr3tt0k3nvalue"

    /// A fresh directory with a token file of the given mode; removed by the caller.
    static func tokenFile(_ contents: String, mode: mode_t) throws -> (directory: String, path: String) {
        let directory = NSTemporaryDirectory() + "chatcap-credentials-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/token"
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, mode) == 0)
        return (directory, path)
    }

    static func environment(_ values: [String: String]) -> (String) -> String? { { values[$0] } }

    @Test("anonymous when neither a token file nor CHATCAP_TOKEN is given")
    func anonymousByDefault() throws {
        let credentials = try Credentials.resolve(environment: Self.environment([:]))
        #expect(credentials.isAnonymous)
        #expect(credentials.passMessage == nil)
        #expect(credentials.description == "anonymous")
    }

    @Test("the token comes from CHATCAP_TOKEN, the login from CHATCAP_LOGIN")
    func tokenFromEnvironment() throws {
        let credentials = try Credentials.resolve(
            environment: Self.environment(["CHATCAP_TOKEN": "abc123\n", "CHATCAP_LOGIN": "NightOwl"]))
        #expect(!credentials.isAnonymous)
        #expect(credentials.login == "nightowl")
        #expect(credentials.passMessage == .pass(token: "abc123"))
    }

    @Test("a token file readable only by its owner is read and trimmed; it wins over the environment")
    func tokenFromFile() throws {
        let (directory, path) = try Self.tokenFile(Self.token + "\n", mode: 0o600)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let credentials = try Credentials.resolve(
            tokenFile: path, login: "owl", environment: Self.environment(["CHATCAP_TOKEN": "other"]))
        #expect(credentials.passMessage == .pass(token: Self.token))
        let readOnly = try Self.tokenFile(Self.token, mode: 0o400)
        defer { try? FileManager.default.removeItem(atPath: readOnly.directory) }
        #expect(
            try Credentials.resolve(tokenFile: readOnly.path, login: "owl", environment: Self.environment([:]))
                .passMessage != nil)
    }

    @Test(
        "a token file accessible by group or others is refused, naming the file and the fix",
        arguments: [
            mode_t(0o644), 0o640, 0o604, 0o660, 0o620, 0o601,
        ])
    func tooOpenTokenFile(mode: mode_t) throws {
        let (directory, path) = try Self.tokenFile(Self.token, mode: mode)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: CredentialsError.self) {
            try Credentials.resolve(tokenFile: path, login: "owl", environment: Self.environment([:]))
        }
        #expect(error == .tokenFileTooOpen(path: path, mode: UInt32(0o100000 | mode)))
        let message = "\(error!)"
        #expect(message.contains(path) && message.contains("chmod 600 \(path)"))
        #expect(message.contains("0" + String(mode, radix: 8)))
        #expect(!message.contains("s3cr3t"))
    }

    @Test(
        "a systemd credential (LoadCredential=: 0400 with an ACL for the service's user, whose mask stat shows as group r--) is read from $CREDENTIALS_DIRECTORY, and only there"
    )
    func systemdCredential() throws {
        // systemd writes the credential 0400 and adds `user:<service>:r--`; stat then shows the ACL's
        // mask in the group bits: mode 0440, although no group can read it.
        let (directory, path) = try Self.tokenFile(Self.token, mode: 0o440)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let systemd = Self.environment(["CREDENTIALS_DIRECTORY": directory + "/"])
        #expect(
            try Credentials.resolve(tokenFile: path, login: "owl", environment: systemd).passMessage
                == .pass(token: Self.token))
        // The same file anywhere else is refused, as is a credential that others (or a group) could change or read.
        let elsewhere = #expect(throws: CredentialsError.self) {
            try Credentials.resolve(tokenFile: path, login: "owl", environment: Self.environment([:]))
        }
        #expect(elsewhere == .tokenFileTooOpen(path: path, mode: UInt32(0o100440)))
        for mode in [mode_t(0o444), 0o460, 0o404] {
            #expect(chmod(path, mode) == 0)
            #expect(throws: CredentialsError.tokenFileTooOpen(path: path, mode: UInt32(0o100000 | mode))) {
                try Credentials.resolve(tokenFile: path, login: "owl", environment: systemd)
            }
        }
    }

    @Test("a missing token file is a clear error naming it")
    func missingTokenFile() {
        let error = #expect(throws: CredentialsError.self) {
            try Credentials.resolve(
                tokenFile: "/nonexistent/chatcap-token", login: "owl", environment: Self.environment([:]))
        }
        #expect("\(error!)".contains("/nonexistent/chatcap-token"))
        #expect("\(error!)".contains("No such file"))
    }

    @Test("a directory is not a token file")
    func directoryIsNotATokenFile() throws {
        let directory = NSTemporaryDirectory() + "chatcap-credentials-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(chmod(directory, 0o700) == 0)
        #expect(throws: CredentialsError.tokenFileNotRegular(path: directory)) {
            try Credentials.resolve(tokenFile: directory, login: "owl", environment: Self.environment([:]))
        }
    }

    @Test("empty, malformed or login-less tokens are refused without echoing the token")
    func invalidTokens() throws {
        #expect(throws: CredentialsError.emptyToken(source: "environment variable CHATCAP_TOKEN")) {
            try Credentials.resolve(environment: Self.environment(["CHATCAP_TOKEN": " \n", "CHATCAP_LOGIN": "owl"]))
        }
        #expect(throws: CredentialsError.emptyToken(source: "environment variable CHATCAP_TOKEN")) {
            try Credentials.resolve(environment: Self.environment(["CHATCAP_TOKEN": "oauth:", "CHATCAP_LOGIN": "owl"]))
        }
        let malformed = #expect(throws: CredentialsError.self) {
            try Credentials.resolve(
                environment: Self.environment(["CHATCAP_TOKEN": "two s3cr3ts", "CHATCAP_LOGIN": "owl"]))
        }
        #expect(malformed == .malformedToken(source: "environment variable CHATCAP_TOKEN"))
        #expect(!"\(malformed!)".contains("s3cr3ts"))
        let noLogin = #expect(throws: CredentialsError.self) {
            try Credentials.resolve(environment: Self.environment(["CHATCAP_TOKEN": "s3cr3t"]))
        }
        #expect("\(noLogin!)".contains("CHATCAP_LOGIN") && !"\(noLogin!)".contains("s3cr3t"))
        #expect(throws: CredentialsError.invalidLogin("not a login")) {
            try Credentials.oauth(login: "not a login", token: "x")
        }
    }

    @Test("formatting Credentials never shows the token")
    func formattingRedacts() throws {
        let credentials = try Credentials.oauth(login: "owl", token: Self.token)
        var dumped = ""
        dump(credentials, to: &dumped)
        var dumpedMachine = ""
        dump(ConnectionMachine(channels: ["a"], credentials: credentials, seed: 1), to: &dumpedMachine)
        let renderings = [
            "\(credentials)", String(describing: credentials), String(reflecting: credentials),
            "\([credentials])", "\(Optional(credentials) as Any)", dumped, dumpedMachine,
            "\(ConnectionMachine(channels: ["a"], credentials: credentials, seed: 1))",
            "\(credentials.passMessage!)",
        ]
        for text in renderings {
            #expect(!text.contains("s3cr3t"), "token shown in: \(text)")
        }
        #expect(credentials.description == "oauth(login: owl, token: <redacted>)")
        #expect(dumped.contains("<redacted>"))
    }
}
