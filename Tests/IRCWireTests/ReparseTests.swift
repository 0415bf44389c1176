import ChatTestSupport
import IRCWire
import Testing

/// `TwitchMessage.reparse(_:)` parses into a value that held another line (what a parse-ahead block
/// does with its slots): it must leave nothing of the old line behind.
@Suite("Parse in place")
struct ReparseTests {
    /// Everything a parse decides, comparable: the line's offsets, command, channel, every tag slot
    /// and the counts; or the error.
    static func outcome(_ result: Result<TwitchMessage, LineError>, _ bytes: [UInt8]) -> String {
        switch result {
        case .failure(let error): return "error \(error)"
        case .success(let m):
            let slots = TwitchTagKey.allCases.map { key in m.tags[key].map { "\($0.raw)" } ?? "-" }
            return "\(m.line) \(m.command) \(m.channel.map { "\($0)" } ?? "nil") \(slots) "
                + "\(m.tags.count) \(m.tags.msgParamCount) \(m.tags.unknownCount) \(m.tags.isRegular)"
        }
    }

    /// `bytes` parsed into `message` in place: the message it then holds, or the error.
    static func reparsing(_ message: inout TwitchMessage, _ bytes: [UInt8]) -> Result<TwitchMessage, LineError> {
        do throws(LineError) {
            try message.reparse(bytes.span)
            return .success(message)
        } catch {
            return .failure(error)
        }
    }

    /// Every line of the fixtures, without its line ending.
    static func fixtureLines() throws -> [[UInt8]] {
        var lines: [[UInt8]] = []
        for name in ["privmsg", "usernotice", "moderation", "malformed", "edge-cases", "shared-chat", "roomstate"] {
            let text = try FileBytes.read(Fixtures.root + "/Fixtures/lines/\(name).irc")
            lines += text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map {
                $0.last == UInt8(ascii: "\r") ? Array($0.dropLast()) : Array($0)
            }
        }
        return lines
    }

    @Test("every fixture line parsed into an empty message (TwitchMessage()) reads as its own fresh parse")
    func intoEmpty() throws {
        let lines = try Self.fixtureLines()
        #expect(lines.count > 50)
        var mismatches: [Int] = []
        for (i, bytes) in lines.enumerated() {
            let fresh = Self.outcome(Result { () throws(LineError) in try TwitchMessage(parsing: bytes.span) }, bytes)
            var message = TwitchMessage()
            if Self.outcome(Self.reparsing(&message, bytes), bytes) != fresh { mismatches.append(i) }
        }
        #expect(mismatches.isEmpty, "lines \(mismatches.prefix(5))")
    }

    @Test("every fixture line parsed over every other one reads as its own fresh parse")
    func overEveryOther() throws {
        let lines = try Self.fixtureLines()
        #expect(lines.count > 50)
        let fresh = lines.map { bytes in
            Self.outcome(Result { () throws(LineError) in try TwitchMessage(parsing: bytes.span) }, bytes)
        }
        #expect(fresh.contains { $0.hasPrefix("error") } && fresh.contains { !$0.hasPrefix("error") })
        var mismatches: [String] = []
        // One value parsed into over and over: each line after every other line (and after errors).
        var reused = try TwitchMessage(parsing: Array("@a=1;b=2 :x!x@x PRIVMSG #old :old".utf8).span)
        for (i, previous) in lines.enumerated() {
            for (j, bytes) in lines.enumerated() {
                _ = try? reused.reparse(previous.span)
                if Self.outcome(Self.reparsing(&reused, bytes), bytes) != fresh[j] {
                    mismatches.append("line \(j) after line \(i)")
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }
}
