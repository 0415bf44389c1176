import ChatTestSupport
import Foundation
import Testing

/// Benchmarks/capture_bench.sh, `make bench`'s capture rows: a serve and a capture of every channel of a
/// log, each capture into a tree of the script's own. The trees go under `$TMPDIR` (or /tmp), never into
/// the directory the script runs from (the repository, under `make bench`), and a run stopped part way
/// stops the capture it started, not only its serve, before the trees are removed.
@Suite(.timeLimit(.minutes(20))) struct CaptureBenchScriptTests {
    @Test("stopped by SIGTERM mid-run: its tree was under TMPDIR, its capture and serve are stopped, nothing is left")
    func stoppedRunLeavesNothing() throws {
        let dir = try CLITempDirectory.make("capture-bench-script")
        defer { CLITempDirectory.remove(dir) }
        let cwd = dir + "/cwd"
        let tmp = dir + "/tmp"
        // Five minutes of capture per run: the SIGTERM comes long before the run would end on its own (the
        // wait for the capture to start, up to two minutes, only guards against a hang).
        let run = try CLI.shell(
            """
            mkdir '\(cwd)' '\(tmp)'
            cp Fixtures/lines/privmsg.irc '\(dir)/chat.irc'
            log='\(dir)/chat.irc'
            bench=$PWD/Benchmarks/capture_bench.sh
            cd '\(cwd)'
            # Started with no signal blocked: a child of a Dispatch worker inherits its blocked SIGTERM,
            # and a shell does not unblock what it was started with.
            TMPDIR='\(tmp)' CAPTURE_BENCH_RUNS=' ' python3 -c '
            import os, signal, sys
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.execvp("bash", ["bash"] + sys.argv[1:])' "$bench" \(CLI.shellBinary) "$log" 300 \
                > '\(dir)/out' 2> '\(dir)/err' &
            pid=$!
            for _ in $(seq 1 1200); do
                ls -d '\(tmp)'/capture-bench.*/cap-1/_session > /dev/null 2>&1 && break
                kill -0 $pid 2> /dev/null || break
                sleep 0.1
            done
            echo "running: $(ls -d '\(tmp)'/capture-bench.*/cap-1/_session 2> /dev/null | wc -l)"
            echo "in cwd: $(ls -A '\(cwd)' | tr '\\n' ' ')"
            kill -TERM $pid
            wait $pid
            echo "status: $?"
            echo "left in cwd: $(ls -A '\(cwd)' | wc -l)"
            echo "left in tmp: $(ls -A '\(tmp)' | wc -l)"
            # What the run started has this test's directory in its command line (capture its tree,
            # serve the log); `[ ]` keeps this shell's own command line from matching. Anything found
            # is stopped by its PID, so that this shell does not wait for it.
            left=$(pgrep -f 'chatcap[ ](capture|serve) .*\(dir)/' | tr '\\n' ' ')
            echo "left running: ${left:-none}"
            for p in $left; do kill $p; done
            """)
        let text = String(decoding: run.stdout, as: UTF8.self)
        let stderr = (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? ""
        #expect(run.status == 0, "\(run.stderr)")
        #expect(text.contains("running: 1\n"), "a capture ran with its tree under TMPDIR: \(text) \(stderr)")
        #expect(text.contains("in cwd: \n"), "nothing in the directory the script ran from: \(text)")
        #expect(text.contains("status: 143\n"), "ended by the SIGTERM: \(text)")
        #expect(text.contains("left in cwd: 0\n") && text.contains("left in tmp: 0\n"), "\(text)")
        #expect(text.contains("left running: none\n"), "the run's capture and serve are stopped: \(text)")
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
