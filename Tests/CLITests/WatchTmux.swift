import ChatTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A private tmux server (its own `-L` socket) with one window running a plain bash in the
/// repository root, for full-screen tests: type into it, read the screen back, wait for it with
/// bounded waits. ``kill()`` (also in `deinit`) kills the server by its socket.
final class WatchTmux {
    let socket: String
    /// The socket's file (tmux leaves it behind after kill-server).
    private var socketPath = ""
    private(set) var alive = true

    static var isAvailable: Bool { (try? WatchTmux.run(["tmux", "-V"]).status) == 0 }

    /// Throws (a recorded failure, not a skip) when tmux is not installed.
    init(width: Int = 120, height: Int = 40) throws {
        guard Self.isAvailable else {
            throw Failure("tmux is not installed (Debian package tmux; make deps installs it)")
        }
        socket = "chatcap-watch-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let start = try tmux([
            "-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-c", Fixtures.root,
            "env PS1='$ ' bash --norc --noprofile",
        ])
        guard start.status == 0 else { throw Failure("tmux new-session failed: \(start.output)") }
        socketPath = value("#{socket_path}")
        _ = try tmux(["set-option", "-g", "window-size", "manual"])
    }

    deinit { kill() }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    /// Kills this test's tmux server (and the shell and program in it).
    func kill() {
        guard alive else { return }
        alive = false
        _ = try? tmux(["kill-server"])
        if socketPath.hasPrefix("/") && socketPath.hasSuffix("/" + socket) { unlink(socketPath) }
    }

    /// Runs `tmux -L socket -u args…`.
    @discardableResult
    func tmux(_ args: [String]) throws -> (status: Int32, output: String) {
        try Self.run(["tmux", "-L", socket, "-u"] + args)
    }

    /// Types `text` literally, then Enter.
    func line(_ text: String) throws {
        try tmux(["send-keys", "-t", "0", "-l", text])
        try tmux(["send-keys", "-t", "0", "Enter"])
    }

    /// Sends tmux key names (`q`, `PPage`, `Tab`, `C-c`, …).
    func keys(_ names: String...) throws {
        try tmux(["send-keys", "-t", "0"] + names)
    }

    /// The visible screen, one string per row.
    func screen() -> [String] { capture([]) }

    /// The visible screen with its SGR attributes.
    func screenWithEscapes() -> [String] { capture(["-e"]) }

    private func capture(_ flags: [String]) -> [String] {
        let out = (try? tmux(["capture-pane", "-p"] + flags + ["-t", "0"]).output) ?? ""
        return out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// A tmux format value of the pane (`#{alternate_on}`, `#{pane_pid}`).
    func value(_ format: String) -> String {
        ((try? tmux(["display-message", "-p", "-t", "0", format]).output) ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// Polls the screen until `condition` holds or `timeout` seconds pass; the last screen either way.
    @discardableResult
    func wait(timeout: Double = 10, _ condition: ([String]) -> Bool) -> (ok: Bool, screen: [String]) {
        let deadline = Date().addingTimeInterval(timeout)
        var rows = screen()
        while !condition(rows) {
            if Date() > deadline { return (false, rows) }
            usleep(50_000)
            rows = screen()
        }
        return (true, rows)
    }

    /// Waits until `condition` holds on two captures 100 ms apart that are the same (a frame may be
    /// caught half written: the terminal gets it in more than one piece).
    @discardableResult
    func settle(timeout: Double = 10, _ condition: ([String]) -> Bool) -> (ok: Bool, screen: [String]) {
        let deadline = Date().addingTimeInterval(timeout)
        var previous: [String] = []
        while true {
            let (ok, rows) = wait(timeout: max(0, deadline.timeIntervalSinceNow), condition)
            if !ok { return (false, rows) }
            if rows == previous { return (true, rows) }
            previous = rows
            usleep(100_000)
        }
    }

    /// Waits until some row contains `text`.
    @discardableResult
    func wait(for text: String, timeout: Double = 10) -> (ok: Bool, screen: [String]) {
        wait(timeout: timeout) { rows in rows.contains { $0.contains(text) } }
    }

    /// Waits until the pane has left (or entered) the alternate screen.
    func waitAlternate(_ on: Bool, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while value("#{alternate_on}") != (on ? "1" : "0") {
            if Date() > deadline { return false }
            usleep(50_000)
        }
        return true
    }

    /// Runs a command with a 10-second limit, returning its status and output (stdout and stderr).
    ///
    /// Spawned with an empty signal mask and default dispositions: the test runner's threads block
    /// most signals, and a tmux server started with that mask inherits it (and hands it to the
    /// shell and the program in the pane), so it would never see SIGCHLD, nor `watch` SIGWINCH.
    static func run(_ argv: [String], timeout: Double = 10) throws -> (status: Int32, output: String) {
        let outPath = NSTemporaryDirectory() + "chatcap-watch-test-\(UUID().uuidString)"
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
        guard rc == 0 else { throw Failure("cannot run \(argv[0]): errno \(rc)") }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(timeout)
        while waitpid(pid, &status, WNOHANG) != pid {
            if Date() > deadline {
                _ = Glibc.kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                throw Failure("timed out: \(argv.joined(separator: " "))")
            }
            usleep(2_000)
        }
        let output = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        let exited = status & 0x7F == 0
        return (exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), output)
    }
}
