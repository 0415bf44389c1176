import ChatHTTP
import ChatLogStore
import ChatLogs
import Foundation
import Testing

/// `/openapi.json` against the server: the document is OpenAPI 3 (the fields the specification
/// requires, every `$ref` resolved, every path parameter declared), names every route the router
/// answers and no other, and each documented path, asked of the router over ``LogsFixture``, answers
/// one of its documented status codes with a documented content type.
@Suite struct LogsAPITests {
    /// The document, parsed by Foundation (an independent JSON reader).
    static func document() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(LogsAPI.document))
        return try #require(object as? [String: Any])
    }

    /// `template` with each `{name}` replaced by a value the fixture has.
    static func sample(_ template: String, _ answer: LogsAPI.Answer) -> String {
        let values = [
            "channel": "alpha", "channelId": "1001", "user": "bob", "year": "2025", "month": "11", "day": "20",
            "userId": answer == .route(.nameHistory) ? "2003" : "2001",
        ]
        var path = template
        for (name, value) in values { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
        return path
    }

    /// The object a `$ref` names (`#/components/…`), or `object` itself when it is no reference.
    static func resolve(_ object: Any, in document: [String: Any]) throws -> [String: Any] {
        let dictionary = try #require(object as? [String: Any])
        guard let ref = dictionary["$ref"] as? String else { return dictionary }
        #expect(ref.hasPrefix("#/"))
        var node: Any = document
        for part in ref.dropFirst(2).split(separator: "/") {
            node = try #require((node as? [String: Any])?[String(part)], "\(ref) resolves")
        }
        return try #require(node as? [String: Any])
    }

    @Test("the document is OpenAPI 3: required fields, unique operation ids, declared path parameters")
    func openAPIShape() throws {
        let document = try Self.document()
        #expect((document["openapi"] as? String)?.hasPrefix("3.0.") == true)
        let info = try #require(document["info"] as? [String: Any])
        #expect((info["title"] as? String)?.isEmpty == false)
        #expect((info["version"] as? String)?.isEmpty == false)
        let paths = try #require(document["paths"] as? [String: Any])
        #expect(paths.count == LogsAPI.operations.count)
        var ids = Set<String>()
        for (path, item) in paths {
            #expect(path.hasPrefix("/"))
            let get = try #require((item as? [String: Any])?["get"] as? [String: Any], "\(path) has GET")
            let id = try #require(get["operationId"] as? String)
            #expect(ids.insert(id).inserted, "operationId \(id) is unique")
            let responses = try #require(get["responses"] as? [String: Any])
            #expect(!responses.isEmpty)
            for (status, response) in responses {
                #expect(Int(status) != nil)
                #expect(try Self.resolve(response, in: document)["description"] is String)
            }
            let parameters = try (get["parameters"] as? [Any] ?? []).map { try Self.resolve($0, in: document) }
            for parameter in parameters {
                #expect(["path", "query"].contains(parameter["in"] as? String))
                #expect(parameter["schema"] is [String: Any])
            }
            let declared = Set(parameters.filter { $0["in"] as? String == "path" }.compactMap { $0["name"] as? String })
            let templated = Set(
                path.split(separator: "/").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) })
            #expect(declared == templated, "\(path) declares its path parameters")
            for parameter in parameters where parameter["in"] as? String == "path" {
                #expect(parameter["required"] as? Bool == true)
            }
        }
    }

    @Test("every $ref of the document resolves")
    func references() throws {
        let document = try Self.document()
        var refs: [String] = []
        func walk(_ node: Any) {
            if let dictionary = node as? [String: Any] {
                if let ref = dictionary["$ref"] as? String { refs.append(ref) }
                dictionary.values.forEach(walk)
            } else if let array = node as? [Any] {
                array.forEach(walk)
            }
        }
        walk(document)
        #expect(refs.count > 50)
        for ref in refs { _ = try Self.resolve(["$ref": ref], in: document) }
    }

    @Test("every route kind is documented, and each documented path is that route")
    func kinds() throws {
        var documented = Set<LogsRoute.Kind>()
        for operation in LogsAPI.operations {
            guard case .route(let kind) = operation.answer else { continue }
            documented.insert(kind)
            let path = Self.sample(operation.path, operation.answer)
            let query: [String: String?] = ["channel": "alpha"]
            #expect(try LogsRoute(path: path) { query[$0] }.kind == kind, "\(path)")
        }
        #expect(documented == Set(LogsRoute.Kind.allCases))
    }

    @Test("the router answers the document's paths and no other")
    func routerMatchesDocument() throws {
        let fixture = try LogsFixture()
        var router = HTTPRouter()
        LogsServiceTests.service(fixture).install(into: &router)
        let documented = LogsAPI.operations.map(\.path)
        for (path, isPrefix) in router.paths {
            if isPrefix {
                #expect(documented.contains { $0.hasPrefix(path) && $0.count > path.count }, "\(path)")
            } else {
                #expect(documented.contains(path), "\(path)")
            }
        }
        // No route outside the document: the router's own 404 (JSON), not the API's text.
        for path in ["/nothing", "/openapi", "/channelx/alpha", "/admin/channels"] {
            let answer = router.respond(to: HTTPRequest(method: "GET", path: path, query: { _ in nil }))
            #expect(answer.status == 404 && answer.contentType == "application/json", "\(path)")
        }
    }

    @Test("each documented path answers a documented status and content type")
    func answersAsDocumented() throws {
        let fixture = try LogsFixture()
        var router = HTTPRouter()
        LogsServiceTests.service(fixture).install(into: &router)
        let document = try Self.document()
        let paths = try #require(document["paths"] as? [String: Any])
        var seen = Set<Int>()
        for operation in LogsAPI.operations {
            let get = try #require((paths[operation.path] as? [String: Any])?["get"] as? [String: Any])
            let responses = try #require(get["responses"] as? [String: Any])
            let path = Self.sample(operation.path, operation.answer)
            let queries: [[String: String?]] = [
                ["channel": "alpha", "q": "hello"], ["channel": "alpha", "q": "hello", "json": ""],
                ["channel": "alpha", "user": "nobody"], ["channel": "alpha", "q": "hello", "limit": "x"],
                ["q": "hello", "from": "2025-11-20T00:00:00Z", "to": "2025-11-21T00:00:00Z", "ndjson": ""],
            ]
            for query in queries {
                let answer = router.respond(to: HTTPRequest(method: "GET", path: path, query: { query[$0] }))
                seen.insert(answer.status)
                let response = try #require(
                    responses[String(answer.status)], "\(path) \(query): \(answer.status) is documented")
                let content = try Self.resolve(response, in: document)["content"] as? [String: Any]
                let type = String(answer.contentType.prefix { $0 != ";" })
                if answer.status == 303 {
                    #expect(answer.headers.contains { $0.name == "Location" })
                } else {
                    #expect(content?[type] != nil, "\(path) \(query): \(answer.status) \(type) is documented")
                }
                #expect(answer.allowsAnyOrigin)
                #expect(answer.headers.contains { $0.name == "x-rustlog-capabilities" })
            }
        }
        #expect(seen.isSuperset(of: [200, 303, 400, 404]))
    }

    @Test("GET /openapi.json: the document, as JSON")
    func served() throws {
        let fixture = try LogsFixture()
        var router = HTTPRouter()
        LogsServiceTests.service(fixture).install(into: &router)
        let answer = router.respond(to: HTTPRequest(method: "GET", path: "/openapi.json", query: { _ in nil }))
        #expect(answer.status == 200)
        #expect(answer.contentType == "application/json")
        #expect(answer.collectedBody() == LogsAPI.document)
    }
}
