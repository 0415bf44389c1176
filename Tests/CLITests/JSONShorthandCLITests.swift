import ChatTestSupport
import Testing

/// `--json` on replay and tail, as `stats --json` and `logs ?json` say it (issue #35's newcomer: it
/// was refused with "Did you mean '--user'?").
@Suite(.timeLimit(.minutes(20))) struct JSONShorthandCLITests {
    @Test("replay --json writes what replay --format json writes")
    func sameAsFormatJSON() throws {
        let short = try CLI.run(["replay", "--json", "Fixtures/lines/privmsg.irc"])
        let long = try CLI.run(["replay", "--format", "json", "Fixtures/lines/privmsg.irc"])
        #expect(short.status == 0, "\(short.stderr)")
        #expect(short.stdout.count > 100 && short.stdout == long.stdout)
        #expect(short.stderr == long.stderr)
    }

    @Test("--json with another --format is a usage error naming both; with --format json it is the same")
    func disagreeing() throws {
        let run = try CLI.run(["replay", "--json", "--format", "text", "Fixtures/lines/privmsg.irc"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--json and --format text disagree"), "\(run.stderr)")
        let both = try CLI.run(["replay", "--json", "--format", "json", "Fixtures/lines/privmsg.irc"])
        #expect(both.status == 0, "\(both.stderr)")
    }
}
