import ChatTestSupport
import Foundation
import Testing

/// `chatcap tail` against a hostile server (``HostileServer``, Python on 127.0.0.1): garbage before
/// and after login, RECONNECT followed by lines in one write, a PING flood that never reads, and a
/// partial line followed by a stall. Each test counts exactly what was sent, printed and recorded.
@Suite(.serialized, .timeLimit(.minutes(20))) struct HostileServerTests {
    /// A token that only these tests use: it must never appear in any output.
    static let token = "oauth:hostiletesttoken0123456789"
    static let tokenEnvironment = ["CHATCAP_TOKEN": token]

    static func common(_ server: HostileServer) -> [String] {
        ["tail", "c", "--host", "127.0.0.1", "--port", "\(server.port)", "--plain", "--login", "tester"]
    }

    static func lines(_ run: CLIRun) -> [Substring] { run.text.split(separator: "\n") }

    /// Lines of `text` that contain every one of `parts`.
    static func count(_ text: String, _ parts: String...) -> Int {
        text.split(separator: "\n").filter { line in parts.allSatisfy { line.contains($0) } }.count
    }

    @Test("garbage before and after login: every command sent once, every line and record once")
    func garbage() throws {
        let server = try HostileServer(.garbage)
        let run = try CLI.run(
            Self.common(server) + ["--format", "json", "--duration", "2"], environment: Self.tokenEnvironment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(server.count("CAP REQ") == 1)
        #expect(server.count("CAP END") == 1)
        #expect(server.count("PASS") == 1, "the token is sent once")
        #expect(server.count("NICK") == 1)
        #expect(server.count("USER") == 1)
        #expect(server.count("JOIN") == 1, "one JOIN, not one per malformed line: \(server.received.map(\.line))")
        #expect(server.count("PONG") == 1, "one PONG per PING")
        let out = Self.lines(run)
        #expect(out.filter { $0.contains("\"event\":\"joined\"") }.count == 1)
        #expect(out.filter { $0.contains("\"type\":\"gap\"") }.isEmpty)
        #expect(out.filter { $0.contains("\"type\":\"privmsg\"") }.count == 1)
        #expect(
            run.stderr.contains("summary: 5 lines read, 5 written, 40 malformed"),
            "each bad line counted once: \(run.stderr)")
        #expect(!run.text.contains(Self.token) && !run.stderr.contains(Self.token))
    }

    @Test("RECONNECT and 5 lines in one write: all 5 printed, the partial line reported, one reconnect")
    func reconnectBurst() throws {
        let server = try HostileServer(.reconnect)
        let run = try CLI.run(
            Self.common(server) + [
                "--format", "json", "--reconnect-base", "0.1", "--reconnect-max", "0.2",
                "--duration", "2",
            ],
            environment: Self.tokenEnvironment)
        #expect(run.status == 0, "\(run.stderr)")
        let texts = Self.lines(run).filter { $0.contains("\"type\":\"privmsg\"") }.compactMap { line -> String? in
            guard let r = line.range(of: "\"text\":\"") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != "\"" })
        }
        #expect(texts == (1...5).map { "after reconnect \($0)" }, "\(run.stderr)")
        #expect(Self.count(run.text, "\"event\":\"joined\"") == 2)
        #expect(Self.count(run.text, "\"type\":\"gap\"") == 1)
        // The partial line is cut off when the server closes the old connection after RECONNECT.
        #expect(
            Self.count(run.stderr, "the server closed the connection mid-line", "bytes of a partial line dropped") == 1,
            "\(run.stderr)")
        #expect(Self.count(run.stderr, "mid-line") == 1, "\(run.stderr)")
        #expect(server.count("JOIN", connection: 1) == 1 && server.count("JOIN", connection: 2) == 1)
    }

    @Test("a PING flood that never reads: the connection is dropped as dead at the queue bound, memory stays bounded")
    func pingFlood() throws {
        let server = try HostileServer(.pingFlood)
        let run = try SampledRun.run(
            Self.common(server) + [
                "--format", "json", "--reconnect-base", "0.1", "--reconnect-max", "0.2",
                "--duration", "90",
            ],
            // Until the drop and the rejoin's gap are said: 3 s on a quiet machine was not always enough
            // for the flood to fill the queue beside three builds (0 drops in a loaded run).
            environment: Self.tokenEnvironment, until: ["does not read", "gap in #c"])
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        let dropped = Self.count(run.stderr, "chatcap: disconnected:", "does not read")
        #expect(dropped >= 1, "the connection is closed as dead: \(run.stderr.suffix(2000))")
        #expect(Self.count(run.stderr, "reconnecting in") >= dropped)
        #expect(Self.count(run.stderr, "gap in #c") >= 1)
        // The queue is bounded at 1 MiB per connection (unbounded it grew ~10 MB/s): the peak stays
        // within a few MiB of the same command's peak against a quiet server.
        let quiet = try HostileServer(.partialStall)
        let baseline = try SampledRun.run(
            Self.common(quiet) + ["--format", "json", "--duration", "1.5"], environment: Self.tokenEnvironment)
        #expect(baseline.status == 0 && baseline.peakKiB > 0)
        #expect(run.peakKiB - baseline.peakKiB < 8 * 1024, "peak RSS \(run.peakKiB) KiB, quiet \(baseline.peakKiB) KiB")
        #expect(!run.stderr.contains(Self.token))
    }

    @Test("a partial line, then a stall: the PONG timeout closes it and the partial line is reported")
    func partialStall() throws {
        let server = try HostileServer(.partialStall)
        let run = try CLI.run(
            Self.common(server) + [
                "--format", "json", "--idle-timeout", "0.4", "--pong-timeout", "0.4",
                "--reconnect-base", "0.1", "--reconnect-max", "0.2", "--duration", "2.5",
            ],
            environment: Self.tokenEnvironment)
        #expect(run.status == 0, "\(run.stderr)")
        let dead = Self.count(run.stderr, "chatcap: disconnected:", "no PONG")
        #expect(dead >= 1, "\(run.stderr)")
        #expect(Self.count(run.stderr, "mid-line", "no PONG") == dead, "one cut-off per dead connection: \(run.stderr)")
        #expect(!run.text.contains("half a li"))
        // The summary counts every cut-off line (the end of the run may cut one more) as cut off, not
        // as over-long lines (issue 24 item 4).
        let cut = run.stderr.split(separator: "\n").filter { $0.contains("closed mid-line") }.count
        #expect(cut >= dead)
        #expect(run.stderr.contains(", \(cut) partial line\(cut == 1 ? "" : "s") cut off"), "\(run.stderr)")
        #expect(!run.stderr.contains("over-long"), "\(run.stderr)")
        // One probe per dead connection, and perhaps one on the connection the end of the run closed.
        #expect((dead...dead + 1).contains(server.count("PING")), "one probe per dead connection")
    }
}
