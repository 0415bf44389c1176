import ChatHTTP
import ChatStore
import Testing

@Suite struct RecentMessagesEndpointTests {
    static let store: ChatStore = {
        let store = ChatStore(capacity: 10, internsSenders: false)
        let bytes = Array("@id=a :u!u@u PRIVMSG #c :hi".utf8)
        _ = try? store.ingest(bytes.span, receivedAt: Timestamp(milliseconds: 77))
        return store
    }()

    static func respond(_ login: String, _ query: [String: String?] = [:], joined: Bool = true) -> HTTPResponse {
        let endpoint = RecentMessagesEndpoint(store: store, bound: 500) { _ in joined }
        return endpoint.respond(
            to: HTTPRouterTests.request("/api/v2/recent-messages/" + login, query: query), login: Substring(login))
    }

    @Test("answers a login's lines as JSON")
    func lines() {
        let response = Self.respond("c")
        #expect(response.status == 200)
        #expect(
            HTTPRouterTests.text(response)
                == #"{"messages":["@rm-received-ts=77;historical=1;id=a :u!u@u PRIVMSG #c :hi"],"error":null,"error_code":null}"#
        )
    }

    @Test(
        "an invalid login is a 400 invalid_channel_login",
        arguments: ["C", "a-b", "x y", String(repeating: "a", count: 26), "é"])
    func invalidLogin(login: String) {
        let response = Self.respond(login)
        #expect(response.status == 400)
        #expect(HTTPRouterTests.text(response).hasSuffix(#""error_code":"invalid_channel_login"}"#))
    }

    @Test("an invalid option is a 400 invalid_query, checked before the login")
    func invalidQuery() {
        for login in ["c", "BAD"] {
            let response = Self.respond(login, ["limit": "x"])
            #expect(response.status == 400)
            #expect(
                HTTPRouterTests.text(response)
                    == #"{"status":400,"status_message":"Bad Request","error":"Invalid or missing query parameters","error_code":"invalid_query"}"#
            )
        }
    }

    @Test("no login, or a path below it, is a 404")
    func notFound() {
        #expect(Self.respond("").status == 404)
        #expect(Self.respond("c/x").status == 404)
    }
}
