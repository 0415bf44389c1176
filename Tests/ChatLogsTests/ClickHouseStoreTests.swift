import ChatHTTP
import ChatStore
import ChatTestSupport
import Testing

@testable import ChatLogStore
@testable import ChatLogs

/// The ClickHouse store without a server: what it answers when nothing listens.
@Suite struct ClickHouseStoreTests {
    @Test("a ClickHouse that cannot be reached is storeUnavailable (503) naming the URL, never a crash")
    func unreachable() throws {
        let port = try SocketLoopbackListener.freePort()
        let url = "http://127.0.0.1:\(port)/"
        let store = ClickHouseStore(
            endpoint: .init(
                url: url, user: "default", password: "secret", redacted: "http://default:***@127.0.0.1:\(port)/"),
            table: "chat.lines")
        let service = LogsService(store: store, now: { LogsServiceTests.later })
        for path in ["/channels", "/channel/alpha/2025/11/20", "/namehistory/1", "/list"] {
            let answer = LogsServiceTests.get(service, path, path == "/list" ? ["channel": "alpha"] : [:])
            #expect(answer.status == 503, "\(path)")
            let text = LogsServiceTests.text(answer)
            #expect(
                text.hasPrefix("Store unavailable: ClickHouse at http://default:***@127.0.0.1:\(port)/: "), "\(text)")
            #expect(!text.contains("secret"))
        }
        #expect(throws: LogsError.self) { try store.check() }
    }
}
