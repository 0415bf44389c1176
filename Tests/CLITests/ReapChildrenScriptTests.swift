import ChatTestSupport
import Foundation
import Testing

/// Scripts/reap_children.py, which every part of `make test` runs under (Scripts/run_tests.sh): what a
/// test bundle leaves running when it traps or is timed out is stopped, by PID, and named.
@Suite(.timeLimit(.minutes(20))) struct ReapChildrenScriptTests {
    /// Whether process `pid` exists at all (a zombie still does).
    static func exists(_ pid: Int32) -> Bool { kill(pid, 0) == 0 || errno != ESRCH }

    @Test("what the command leaves running, at any depth, is stopped and named; the command's status is kept")
    func stopsWhatIsLeft() throws {
        let dir = try CLITempDirectory.make("reap")
        defer { CLITempDirectory.remove(dir) }
        // A background child, and a grandchild whose parent has already exited (a daemon's double fork).
        // The command ends only once both run `sleep`: a process caught between its fork and its exec
        // still has bash's command line, and is named so (a full make test beside a TSan build did).
        let run = try CLI.shell(
            """
            python3 Scripts/reap_children.py bash -c '
                sleep 300 & echo $! > \(dir)/child
                (sleep 301 & echo $! > \(dir)/grandchild)
                for pid in $(cat \(dir)/child \(dir)/grandchild); do
                    while [ "$(cat /proc/$pid/comm 2>/dev/null)" != sleep ]; do sleep 0.01; done
                done
                exit 3'
            """)
        #expect(run.status == 3, "the command's own exit status: \(run.stderr)")
        for name in ["child", "grandchild"] {
            let text = try String(contentsOfFile: "\(dir)/\(name)", encoding: .utf8)
            let pid = try #require(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(!Self.exists(pid), "the \(name) \(pid) was left running")
            #expect(run.stderr.contains("stopped pid \(pid), left running by `bash`: sleep 30"), "\(run.stderr)")
        }
        #expect(run.stderr.contains("2 processes left running, stopped"), "\(run.stderr)")
    }

    @Test("an orphan that ends while the command runs is reaped at once, not left a zombie")
    func reapsOrphansWhileRunning() throws {
        // The orphan ends after 0.2 s; the command looks at its PID a second later.
        let run = try CLI.shell(
            """
            python3 Scripts/reap_children.py bash -c '
                pid=$( (sleep 0.2 >/dev/null & echo $!) )
                sleep 1.5
                if [ -e /proc/$pid ]; then echo "state $(cut -d" " -f3 /proc/$pid/stat)"; else echo gone; fi'
            """)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(String(decoding: run.stdout, as: UTF8.self) == "gone\n")
        #expect(!run.stderr.contains("left running"), "nothing was left: \(run.stderr)")
    }

    @Test("a command ended by a signal exits 128 + its number; one that leaves nothing says nothing")
    func statuses() throws {
        let killed = try CLI.shell("python3 Scripts/reap_children.py bash -c 'kill -SEGV $$'")
        #expect(killed.status == 128 + SIGSEGV)
        let clean = try CLI.shell("python3 Scripts/reap_children.py true")
        #expect(clean.status == 0)
        #expect(clean.stderr.isEmpty, "\(clean.stderr)")
    }
}
