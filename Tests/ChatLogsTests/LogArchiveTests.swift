import ChatLogStore
import ChatLogs
import ChatTestSupport
import Testing

@Suite struct LogArchiveTests {
    @Test("channels are the login folders; files are capture's, by day; _session and other files are not")
    func layout() throws {
        let fixture = try LogsFixture()
        let archive = LogArchive(root: fixture.root + "/")
        #expect(try archive.channels() == ["alpha", "beta"])
        #expect(archive.hasChannel("alpha"))
        #expect(!archive.hasChannel("_session"))
        #expect(!archive.hasChannel("gamma"))
        #expect(
            archive.files(of: "alpha").map { $0.path.split(separator: "/").last! } == [
                "2025-10-31.log.gz", "2025-11-20.log.gz", "2025-11-21.log.gz",
            ])
        #expect(archive.days(of: "beta").map(\.description) == ["2025/11/21"])
        #expect(archive.files(of: "gamma").isEmpty)
    }

    @Test("a malformed line is counted and skipped; the lines around it are served")
    func malformed() throws {
        let fixture = try LogsFixture()
        var reader = ArchiveReader()
        var served = 0
        reader.read([fixture.root + "/alpha/2025-11-20.log.gz"]) { _, _ in
            served += 1
            return true
        }
        #expect(served == 5)
        #expect(reader.counts.malformed == 1)
        #expect(reader.counts.lines == LogsFixture.alphaNov20.count - 1)
        #expect(reader.counts.failedFiles == 0)
    }

    @Test("a damaged file is counted; what it held before the damage is served")
    func damaged() throws {
        let fixture = try LogsFixture()
        let path = fixture.root + "/alpha/2025-11-21.log.gz"
        var bytes = try FileBytes.read(path)
        bytes.removeLast(12)
        _ = try fixture.directory.write("alpha/2025-11-21.log.gz", bytes)
        var reader = ArchiveReader()
        reader.read([path]) { _, _ in true }
        #expect(reader.counts.failedFiles == 1)
    }
}
