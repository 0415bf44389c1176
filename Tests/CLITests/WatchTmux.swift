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

    static var isAvailable: Bool { (try? CLI.spawnUnblocked(["tmux", "-V"]).status) == 0 }

    /// Throws (a recorded failure, not a skip) when tmux is not installed.
    init(width: Int = 120, height: Int = 40) throws {
        guard Self.isAvailable else {
            throw ServeCLIFailure(description: "tmux is not installed (Debian package tmux; make deps installs it)")
        }
        socket = "chatcap-watch-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let start = try tmux([
            "-f", "/dev/null", "new-session", "-d", "-x", "\(width)", "-y", "\(height)", "-c", Fixtures.root,
            "env PS1='$ ' bash --norc --noprofile",
        ])
        guard start.status == 0 else { throw ServeCLIFailure(description: "tmux new-session failed: \(start.output)") }
        socketPath = value("#{socket_path}")
        _ = try tmux(["set-option", "-g", "window-size", "manual"])
    }

    deinit { kill() }

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
        try CLI.spawnUnblocked(["tmux", "-L", socket, "-u"] + args)
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
}
