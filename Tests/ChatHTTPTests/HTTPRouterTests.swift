import ChatHTTP
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

    @Test("with answersHead, HEAD is answered as GET and the 405 allows both")
    func head() {
        var router = Self.router
        router.answersHead = true
        #expect(Self.text(router.respond(to: Self.request("/api/v2/x", method: "HEAD"))) == "v2/x")
        let post = router.respond(to: Self.request("/api/v2/x", method: "POST"))
        #expect(post.status == 405)
        #expect(post.allow == "GET, HEAD")
    }
}
