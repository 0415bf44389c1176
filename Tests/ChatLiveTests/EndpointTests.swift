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

    @Test("defaults per transport: Twitch's TCP ports, and wss://irc-ws.chat.twitch.tv:443/ for WebSocket")
    func transportDefaults() {
        #expect(Endpoint().description == "irc.chat.twitch.tv:6697")
        #expect(Endpoint(tls: nil).description == "irc.chat.twitch.tv:6667")
        let ws = Endpoint(transport: .websocket)
        #expect(ws.description == "wss://irc-ws.chat.twitch.tv:443/")
        #expect(ws.host == "irc-ws.chat.twitch.tv" && ws.port == 443 && ws.path == "/")
        let local = Endpoint(host: "127.0.0.1", port: 8080, tls: nil, transport: .websocket)
        #expect(local.description == "ws://127.0.0.1:8080/")
    }
}
