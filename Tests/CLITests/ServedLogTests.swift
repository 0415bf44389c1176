import ChatTestSupport
import Foundation
import Testing

/// ``ServedLog/messageKeys(_:)``, the byte-level shortcut CrashLoadCLITests and ClickHouseLoadTests take,
/// against the whole parse it stands for (``ServedLog/init(text:)``): the same keys in the same order.
@Suite struct ServedLogTests {
    static func keys(_ text: String) -> [String] {
        ServedLog(text: text).messages.map { "\($0.channel) \($0.tags["id"]!)" }
    }

    @Test("messageKeys gives the keys of the whole parse: a generated log and lines at the edges")
    func sameKeys() throws {
        let dir = try CLITempDirectory.make("served-log")
        defer { CLITempDirectory.remove(dir) }
        let log = dir + "/feed.irc"
        let generate = try InputShell.run(
            "python3 Scripts/generate_fixtures.py --lines 3000 --channels 6 --out \(InputShell.quote(log)) 2>&1")
        try #require(generate.status == 0, "\(String(decoding: generate.output, as: UTF8.self))")
        let generated = try String(contentsOfFile: log, encoding: .utf8)
        let expected = Self.keys(generated)
        #expect(expected.count > 1_000, "\(expected.count) messages in the generated log")
        #expect(ServedLog.messageKeys(Array(generated.utf8)) == expected)

        let edges = [
            "@id=a1;x=1 :u!u@u PRIVMSG #one :hi",  // a message
            "@x=1;id=a2 PRIVMSG #two :no prefix",  // no prefix, id last
            "@id=;x=1 :u PRIVMSG #one :empty id",  // left out
            "@ids=a3;xid=a4 :u PRIVMSG #one :other keys",  // left out
            "@id :u PRIVMSG #one :a key without a value",  // left out
            "@id=a5;id= :u PRIVMSG #one :the last id is empty",  // left out: the last wins
            "@id=;id=a6 :u PRIVMSG #one :the last id wins",
            "@id=a7 :u  PRIVMSG   #spaced :words apart",
            "@id=a8 :u PRIVMSG nochannel :left out",
            "@id=a9 :u JOIN",  // no second word
            "@id=b1 :u CLEARMSG #two",  // ends at the channel
            "",  // an empty line
            "no tags PRIVMSG #one",
            "@id=b2 :u PRIVMSG #last :no CR LF at the end",
        ]
        let text = edges.joined(separator: "\r\n")
        let edgeKeys = Self.keys(text)
        #expect(edgeKeys == ["one a1", "two a2", "one a6", "spaced a7", "two b1", "last b2"], "\(edgeKeys)")
        #expect(ServedLog.messageKeys(Array(text.utf8)) == edgeKeys)
        #expect(ServedLog.messageKeys(Array((text + "\r\n").utf8)) == edgeKeys)
    }
}
