import ChatTestSupport
import Foundation
import Testing

/// Issue 13 item 9: a negative number after a numeric option is its value, refused with the option's
/// range — never "Missing value for '--capacity'" (the option parser took `-1` for an option).
@Suite(.timeLimit(.minutes(20))) struct NegativeValueCLITests {
    static let cases: [[String]] = [
        ["replay", "Fixtures/lines/privmsg.irc", "--capacity", "-1"],
        ["replay", "Fixtures/lines/privmsg.irc", "--speed", "-2"],
        ["replay", "Fixtures/lines/privmsg.irc", "--report-limit", "-1"],
        ["replay", "Fixtures/lines/privmsg.irc", "--apply-moderation", "--moderation-window", "-5"],
        ["replay", "Fixtures/lines/privmsg.irc", "--dedupe", "-5"],
        ["dump", "Fixtures/lines/privmsg.irc", "--last", "-3"],
        ["stats", "Fixtures/lines/privmsg.irc", "--report-limit", "-1"],
        ["tail", "c", "--duration", "-1"],
        ["tail", "c", "--port", "-6667"],
        ["capture", "c", "--dir", "/tmp/never-used", "--level", "-1"],
        ["serve", "Fixtures/lines/privmsg.irc", "--ping-interval", "-1"],
        ["serve", "Fixtures/lines/privmsg.irc", "--ws-port", "-1"],
        ["serve", "Fixtures/lines/privmsg.irc", "--login-timeout", "-1"],
        ["serve", "Fixtures/lines/privmsg.irc", "--max-per-address", "-1"],
    ]

    @Test("exit 64 naming the option and its range", arguments: 0..<cases.count)
    func negative(index: Int) throws {
        let arguments = Self.cases[index]
        let run = try CLI.run(arguments)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(!run.stderr.contains("Missing value"), "\(arguments): \(run.stderr)")
        let option = arguments[arguments.count - 2]
        #expect(run.stderr.contains(option), "\(arguments): \(run.stderr)")
    }
}
