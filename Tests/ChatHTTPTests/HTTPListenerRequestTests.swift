import ChatHTTP
import ChatTestSupport
import Foundation
import Testing

/// What the listener hands its routes and sends back, over a real loopback connection (curl).
@Suite struct HTTPListenerRequestTests {
    /// A listener whose `/metrics` answers plainly and whose `/api/x/` echoes the rest of the path,
    /// readable by any origin.
    static func listener() throws -> HTTPListener {
        var router = HTTPRouter()
        router.get("/metrics") { _, _ in HTTPResponse(status: 200, contentType: "text/plain", body: Array("m\n".utf8)) }
        router.get(prefix: "/api/x/") { _, rest in
            var response = HTTPResponse(status: 200, contentType: "text/plain", body: Array(rest.utf8))
            response.allowsAnyOrigin = true
            return response
        }
        return try HTTPListener(host: "127.0.0.1", port: 0, router: router)
    }

    /// `curl -si URL`: the status line and headers, then the body.
    static func get(_ url: String) throws -> (headers: String, body: String) {
        let r = try InputShell.run("curl -si --path-as-is \(InputShell.quote(url))")
        let text = String(decoding: r.output, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        return (parts.first ?? "", parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test("only the routes that ask for it are readable by any origin: never /metrics (issue #35 R7)")
    func corsOnlyWhereAsked() throws {
        let listener = try Self.listener()
        defer { listener.stop() }
        let metrics = try Self.get(listener.url + "/metrics")
        #expect(metrics.body == "m\n")
        #expect(!metrics.headers.lowercased().contains("access-control-allow-origin"), "\(metrics.headers)")
        let api = try Self.get(listener.url + "/api/x/pixelharbor")
        #expect(api.body == "pixelharbor")
        #expect(api.headers.contains("Access-Control-Allow-Origin: *"), "\(api.headers)")
        // A 404 of the router's own is not either.
        let missing = try Self.get(listener.url + "/nothing")
        #expect(missing.headers.hasPrefix("HTTP/1.1 404"))
        #expect(!missing.headers.lowercased().contains("access-control-allow-origin"), "\(missing.headers)")
    }

    @Test("a %00 in the path stays as written: it no longer cuts the path short (issue #35 R4)")
    func encodedNulIsKept() throws {
        let listener = try Self.listener()
        defer { listener.stop() }
        #expect(try Self.get(listener.url + "/api/x/pixelharbor%00/../x").body == "pixelharbor%00/../x")
        // Every other escape is decoded as before.
        #expect(try Self.get(listener.url + "/api/x/a%41%2Fb%20c").body == "aA/b c")
        #expect(try Self.get(listener.url + "/api/x/%zz%4").body == "%zz%4")
    }
}
