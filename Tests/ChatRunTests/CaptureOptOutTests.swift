import ChatLogStore
import ChatRun
import ChatTestSupport
import Foundation
import IRCWire
import Testing

/// capture's `--opt-out`: lines withheld and counted; a reload puts the file's list in force, a bad
/// file keeps the list in force.
@Suite struct CaptureOptOutTests {
    static func withholds(_ optOut: CaptureOptOut, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return optOut.withholds(bytes.span, try! TwitchMessage.parse(bytes.span))
    }

    static let alice = "@room-id=1;user-id=7 :alice!alice@alice.tmi.twitch.tv PRIVMSG #main :hi"
    static let bob = "@room-id=1;user-id=8 :bob!bob@bob.tmi.twitch.tv PRIVMSG #main :hi"

    @Test("an empty list withholds nothing; a listed user's lines are withheld and counted; a reload changes it")
    func withholdAndReload() throws {
        let temp = try InputTempDirectory()
        let path = temp.path + "/optout.txt"
        try "alice\n".write(toFile: path, atomically: true, encoding: .utf8)
        let empty = CaptureOptOut(path: path, list: OptOutList())
        #expect(!Self.withholds(empty, Self.alice) && empty.withheldLines == 0)

        let optOut = CaptureOptOut(path: path, list: try OptOutList(parsing: "alice"))
        #expect(Self.withholds(optOut, Self.alice))
        #expect(!Self.withholds(optOut, Self.bob))
        #expect(optOut.withheldLines == 1)

        try "# now bob, by id\n8\n".write(toFile: path, atomically: true, encoding: .utf8)
        let (text, list) = optOut.reload()
        #expect(text == "opt-out reloaded: 0 logins, 1 ids")
        #expect(list == (try OptOutList(parsing: "8")))
        #expect(!Self.withholds(optOut, Self.alice) && Self.withholds(optOut, Self.bob))
        #expect(optOut.withheldLines == 2)

        try "8\n-bad-\n".write(toFile: path, atomically: true, encoding: .utf8)
        let (failed, kept) = optOut.reload()
        #expect(kept == nil)
        #expect(failed.hasPrefix("--opt-out \(path): line 2") && failed.hasSuffix("; the opt-out list in force stays"))
        #expect(Self.withholds(optOut, Self.bob), "the list in force stays")
    }
}
