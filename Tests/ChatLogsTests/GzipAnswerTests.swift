import ChatGzip
import ChatHTTP
import ChatInput
import ChatLogStore
import ChatLogs
import ChatTestSupport
import Testing

/// `Content-Encoding: gzip` for clients that accept it, as rustlog's `CompressionLayer` sends it.
@Suite struct GzipAnswerTests {
    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        var source = try GzipSource(wrapping: InputArraySource(bytes, name: "answer.gz"))
        let (plain, error) = drainSource(&source)
        #expect(error == nil)
        return plain
    }

    @Test(
        "Accept-Encoding: gzip, x-gzip or * without q=0",
        arguments: [
            ("gzip", true), ("gzip, deflate, br", true), ("br;q=1.0, gzip;q=0.8", true), ("*", true), ("x-gzip", true),
            ("GZIP", true), ("identity", false), ("gzip;q=0", false), ("gzip; q=0.000", false), ("br", false),
            ("", false), ("gzipped", false),
        ])
    func accepts(header: String, expected: Bool) {
        #expect(GzipAnswer.accepts(header) == expected)
    }

    @Test("a body and a stream, compressed, decompress to the plain answer; errors and redirects stay plain")
    func compressed() throws {
        let fixture = try LogsFixture()
        let service = LogsServiceTests.service(fixture)
        for query: [String: String?] in [[:], ["json": ""], ["reverse": ""], ["ndjson": "", "limit": "2"]] {
            let plain = LogsServiceTests.get(service, "/channel/alpha/2025/11/20", query).collectedBody()
            let zipped = GzipAnswer.compressed(LogsServiceTests.get(service, "/channel/alpha/2025/11/20", query))
            #expect(zipped.headers.contains(HTTPHeader("Content-Encoding", "gzip")))
            #expect(try Self.gunzip(zipped.collectedBody()) == plain, "\(query)")
        }
        for path in ["/channel/alpha", "/channel/gamma/2025/11/20"] {
            let answer = GzipAnswer.compressed(LogsServiceTests.get(service, path))
            #expect(!answer.headers.contains(HTTPHeader("Content-Encoding", "gzip")), "\(path)")
        }
    }

    @Test("a large streamed answer, in small blocks, decompresses whole")
    func large() throws {
        let lines = (0..<20_000).map { i in
            LogsFixture.stored(
                "2025-11-20T10:00:00.000Z",
                LogsFixture.privmsg(
                    "bob", id: 2001, room: 1001, channel: "alpha", sent: LogsFixture.nov20 + Int64(i), text: "line \(i)"
                ))
        }
        let dir = try InputTempDirectory("logs-gzip-large")
        _ = try dir.write(
            "alpha/2025-11-20.log.gz", GzipCompressor().compress(Array(lines.map { $0 + "\r\n" }.joined().utf8)))
        let service = LogsService(archive: LogArchive(root: dir.path), now: { LogsServiceTests.later })
        let plain = LogsServiceTests.get(service, "/channel/alpha/2025/11/20").collectedBody()
        #expect(plain.count > 500_000)
        let stream = try #require(
            GzipAnswer.compressed(LogsServiceTests.get(service, "/channel/alpha/2025/11/20")).stream)
        let zipped = stream.drain(block: 1000)
        #expect(zipped.count < plain.count / 4)
        #expect(try Self.gunzip(zipped) == plain)
    }
}
