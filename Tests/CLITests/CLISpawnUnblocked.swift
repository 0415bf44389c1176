import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension CLI {
    /// Runs a command with a limit of `timeout` seconds (then SIGKILL), returning its status and output
    /// (stdout and stderr, in one file while it runs: a process it leaves behind holds no pipe of ours).
    ///
    /// Spawned with an empty signal mask and default dispositions: the test runner's threads block
    /// most signals, and what they start inherits that mask and hands it on. A tmux server would never
    /// see SIGCHLD, nor `watch` in its pane SIGWINCH; a bench script would ignore the SIGTERM that is
    /// to stop it (bash does not unblock what it was started with).
    static func spawnUnblocked(_ argv: [String], timeout: Double = 10) throws -> (status: Int32, output: String) {
        let outPath = NSTemporaryDirectory() + "chatcap-spawn-\(UUID().uuidString)"
        defer { unlink(outPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE, SIGWINCH] { sigaddset(&defaults, s) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for a in cArguments { free(a) } }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], &actions, &attributes, cArguments, environ)
        guard rc == 0 else { throw ServeCLIFailure(description: "cannot run \(argv[0]): errno \(rc)") }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        while waitpid(pid, &status, WNOHANG) != pid {
            if Date() > deadline {
                _ = Glibc.kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw ServeCLIFailure(description: "timed out: \(argv.joined(separator: " "))")
            }
            usleep(2_000)
        }
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), output)
    }
}
