import ChatTestSupport
import Foundation
import Testing

/// Issue 13 item 10: an option that would do nothing in the combination given is a usage error
/// (exit 64) naming it — never silently ignored.
@Suite(.timeLimit(.minutes(20))) struct NoOpOptionsTests {
    static let cases: [(arguments: [String], says: String)] = [
        (["replay", "Fixtures/lines/privmsg.irc", "--with-tags"], "--with-tags adds to --format json only"),
        (
            ["replay", "Fixtures/lines/privmsg.irc", "--format", "irc", "--with-raw"],
            "--with-raw adds to --format json only"
        ),
        (
            ["replay", "Fixtures/lines/privmsg.irc", "--format", "raw", "--apply-moderation"],
            "--format raw writes lines unchanged"
        ),
        (
            ["replay", "Fixtures/lines/privmsg.irc", "--moderation-window", "10"],
            "--moderation-window applies only with --apply-moderation"
        ),
        (["replay", "Fixtures/lines/privmsg.irc", "--channel", "not-a-login!"], "no line could match"),
        (["replay", "Fixtures/lines/privmsg.irc", "--user", "two words"], "no line could match"),
        (["tail", "pixelharbor", "--with-tags"], "--with-tags adds to --format json only"),
        (["tail", "pixelharbor", "--login", "someone"], "--login needs an OAuth token"),
        (["tail", "pixelharbor", "--reload-on-change", "1"], "--reload-on-change watches --channels-file"),
        (
            ["capture", "pixelharbor", "--dir", "/tmp/never-used", "--reload-on-change", "1"],
            "--reload-on-change watches --channels-file"
        ),
        (
            ["capture", "pixelharbor", "--dir", "/tmp/never-used", "--quiet", "--status", "json"],
            "--quiet silences the status"
        ),
        (["watch", "Fixtures/lines/privmsg.irc", "--duration", "5"], "--duration limits watching live"),
        // Issue 24 item 8: the last silent ones.
        (
            ["capture", "pixelharbor", "--dir", "/tmp/never-used", "--status-interval", "5"],
            "--status-interval paces --status json only"
        ),
        (
            ["load", "/tmp", "--clickhouse", "http://127.0.0.1:1/", "--status", "auto", "--status-interval", "5"],
            "--status-interval paces --status json only"
        ),
        (
            ["watch", "Fixtures/lines/privmsg.irc", "--idle-timeout", "5", "--join-rate", "5"],
            "--idle-timeout, --join-rate apply only to watching live, not to a replay of files"
        ),
        (
            ["watch", "Fixtures/lines/privmsg.irc", "--retry-tls"],
            "--retry-tls applies only to watching live, not to a replay of files"
        ),
        (
            ["stats", "Fixtures/lines/privmsg.irc", "--capacity", "10"],
            "--capacity sizes the rings of replay, dump and watch; stats keeps no entries"
        ),
    ]

    @Test("refused with 64 and a message naming the option", arguments: 0..<cases.count)
    func refused(index: Int) throws {
        let (arguments, says) = Self.cases[index]
        let run = try CLI.run(arguments)
        #expect(run.status == 64, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(says), "\(arguments): \(run.stderr)")
    }

    @Test("the same options where they do something are accepted")
    func accepted() throws {
        for arguments in [
            ["replay", "Fixtures/lines/privmsg.irc", "--format", "json", "--with-tags", "--with-raw"],
            ["replay", "Fixtures/lines/moderation.irc", "--apply-moderation", "--moderation-window", "10"],
            ["replay", "Fixtures/lines/privmsg.irc", "--channel", "#PixelHarbor", "--user", "MoonMoth"],
            ["replay", "Fixtures/lines/privmsg.irc", "--capacity", "10"],
            ["dump", "Fixtures/lines/privmsg.irc", "--capacity", "10", "--last", "10"],
        ] {
            let run = try CLI.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
        }
    }
}
