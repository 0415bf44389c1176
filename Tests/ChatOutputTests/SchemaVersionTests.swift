import ChatFormat
import ChatTestSupport
import Foundation
import Testing

/// The typed JSON's schema names the version the encoder writes.
@Suite struct SchemaVersionTests {
    @Test("docs/ndjson.schema.json has the version TypedJSONEncoder.schemaVersion names")
    func versionsAgree() throws {
        let data = try #require(FileManager.default.contents(atPath: Fixtures.root + "/docs/ndjson.schema.json"))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(schema["version"] as? Int == TypedJSONEncoder.schemaVersion)
        #expect(TypedJSONEncoder.schemaVersion == 3)
    }
}
