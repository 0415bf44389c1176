import ChatLoad
import ChatTestSupport
import Foundation
import Testing

@Suite struct LoadProgressTests {
    @Test("saved progress reads back; the file is replaced whole, no temporary file left")
    func roundTrip() throws {
        let dir = try InputTempDirectory()
        let store = try LoadProgressStore(directory: dir.path, name: "h_8123_chat.lines", destination: "http://h:8123/")
        #expect(try store.load().isEmpty)
        let progress: [String: FileProgress] = [
            "chan/2026-11-21.log.gz": FileProgress(
                offset: 12_345, lines: 40, mark: LineMark(length: 300, crc: 0xDEAD_BEEF), completeSize: 0),
            "other/2026-11-21.log.gz": FileProgress(
                offset: 99, lines: 1, mark: LineMark(length: 97, crc: 7), completeSize: 1024),
        ]
        try store.save(progress)
        #expect(try store.load() == progress)
        try store.save(["chan/2026-11-22.log.gz": FileProgress(offset: 1, lines: 1, mark: LineMark(length: 0, crc: 0))])
        #expect(try store.load().keys.sorted() == ["chan/2026-11-22.log.gz"])
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path + "/_load").sorted()
        #expect(names == ["h_8123_chat.lines.lock", "h_8123_chat.lines.progress"])
        let text = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(text.hasPrefix("# chatcap load progress 1 http://h:8123/\n"))
    }

    @Test("a second store of the same destination is refused while the first holds the lock")
    func lock() throws {
        let dir = try InputTempDirectory()
        let first = try LoadProgressStore(directory: dir.path, name: "x", destination: "d")
        #expect(throws: LoadError.busy(path: dir.path + "/_load/x.lock")) {
            _ = try LoadProgressStore(directory: dir.path, name: "x", destination: "d")
        }
        _ = try LoadProgressStore(directory: dir.path, name: "y", destination: "d")
        withExtendedLifetime(first) {}
    }

    @Test("a damaged progress line is reported with its file and line number")
    func damaged() throws {
        let dir = try InputTempDirectory()
        try dir.write("_load/x.progress", Array("# header\nchan/a.log.gz\t1\t2\t3\tzz\t0\n".utf8))
        let store = try LoadProgressStore(directory: dir.path, name: "x", destination: "d")
        do {
            _ = try store.load()
            Issue.record("loaded a damaged progress file")
        } catch {
            #expect(error.description.hasPrefix(dir.path + "/_load/x.progress:2: not a progress line"))
        }
    }
}
