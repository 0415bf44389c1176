import Testing
import TwitchSession

@Suite struct ChannelListTests {
    @Test("LF, CR LF and CR line endings list the same channels, with the same line numbers")
    func lineEndings() throws {
        let lines = ["# channels", "pixelharbor", "", "#LunaFrost  # a comment", "grimfang_tv"]
        for ending in ["\n", "\r\n", "\r"] {
            let text = lines.joined(separator: ending) + ending
            #expect(
                try ChannelList.parse(text) == ["pixelharbor", "lunafrost", "grimfang_tv"], "\(Array(ending.utf8))")
            // A bad line is named by its own number whatever the ending.
            let bad = (lines + ["not a login!"]).joined(separator: ending)
            #expect(throws: ChannelList.LineError(line: 6, text: "not a login!", reason: "letters, digits and _")) {
                try ChannelList.parse(bad)
            }
        }
    }

    @Test("a file written on Windows (CR LF throughout, no final newline) is read whole")
    func windowsFile() throws {
        let text = (1...500).map { "chan\($0)" }.joined(separator: "\r\n")
        let logins = try ChannelList.parse(text)
        #expect(logins.count == 500)
        #expect(logins.first == "chan1" && logins.last == "chan500")
    }

    @Test("a login too long is blamed on its length, bad characters on the characters")
    func reasons() {
        let long = String(repeating: "a", count: 26)
        #expect(throws: ChannelList.LineError(line: 2, text: long, reason: "26 characters; a login has at most 25")) {
            try ChannelList.parse("ok\n\(long)\n")
        }
        #expect(throws: ChannelList.LineError(line: 1, text: "bad-name", reason: "letters, digits and _")) {
            try ChannelList.parse("bad-name")
        }
        #expect(Login.whyInvalid(String(repeating: "x", count: 25) + "é") == "27 characters; a login has at most 25")
        #expect(
            ChannelList.LineError(line: 3, text: "x y", reason: "letters, digits and _").description(in: "f.txt")
                == "f.txt:3: 'x y' is not a channel login (letters, digits and _)")
    }

    @Test("blank lines, comment lines and trailing comments list nothing")
    func comments() throws {
        #expect(try ChannelList.parse("#\n# pixelharbor\n#\tlunafrost\n \t \n") == [])
        #expect(try ChannelList.parse("  ottertech\t# later\n") == ["ottertech"])
    }
}
