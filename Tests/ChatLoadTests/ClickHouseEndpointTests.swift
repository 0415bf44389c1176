import ChatLoad
import Testing

@Suite struct ClickHouseEndpointTests {
    @Test("user and password leave the URL; messages show the password as ***")
    func credentials() throws {
        let e = try ClickHouseEndpoint(parsing: "http://loader:s%40cret@db1:8124/?async_insert=1")
        #expect(e.url == "http://db1:8124/?async_insert=1")
        #expect(e.user == "loader")
        #expect(e.password == "s@cret")
        #expect(e.redacted == "http://loader:***@db1:8124/?async_insert=1")
        #expect(!e.redacted.contains("cret"))
        #expect(
            e.insertURL(table: "chat.lines")
                == "http://db1:8124/?async_insert=1&query=INSERT%20INTO%20chat.lines%20FORMAT%20JSONEachRow")
    }

    @Test("defaults: port 8123 (http) or 8443 (https), path /, the password from the environment")
    func defaults() throws {
        let plain = try ClickHouseEndpoint(parsing: "http://127.0.0.1")
        #expect(plain.url == "http://127.0.0.1:8123/")
        #expect(plain.user == nil && plain.password == nil)
        #expect(plain.insertURL(table: "t") == "http://127.0.0.1:8123/?query=INSERT%20INTO%20t%20FORMAT%20JSONEachRow")
        let tls = try ClickHouseEndpoint(parsing: "https://u@[::1]", environmentPassword: "pw")
        #expect(tls.url == "https://[::1]:8443/")
        #expect(tls.password == "pw")
        #expect(tls.redacted == "https://u:***@[::1]:8443/")
        let alone = try ClickHouseEndpoint(parsing: "http://h/", environmentPassword: "pw")
        #expect(alone.user == "default")
        let query = try ClickHouseEndpoint(parsing: "http://h:1/?user=a&password=secret&x=1")
        #expect(query.redacted == "http://h:1/?user=a&password=***&x=1")
    }

    @Test("bad URLs are refused without echoing the password")
    func bad() {
        for text in [
            "ftp://h", "h:8123", "http://", "http://h:0", "http://h:99999", "http://h:x", "http://u:p%zz@h",
            "http://h/#frag",
        ] {
            #expect(throws: LoadError.self) { try ClickHouseEndpoint(parsing: text) }
        }
        let error = #expect(throws: LoadError.self) { try ClickHouseEndpoint(parsing: "http://u:topsecret@h:bad") }
        #expect(error?.description == "--clickhouse: the port must be 1 to 65535")
    }

    @Test("table names: table or database.table of letters, digits and _")
    func tables() {
        #expect(ClickHouseEndpoint.isPlainTableName("chat.lines"))
        #expect(ClickHouseEndpoint.isPlainTableName("_t1"))
        for bad in ["", ".", "a.", "1a", "a.b.c", "a b", "a;drop", "a-b", "`a`"] {
            #expect(!ClickHouseEndpoint.isPlainTableName(bad), "\(bad)")
        }
    }

    @Test("errors: unreachable and busy are temporary; credentials, unknown tables and bad rows are not")
    func classification() {
        #expect(LoadError.unreachable(url: "u", reason: "refused").isTemporary)
        #expect(LoadError.rejected(url: "u", httpStatus: 500, code: 252, message: "too many parts").isTemporary)
        #expect(LoadError.rejected(url: "u", httpStatus: 503, code: nil, message: "").isTemporary)
        #expect(!LoadError.rejected(url: "u", httpStatus: 404, code: nil, message: "").isTemporary)
        #expect(!LoadError.rejected(url: "u", httpStatus: 500, code: 60, message: "no table").isTemporary)
        #expect(!LoadError.rejected(url: "u", httpStatus: 500, code: 117, message: "bad row").isTemporary)
        let auth = LoadError.rejected(url: "u", httpStatus: 500, code: 193, message: "wrong password")
        #expect(!auth.isTemporary && auth.isAuthentication)
    }
}
