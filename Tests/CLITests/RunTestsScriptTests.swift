import ChatTestSupport
import Foundation
import Testing

/// Scripts/run_tests.sh's check of what tests leave behind: every run of the test bundle gets a
/// temporary directory of its own (`TMPDIR`); whatever is left there when the run ends fails the
/// script and is named with its part, and the directories go when the script ends. Run against a
/// stand-in bundle (`TEST_BUNDLE`), its logs in a directory of the test's (`TEST_OUTPUT_DIR`), so that
/// the `make test` running this suite keeps its own.
@Suite(.timeLimit(.minutes(20))) struct RunTestsScriptTests {
    struct Outcome {
        var status: Int32
        var output: String
        /// What is left in the `TMPDIR` the script was given, once it ended.
        var left: [String]
    }

    /// Runs Scripts/run_tests.sh (one process part, no TSan part) with a stand-in bundle that lists one
    /// process-driving suite, `FakeSuite`; a run of that suite makes `made-by-fake` in its `TMPDIR` and
    /// removes it again unless `leaving`.
    static func run(leaving: Bool) throws -> Outcome {
        let dir = try CLITempDirectory.make("run-tests-\(UUID().uuidString.prefix(8))")
        defer { CLITempDirectory.remove(dir) }
        let bundle = """
            #!/usr/bin/env bash
            case " $* " in
            *" --list-tests "*) echo "CLITests.FakeSuite/fake()" ;;
            *FakeSuite*) touch "$TMPDIR/made-by-fake"; [ "$LEAVE" = 1 ] || rm "$TMPDIR/made-by-fake" ;;
            esac
            exit 0

            """
        try bundle.write(toFile: "\(dir)/bundle", atomically: true, encoding: .utf8)
        chmod("\(dir)/bundle", 0o755)
        try FileManager.default.createDirectory(atPath: "\(dir)/tmp", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(dir)/out", withIntermediateDirectories: true)
        // `make test` exports TSAN (its TSan part) and perhaps KEEP_TEST_DIRS to the suites: neither may
        // reach this run.
        let run = try CLI.shell(
            "env -u TSAN -u KEEP_TEST_DIRS LEAVE=\(leaving ? 1 : 0) TMPDIR=\(dir)/tmp TEST_OUTPUT_DIR=\(dir)/out "
                + "TEST_BUNDLE=\(dir)/bundle CLI_SHARDS=1 Scripts/run_tests.sh")
        let left = try FileManager.default.contentsOfDirectory(atPath: "\(dir)/tmp")
        return Outcome(
            status: run.status, output: run.text + run.stderr, left: left)
    }

    @Test("a test that leaves a file in its temporary directory fails the run, named with its part")
    func leftFileFails() throws {
        let outcome = try Self.run(leaving: true)
        #expect(outcome.status != 0, "\(outcome.output)")
        #expect(outcome.output.contains("processes-0 left 1 entries in its temporary directory"), "\(outcome.output)")
        #expect(outcome.output.contains("  made-by-fake\n"), "\(outcome.output)")
        #expect(!outcome.output.contains("unit left"), "\(outcome.output)")
        #expect(outcome.left.isEmpty, "the script's temporary directory is removed: \(outcome.left)")
    }

    @Test("a run whose tests remove what they made passes, and its temporary directory goes")
    func cleanRunPasses() throws {
        let outcome = try Self.run(leaving: false)
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(!outcome.output.contains("in its temporary directory"), "\(outcome.output)")
        #expect(outcome.left.isEmpty, "the script's temporary directory is removed: \(outcome.left)")
    }
}
