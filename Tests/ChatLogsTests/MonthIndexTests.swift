import ChatGzip
import ChatInput
import ChatLogStore
import ChatLogs
import ChatStore
import ChatTestSupport
import Testing

/// The month index: a user's month read from their part of it, the same answer as from the files,
/// rebuilt when a file changes, never used half-built, passed by the archive's other readers.
@Suite struct MonthIndexTests {
    static let months = [
        "/channel/alpha/user/bob/2025/11", "/channel/alpha/user/carol/2025/11", "/channel/alpha/userid/2003/2025/11",
        "/channel/alpha/user/dave_new/2025/10", "/channel/beta/user/carol/2025/11",
    ]

    @Test("answers with the index equal answers without it; the index is built once, hidden, with a manifest")
    func sameAnswers() throws {
        let fixture = try LogsFixture()
        let indexed = LogsServiceTests.service(fixture)
        let plain = LogsService(
            archive: LogArchive(root: fixture.root), usesIndex: false, now: { LogsServiceTests.later })
        for path in Self.months {
            for query: [String: String?] in [[:], ["json": ""], ["reverse": "", "limit": "1"]] {
                #expect(
                    LogsServiceTests.text(LogsServiceTests.get(indexed, path, query))
                        == LogsServiceTests.text(LogsServiceTests.get(plain, path, query)), "\(path) \(query)")
            }
        }
        let folder = fixture.root + "/.chatcap-index/alpha/2025-11"
        let names = try FileBytes.list(folder)
        #expect(names.contains("manifest"))
        #expect(names.filter { $0.hasSuffix(".log.gz") }.count == 64)
        #expect(
            String(decoding: try FileBytes.read(folder + "/manifest"), as: UTF8.self)
                .hasPrefix("2025-11-20.log.gz "))
        // Passed by the others: not a channel, not an input of replay's directory search.
        #expect(try LogArchive(root: fixture.root).channels() == ["alpha", "beta"])
        #expect(try InputPaths.expansion(of: [fixture.root]).paths.allSatisfy { !$0.contains(".chatcap-index") })
        #expect(try InputPaths.expansion(of: [fixture.root]).skipped.allSatisfy { !$0.contains(".chatcap-index") })
    }

    @Test("a file that grew makes the index stale: the next answer rebuilds it and holds the new line")
    func stale() throws {
        let fixture = try LogsFixture()
        let service = LogsServiceTests.service(fixture)
        let before = LogsServiceTests.text(LogsServiceTests.get(service, "/channel/alpha/user/bob/2025/11"))
        let manifest = fixture.root + "/.chatcap-index/alpha/2025-11/manifest"
        let oldManifest = try FileBytes.read(manifest)
        // capture appends a new gzip member to the day's file after a restart.
        let line = LogsFixture.stored(
            "2025-11-21T11:00:00.000Z",
            LogsFixture.privmsg(
                "bob", id: 2001, room: 1001, channel: "alpha", sent: LogsFixture.nov21 + 3_600_000, text: "late"))
        let member = try GzipCompressor().compress(Array((line + "\r\n").utf8))
        let path = fixture.root + "/alpha/2025-11-21.log.gz"
        _ = try fixture.directory.write("alpha/2025-11-21.log.gz", try FileBytes.read(path) + member)
        let after = LogsServiceTests.text(LogsServiceTests.get(service, "/channel/alpha/user/bob/2025/11"))
        #expect(after == before + "[2025-11-21 11:00:00] #alpha bob: late\r\n")
        #expect(try FileBytes.read(manifest) != oldManifest)
    }

    @Test("today's file is read as it is, beside the index of the days before")
    func today() throws {
        let fixture = try LogsFixture()
        // It is 2025-11-21 12:00: the 20th is indexed, the 21st read from its file.
        let service = LogsService(
            archive: LogArchive(root: fixture.root),
            now: { Timestamp(milliseconds: LogsFixture.nov21 + 2 * 3_600_000) })
        #expect(
            LogsServiceTests.text(LogsServiceTests.get(service, "/channel/alpha/user/carol/2025/11"))
                == "[2025-11-20 10:00:01] #alpha carol: waves\r\n"
                + "[2025-11-20 10:00:06] #alpha carol: Carol subscribed for 3 months! still here\r\n"
                + "[2025-11-21 10:00:01] #alpha carol: carol has been banned\r\n")
        let manifest = String(
            decoding: try FileBytes.read(fixture.root + "/.chatcap-index/alpha/2025-11/manifest"), as: UTF8.self)
        #expect(manifest.hasPrefix("2025-11-20.log.gz ") && !manifest.contains("2025-11-21"))
    }

    @Test("an archive where the index cannot be written is read from its files")
    func unwritable() throws {
        let fixture = try LogsFixture()
        _ = try fixture.directory.write(".chatcap-index", Array("not a folder".utf8))
        let service = LogsServiceTests.service(fixture)
        #expect(
            LogsServiceTests.text(LogsServiceTests.get(service, "/channel/alpha/user/bob/2025/11"))
                == "[2025-11-20 10:00:00] #alpha bob: hello\r\n"
                + "[2025-11-20 10:00:04] #alpha bob: bob has been timed out for 600 seconds\r\n")
    }
}
