import ChatLive
import Testing
import TwitchSession

@Suite struct EndpointTests {
    @Test(
        "loopback names and addresses",
        arguments: [
            ("localhost", true), ("LOCALHOST", true), ("chat.localhost", true), ("127.0.0.1", true),
            ("127.1.2.3", true), ("::1", true), ("[::1]", true), ("irc.chat.twitch.tv", false),
            ("128.0.0.1", false), ("127.0.0", false), ("127.0.0.256", false), ("localhost.example", false),
        ])
    func loopback(host: String, expected: Bool) {
        #expect(Endpoint.isLoopback(host) == expected)
    }

    @Test("a token over plain TCP to another host gets a warning; TLS, loopback or anonymous do not")
    func cleartextTokenWarning() throws {
        let oauth = try Credentials.oauth(login: "tester", token: "oauth:abcdefabcdef", source: "test")
        let remote = Endpoint(host: "irc.chat.twitch.tv", tls: nil)
        let warning = try #require(remote.cleartextTokenWarning(for: oauth))
        #expect(warning.contains("unencrypted") && warning.contains("irc.chat.twitch.tv"))
        #expect(!warning.contains("abcdef"), "the warning never holds the token")
        #expect(remote.cleartextTokenWarning(for: .anonymous) == nil)
        #expect(Endpoint(host: "irc.chat.twitch.tv").cleartextTokenWarning(for: oauth) == nil)
        #expect(Endpoint(host: "127.0.0.1", tls: nil).cleartextTokenWarning(for: oauth) == nil)
    }
}
