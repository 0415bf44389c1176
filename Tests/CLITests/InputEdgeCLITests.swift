import ChatTestSupport
import Foundation
import Testing

/// Inputs at the edges of the formats, end to end: lines ended by CR alone, and tag keys that are
/// equal in JSON only (repeated, or different in invalid UTF-8 alone).
@Suite(.timeLimit(.minutes(20))) struct InputEdgeCLITests {
    /// Three PRIVMSGs ended by CR alone: chatcap frames on LF and CRLF, so they are one line.
    static let macLines = [
        "@tmi-sent-ts=1763700000000 :a!a@a.tmi.twitch.tv PRIVMSG #c :one",
        "@tmi-sent-ts=1763700001000 :a!a@a.tmi.twitch.tv PRIVMSG #c :two",
        "@tmi-sent-ts=1763700002000 :a!a@a.tmi.twitch.tv PRIVMSG #c :three",
    ].map { $0 + "\r" }.joined()

    @Test("a binary file named as input is refused with 65 and its first NUL's offset, nothing written (issue #35)")
    func binaryInputRefused() throws {
        for command in ["replay", "stats", "dump"] {
            let run = try CLI.run([command, "Fixtures/lines/privmsg.irc", "/bin/ls"])
            #expect(run.status == 65, "\(command): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(command) wrote \(run.stdout.count) bytes")
            #expect(run.stderr.contains("/bin/ls: not a chat log: binary data (a NUL byte at offset "), "\(run.stderr)")
        }
        // A log with malformed lines (NULs and control bytes among them) is text: read, and its lines
        // reported one by one, as before.
        let malformed = try CLI.run(["replay", "Fixtures/lines/malformed.irc"])
        #expect(malformed.status == 0 && !malformed.stderr.contains("not a chat log"), "\(malformed.stderr)")
        // gzip (whose bytes hold NULs) and text are read as before.
        let dir = try InputTempDirectory()
        let gz = dir.path + "/privmsg.irc.gz"
        #expect(try InputShell.run("gzip -c Fixtures/lines/privmsg.irc > \(InputShell.quote(gz))").status == 0)
        let read = try CLI.run(["replay", gz, "--format", "raw"])
        #expect(read.status == 0 && read.lineCount > 20, "\(read.stderr)")
    }

    @Test("replay and stats reading a terminal (no input named) say so at once; a file does not (issue #35)")
    func terminalInputSaid() throws {
        // script(1) gives the command a terminal; its own input at end of file ends the command's.
        let note = "reading chat from standard input (a terminal)"
        for command in ["replay", "stats"] {
            let run = try CLI.shell("timeout 20 script -qec \(CLI.shellBinary)' \(command)' /dev/null < /dev/null")
            #expect(run.text.contains(note), "\(command): \(run.text) \(run.stderr)")
        }
        let file = try CLI.run(["replay", "Fixtures/lines/privmsg.irc"])
        #expect(!file.stderr.contains(note), "\(file.stderr)")
        let piped = try CLI.shell("\(CLI.shellBinary) replay < Fixtures/lines/privmsg.irc")
        #expect(!piped.stderr.contains(note), "\(piped.stderr)")
    }

    @Test("a file with bare-CR line endings is one line, and replay says so once, with its position, and counts it")
    func bareCarriageReturnFile() throws {
        let directory = try InputTempDirectory()
        let path = try directory.write("mac.irc", Array(Self.macLines.utf8))
        let clean = try directory.write(
            "clean.irc", Array("@tmi-sent-ts=1763700003000 :b!b@b.tmi.twitch.tv PRIVMSG #c :fine\r\n".utf8))
        let run = try CLI.run(["replay", path, clean, "--format", "raw"])
        #expect(run.status == 0)
        // The three CR-ended lines are one line (ended by LF on output: it had no terminator).
        #expect(
            run.text
                == Self.macLines + "\n" + "@tmi-sent-ts=1763700003000 :b!b@b.tmi.twitch.tv PRIVMSG #c :fine\r\n")
        #expect(
            run.stderr
                == "chatcap: \(path):1: bare CR line endings: this line holds 3 CRs that no LF follows; chatcap "
                + "ends lines at LF and CRLF only, so lines ended by CR alone run together (said once per input)\n"
                + "chatcap: summary: 2 lines read, 2 written, 1 input with bare CR line endings\n")
        let strict = try CLI.run(["replay", path, "--format", "raw", "--strict"])
        #expect(strict.status == 65)
        let stats = try CLI.run(["stats", path, "--json"])
        #expect(stats.status == 0)
        #expect(stats.text.contains(#""bare_cr_inputs":1,"#), "\(stats.text)")
        #expect(stats.text.contains(#"bare CR line endings: this line holds 3 CRs"#), "\(stats.text)")
    }

    @Test("a big bare-CR file is an over-long line: the warning comes with the skip, once")
    func bigBareCarriageReturnFile() throws {
        let directory = try InputTempDirectory()
        let bytes = Array(String(repeating: ":a!a@a.tmi.twitch.tv PRIVMSG #c :hello there\r", count: 2_000).utf8)
        let path = try directory.write("big.irc", bytes)
        let run = try CLI.run(["replay", path, "--format", "raw"])
        #expect(run.status == 65, "no valid line at all")
        #expect(run.lineCount == 0)
        #expect(
            run.stderr
                == "chatcap: \(path):1: bare CR line endings: this line holds 2000 CRs that no LF follows; chatcap "
                + "ends lines at LF and CRLF only, so lines ended by CR alone run together (said once per input)\n"
                + "chatcap: \(path):1: line 1 (byte 0): \(bytes.count) bytes exceed the 16384-byte line limit; skipped\n"
                + "chatcap: summary: 0 lines read, 0 written, 1 over-long skipped, 1 input with bare CR line endings\n"
                + "chatcap: error: no valid IRC line in the input\n")
    }

    @Test("tag keys repeated or different only in invalid UTF-8 are each one JSON key, the last value wins")
    func duplicateKeys() throws {
        var line: [UInt8] = Array("@a=1;".utf8) + [0xFF] + Array("=x;".utf8) + [0xFE]
        line += Array("=y;a=2;tmi-sent-ts=1763700000000 :a!a@a.tmi.twitch.tv PRIVMSG #c :hi\r\n".utf8)
        let irc = try CLI.run(["replay", "-", "--format", "irc"], stdin: line)
        #expect(irc.status == 0)
        #expect(
            irc.text
                == ##"{"tags":{"\##u{FFFD}":"y","a":"2","tmi-sent-ts":"1763700000000"},"source":"a!a@a.tmi.twitch.tv","verb":"PRIVMSG","params":["#c","hi"]}"##
                + "\n")
        let json = try CLI.run(["replay", "-", "--format", "json", "--with-tags"], stdin: line)
        #expect(json.status == 0)
        #expect(
            json.text.hasSuffix(#","tags":{"\#u{FFFD}":"y","a":"2","tmi-sent-ts":"1763700000000"}}"# + "\n"),
            "\(json.text)")
        // Python's json module keeps every key of an object in a list: none is there twice.
        let check = try CLI.shell(
            "printf '@a=1;\\xff=x;\\xfe=y;a=2 :a!a@a PRIVMSG #c :hi\\r\\n' | \(CLI.shellBinary) replay - --format irc | "
                + "python3 -c 'import json,sys; json.loads(sys.stdin.read(), object_pairs_hook=lambda p: "
                + "(_ for _ in ()).throw(SystemExit(\"duplicate\")) if len(p) != len(set(k for k, _ in p)) else dict(p))'"
        )
        #expect(check.status == 0, "\(check.stderr)")
    }
}
