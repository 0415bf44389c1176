import ChatTestSupport
import Foundation
import Testing

/// The benches that run a serve and a capture (`make bench`'s Benchmarks/capture_bench.sh, `make
/// bench-http`'s Benchmarks/http_flood_bench.sh): their trees go under `$TMPDIR` (or /tmp), never into the
/// directory they run from (the repository, under `make`), and a run stopped part way stops the capture
/// it started (a child of /usr/bin/time, which passes no signal on), not only its serve, before the
/// trees are removed.
@Suite(.timeLimit(.minutes(20))) struct BenchScriptTests {
    /// What `Benchmarks/<script> CHATCAP LOG <arguments>` left after a SIGTERM, sent once a capture it
    /// started has made `ready` (a glob under its `TMPDIR`): lines `running: 1` (the capture had started),
    /// `in cwd:` (what the directory it ran from held then), `status:`, `left in cwd:`, `left in tmp:`
    /// and `left running:` (the PIDs of any `chatcap capture` or `serve` with the test's directory in
    /// its command line, or `none`; stopped by the test).
    static func stopMidRun(_ script: String, _ arguments: String, ready: String, environment: String = "")
        throws -> (text: String, stderr: String)
    {
        let dir = try CLITempDirectory.make("bench-script-" + script.prefix { $0 != "." })
        defer { CLITempDirectory.remove(dir) }
        let cwd = dir + "/cwd"
        let tmp = dir + "/tmp"
        // The wait for the capture to start (up to two minutes) only guards against a hang.
        // Spawned with no signal blocked (``CLI/spawnUnblocked(_:timeout:)``), so that the bench takes
        // the SIGTERM.
        let command = """
            cd '\(Fixtures.root)'
            mkdir '\(cwd)' '\(tmp)'
            cp Fixtures/lines/privmsg.irc '\(dir)/chat.irc'
            log='\(dir)/chat.irc'
            bench=$PWD/Benchmarks/\(script)
            cd '\(cwd)'
            TMPDIR='\(tmp)' \(environment) bash "$bench" \(CLI.shellBinary) "$log" \(arguments) \\
                > '\(dir)/out' 2> '\(dir)/err' &
            pid=$!
            for _ in $(seq 1 1200); do
                ls -d '\(tmp)'/\(ready) > /dev/null 2>&1 && break
                kill -0 $pid 2> /dev/null || break
                sleep 0.1
            done
            echo "running: $(ls -d '\(tmp)'/\(ready) 2> /dev/null | wc -l)"
            echo "in cwd: $(ls -A '\(cwd)' | tr '\\n' ' ')"
            kill -TERM $pid
            wait $pid
            echo "status: $?"
            echo "left in cwd: $(ls -A '\(cwd)' | wc -l)"
            echo "left in tmp: $(ls -A '\(tmp)' | wc -l)"
            # What the run started has this test's directory in its command line (capture its tree,
            # serve the log); `[ ]` keeps this shell's own command line from matching. Anything found
            # is stopped by its PID, so that nothing outlives the test.
            left=$(pgrep -f 'chatcap[ ](capture|serve) .*\(dir)/' | tr '\\n' ' ')
            echo "left running: ${left:-none}"
            for p in $left; do kill $p; done
            """
        let run = try CLI.spawnUnblocked(["bash", "-o", "pipefail", "-c", command], timeout: 600)
        #expect(run.status == 0, "\(run.output)")
        let stderr = (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? ""
        return (run.output, stderr)
    }

    /// Checks what ``stopMidRun(_:_:ready:environment:)`` reported.
    static func expectNothingLeft(_ text: String, _ stderr: String) {
        #expect(text.contains("running: 1\n"), "a capture ran with its tree under TMPDIR: \(text) \(stderr)")
        #expect(text.contains("in cwd: \n"), "nothing in the directory the script ran from: \(text)")
        #expect(text.contains("status: 143\n"), "ended by the SIGTERM: \(text)")
        #expect(text.contains("left in cwd: 0\n") && text.contains("left in tmp: 0\n"), "\(text)")
        #expect(text.contains("left running: none\n"), "the run's capture and serve are stopped: \(text)")
    }

    @Test("capture_bench.sh stopped by SIGTERM mid-run: tree under TMPDIR, capture and serve stopped, nothing left")
    func captureBenchStopped() throws {
        // Five minutes of capture per run: the SIGTERM comes long before the run would end on its own.
        let (text, stderr) = try Self.stopMidRun(
            "capture_bench.sh", "300", ready: "capture-bench.*/cap-1/_session", environment: "CAPTURE_BENCH_RUNS=' '")
        Self.expectNothingLeft(text, stderr)
    }

    @Test("http_flood_bench.sh stopped by SIGTERM mid-run: its capture and serve are stopped, nothing is left")
    func httpFloodBenchStopped() throws {
        // Five minutes a run, one round: the first run (no --http-port) is the one stopped.
        let (text, stderr) = try Self.stopMidRun("http_flood_bench.sh", "300 1", ready: "tmp.*/cap/_session")
        Self.expectNothingLeft(text, stderr)
    }

    @Test("a poll that finds no capture yet (time has not forked it) is not an error: the run goes on to its row")
    func pollBeforeTheFork() throws {
        let dir = try CLITempDirectory.make("capture-bench-poll")
        defer { CLITempDirectory.remove(dir) }
        // The first `ps` finds nothing, as it does when it runs before /usr/bin/time has forked the
        // capture; the calls after it are the real ps.
        let run = try CLI.shell(
            """
            mkdir '\(dir)/bin' '\(dir)/tmp'
            cp Fixtures/lines/privmsg.irc '\(dir)/chat.irc'
            printf '%s\\n' '#!/bin/sh' \\
                '[ -e "$(dirname "$0")/polled" ] && exec /bin/ps "$@"' \\
                ': > "$(dirname "$0")/polled"; exit 1' > '\(dir)/bin/ps'
            chmod +x '\(dir)/bin/ps'
            PATH='\(dir)/bin':$PATH TMPDIR='\(dir)/tmp' CAPTURE_BENCH_RUNS=' ' \\
                bash Benchmarks/capture_bench.sh \(CLI.shellBinary) '\(dir)/chat.irc' 2 < /dev/null
            echo "status: $?"
            echo "polled: $(ls '\(dir)/bin/polled' 2> /dev/null | wc -l)"
            echo "left in tmp: $(ls -A '\(dir)/tmp' | wc -l)"
            """)
        let text = String(decoding: run.stdout, as: UTF8.self)
        #expect(text.contains("polled: 1\n"), "the stand-in ps was called: \(text) \(run.stderr)")
        #expect(text.contains("status: 0\n"), "\(text) \(run.stderr)")
        #expect(text.contains(" lines/s; "), "the run's row: \(text)")
        #expect(text.contains("left in tmp: 0\n"), "\(text)")
    }
}
