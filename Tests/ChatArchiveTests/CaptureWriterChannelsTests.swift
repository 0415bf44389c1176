import ChatArchive
import ChatTestSupport
import Foundation
import Testing

/// `CaptureWriter` following a channel list that changes at run time (a reloaded
/// `--channels-file`): channels admitted to lanes of their own, retired ones finished.
@Suite(.timeLimit(.minutes(20))) struct CaptureWriterChannelsTests {
    typealias W = CaptureWriterTests

    /// Whether `gzip -t` accepts the file: every member in it is finished.
    static func isFinished(_ path: String) throws -> Bool {
        try InputShell.run("gzip -t \(InputShell.quote(path))").status == 0
    }

    @Test(
        "a retired channel's file is finished at once and its later lines go to _session; an admitted one gets its file"
    )
    func retireAndAdmit() throws {
        let dir = try InputTempDirectory()
        var options = CaptureOptions()
        options.channels = ["#Stay", "gone"]
        let writer = try CaptureWriter(directory: dir.path, options: options)
        #expect(writer.followsChannelList)
        let t = W.at("2025-11-21T04:26:41.971Z")
        try W.append(writer, ":u!u@u PRIVMSG #stay :1", t)
        try W.append(writer, ":u!u@u PRIVMSG #gone :1", t)
        try W.append(writer, ":u!u@u PRIVMSG #new :before", t)
        #expect(writer.unjoinedLines == 1)

        writer.admit(channels: ["#New"])
        try writer.retire(channels: ["GONE"])
        #expect(writer.openFileCount == 2, "stay and _session; gone's file closed")
        try writer.flushAll()
        try writer.waitForWrites()
        #expect(try Self.isFinished(dir.path + "/gone/2025-11-21.log.gz"))
        #expect(!(try Self.isFinished(dir.path + "/stay/2025-11-21.log.gz")), "still open: its member is unfinished")

        // The last-lane shortcut must not keep a retired lane: gone's line follows gone's line.
        try W.append(writer, ":u!u@u PRIVMSG #gone :2", t)
        try W.append(writer, ":u!u@u PRIVMSG #Gone :3", t)
        try W.append(writer, ":u!u@u PRIVMSG #new :after", t)
        try W.append(writer, ":u!u@u PRIVMSG #stay :2", t)
        #expect(writer.unjoinedLines == 3)

        // Admitted again: its next line reopens its file with a new member.
        writer.admit(channels: ["gone"])
        try W.append(writer, ":u!u@u PRIVMSG #gone :4", t)
        try writer.close()

        let texts = { (channel: String) throws -> [String] in
            try W.zcat(dir.path + "/\(channel)/2025-11-21.log.gz").split(separator: "\r\n")
                .map { String($0.split(separator: " :").last ?? "") }
        }
        #expect(try texts("stay") == ["1", "2"])
        #expect(try texts("gone") == ["1", "4"])
        #expect(try texts("new") == ["after"])
        let session = try W.zcat(dir.path + "/_session/2025-11-21.log.gz")
        #expect(session.contains("PRIVMSG #new :before"))
        #expect(session.contains("PRIVMSG #gone :2") && session.contains("PRIVMSG #Gone :3"))
        #expect(!session.contains("PRIVMSG #gone :4"))
    }

    @Test("a channel retired before any line of it came never gets a file")
    func retiredBeforeFirstLine() throws {
        let dir = try InputTempDirectory()
        var options = CaptureOptions()
        options.channels = ["a", "b"]
        let writer = try CaptureWriter(directory: dir.path, options: options)
        let t = W.at("2025-11-21T04:26:41.971Z")
        try writer.retire(channels: ["b"])
        try W.append(writer, ":u!u@u PRIVMSG #b :late", t)
        try W.append(writer, ":u!u@u PRIVMSG #a :hi", t)
        try writer.close()
        #expect(W.files(dir.path) == ["_session/2025-11-21.log.gz", "a/2025-11-21.log.gz"])
        #expect(writer.unjoinedLines == 1)
    }
}
