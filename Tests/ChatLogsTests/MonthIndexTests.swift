import ChatGzip
import ChatHTTP
import ChatInput
import ChatLogStore
import ChatLogs
import ChatStore
import ChatTestSupport
import Foundation
import Synchronization
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

    @Test("a search and a range of whole months read the index of each whole month: the same answers")
    func searchAndRanges() throws {
        let fixture = try LogsFixture()
        let indexed = LogsServiceTests.service(fixture)
        let plain = LogsService(
            archive: LogArchive(root: fixture.root), usesIndex: false, now: { LogsServiceTests.later })
        let asks: [(String, [String: String?])] = [
            ("/channel/alpha/user/bob/search", ["q": "hello"]), ("/channel/alpha/user/carol/search", ["q": "e"]),
            ("/channel/alpha/userid/2003/search", ["q": "name", "reverse": ""]),
            ("/channel/alpha/user/bob", ["from": "2025-10-01T00:00:00Z", "to": "2025-12-01T00:00:00Z"]),
            ("/channel/alpha/user/carol", ["from": "2025-11-20T09:00:00Z", "to": "2025-11-21T00:00:00Z", "json": ""]),
        ]
        for (path, query) in asks {
            let answer = LogsServiceTests.get(indexed, path, query)
            #expect(answer.status == 200, "\(path) \(query)")
            #expect(
                LogsServiceTests.text(answer) == LogsServiceTests.text(LogsServiceTests.get(plain, path, query)),
                "\(path) \(query)")
        }
        // The searches built (and read) the index of every month of alpha with lines.
        #expect(try FileBytes.list(fixture.root + "/.chatcap-index/alpha").sorted() == ["2025-10", "2025-11"])
        #expect(try FileBytes.list(fixture.root + "/.chatcap-index").sorted() == ["alpha"])
    }

    @Test("indexAhead builds every channel's months once, again when a file grows, and stops when told")
    func indexAhead() throws {
        let fixture = try LogsFixture()
        let store = DirectoryStore(archive: LogArchive(root: fixture.root), now: { LogsServiceTests.later })
        #expect(store.indexAhead(while: { false }) == 0)
        #expect((try? FileBytes.list(fixture.root + "/.chatcap-index")) == nil, "told to stop: nothing built")
        let months = try LogArchive(root: fixture.root).channels().reduce(0) { count, channel in
            count + Set(LogArchive(root: fixture.root).files(of: channel).map(\.day.logMonth)).count
        }
        #expect(months >= 3)
        #expect(store.indexAhead(while: { true }) == months)
        #expect(store.indexAhead(while: { true }) == 0, "all current")
        let member = try GzipCompressor().compress(
            Array(
                (LogsFixture.stored(
                    "2025-11-21T11:00:00.000Z",
                    LogsFixture.privmsg(
                        "bob", id: 2001, room: 1001, channel: "alpha", sent: LogsFixture.nov21 + 3_600_000, text: "late"
                    ))
                    + "\r\n").utf8))
        let path = fixture.root + "/alpha/2025-11-21.log.gz"
        _ = try fixture.directory.write("alpha/2025-11-21.log.gz", try FileBytes.read(path) + member)
        #expect(store.indexAhead(while: { true }) == 1)
        // Without the index nothing is built.
        let plain = DirectoryStore(
            archive: LogArchive(root: fixture.root), usesIndex: false, now: { LogsServiceTests.later })
        _ = try InputShell.run("rm -rf " + InputShell.quote(fixture.root + "/.chatcap-index"))
        #expect(plain.indexAhead(while: { true }) == 0)
        #expect((try? FileBytes.list(fixture.root + "/.chatcap-index")) == nil)
    }

    @Test(
        "first requests of one month on many threads at once each answer the files' lines, and the index left behind answers them too"
    )
    func concurrentBuilds() throws {
        // A month big enough that building its index takes a while: 12 days of 2,000 lines, 40 users.
        let directory = try InputTempDirectory("logs-concurrent")
        let gzip = try GzipCompressor()
        for day in 0..<12 {
            let start = LogsFixture.nov21 - 20 * 86_400_000 + Int64(day) * 86_400_000
            var text = ""
            for i in 0..<2_000 {
                let sent = start + Int64(i) * 40_000
                let user = i % 40
                text +=
                    LogsFixture.stored(
                        Self.rfc3339(sent + 5),
                        LogsFixture.privmsg(
                            "user\(user)", id: 7000 + user, room: 1001, channel: "alpha", sent: sent,
                            text: "line \(i) of day \(day)")) + "\r\n"
            }
            let name = Self.rfc3339(start).prefix(10)
            _ = try directory.write("alpha/\(name).log.gz", gzip.compress(Array(text.utf8)))
        }
        let plain = LogsService(
            archive: LogArchive(root: directory.path), usesIndex: false, now: { LogsServiceTests.later })
        let users = (0..<8).map { "/channel/alpha/user/user\($0)/2025/11" }
        let expected = users.map { LogsServiceTests.text(LogsServiceTests.get(plain, $0)) }
        #expect(expected.allSatisfy { $0.utf8.count > 10_000 })
        for round in 0..<3 {
            _ = try InputShell.run("rm -rf " + InputShell.quote(directory.path + "/.chatcap-index"))
            let indexed = LogsService(archive: LogArchive(root: directory.path), now: { LogsServiceTests.later })
            let answers = Mutex<[Int: String]>([:])
            DispatchQueue.concurrentPerform(iterations: users.count) { i in
                let text = LogsServiceTests.text(LogsServiceTests.get(indexed, users[i]))
                answers.withLock { $0[i] = text }
            }
            for (i, path) in users.enumerated() {
                #expect(answers.withLock { $0[i] } == expected[i], "round \(round): \(path) while the index was built")
            }
            // What the index left behind answers the same (a fresh service: no state but the folder).
            let again = LogsService(archive: LogArchive(root: directory.path), now: { LogsServiceTests.later })
            for (i, path) in users.enumerated() {
                #expect(
                    LogsServiceTests.text(LogsServiceTests.get(again, path)) == expected[i],
                    "round \(round): \(path) from the index left behind")
            }
            let left = try FileBytes.list(directory.path + "/.chatcap-index/alpha")
            #expect(left == ["2025-11"], "round \(round): \(left)")
        }
    }

    static func rfc3339(_ ms: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000))
    }
}
