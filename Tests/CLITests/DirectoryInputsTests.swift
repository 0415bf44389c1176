import ChatTestSupport
import Foundation
import Testing

/// Issue 13 items 3 and 6 end to end: overlapping inputs are read once; a directory gives what
/// capture writes and `*.irc`, and says once what it skipped.
@Suite(.timeLimit(.minutes(20))) struct DirectoryInputsTests {
    static let line = "@id=x1;tmi-sent-ts=1763700000000 :ann!ann@a PRIVMSG #luna :hi\r\n"

    @Test("replay DIR DIR, DIR DIR/sub and FILE FILE: every line once, exit 0, the repeat said")
    func overlapping() throws {
        let dir = try InputTempDirectory()
        let file = try dir.write("cap/luna/2025-11-21.log", Array(Self.line.utf8))
        let cap = dir.path + "/cap"
        for arguments in [[cap, cap], [cap, cap + "/luna"], [file, file]] {
            let run = try CLI.run(["replay", "--format", "raw"] + arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            #expect(run.text == Self.line, "\(arguments)")
        }
        let twice = try CLI.run(["replay", file, file])
        #expect(twice.stderr.contains("read once, named again: \(file)"), "\(twice.stderr)")
    }

    @Test("a directory of system logs next to a capture: only the chat is read, the rest listed once")
    func skipsOtherFiles() throws {
        let dir = try InputTempDirectory()
        try dir.write("cap/luna/2025-11-21.log", Array(Self.line.utf8))
        try dir.write("cap/apt/history.log", Array("Start-Date: 2025-11-21  04:00:00\n".utf8))
        try dir.write("cap/notes.txt", Array("hello\n".utf8))
        let run = try CLI.run(["replay", "--format", "raw", dir.path + "/cap"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.text == Self.line)
        let notes = run.stderr.split(separator: "\n").filter { $0.contains("not chat logs") }
        #expect(notes.count == 1, "\(run.stderr)")
        #expect(notes.first?.contains("skipped 2 files") == true && notes.first?.contains("history.log") == true)
        // Named, such a file is read.
        let named = try CLI.run(["stats", dir.path + "/cap/apt/history.log"])
        #expect(named.stderr.contains("malformed") || named.text.contains("malformed"), "\(named.text)\(named.stderr)")
    }
}
