import ChatHTTP
import ChatStore
import Foundation
import Testing

@Suite struct HTTPRouterTests {
    static func request(_ path: String, method: String = "GET", query: [String: String?] = [:]) -> HTTPRequest {
        HTTPRequest(method: method, path: path) { query[$0] }
    }

    static func text(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    static var router: HTTPRouter {
        var router = HTTPRouter()
        router.get("/healthz") { _, rest in
            HTTPResponse(status: 200, contentType: "text/plain", body: Array("ok \(rest.isEmpty)".utf8))
        }
        router.get(prefix: "/api/") { _, rest in
            HTTPResponse(status: 200, contentType: "text/plain", body: Array(rest.utf8))
        }
        return router
    }

    @Test("routes exact paths and prefixes, handing the rest of the path on")
    func routes() {
        #expect(Self.text(Self.router.respond(to: Self.request("/healthz"))) == "ok true")
        #expect(Self.text(Self.router.respond(to: Self.request("/api/v2/x"))) == "v2/x")
    }

    @Test("an unknown path is a 404 in the service's error shape")
    func notFound() {
        for path in ["/", "/healthz/", "/metrics", "/ap"] {
            let response = Self.router.respond(to: Self.request(path))
            #expect(response.status == 404)
            #expect(response.contentType == "application/json")
            #expect(
                Self.text(response)
                    == #"{"status":404,"status_message":"Not Found","error":"Not Found","error_code":"not_found"}"#)
        }
    }

    @Test("another method than GET is a 405 with Allow: GET", arguments: ["POST", "HEAD", "PUT", "DELETE", "OPTIONS"])
    func methodNotAllowed(method: String) {
        let response = Self.router.respond(to: Self.request("/api/v2/x", method: method))
        #expect(response.status == 405)
        #expect(response.allow == "GET")
        #expect(
            Self.text(response)
                == #"{"status":405,"status_message":"Method Not Allowed","error":"Method Not Allowed","error_code":"method_not_allowed"}"#
        )
    }
}

@Suite struct RecentMessagesEndpointTests {
    static let store: ChatStore = {
        let store = ChatStore(capacity: 10, internsSenders: false)
        let bytes = Array("@id=a :u!u@u PRIVMSG #c :hi".utf8)
        _ = try? store.ingest(bytes.span, receivedAt: 77)
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
