import ChatTestSupport
import Foundation
import Glibc
import Testing

/// The page at `/` in a real browser: Debian's chromium, headless, against `chatcap logs` over a
/// generated directory. `--dump-dom` returns the document once its script has run (fetches included,
/// within the virtual time budget); a screenshot of the day view is kept in
/// `.build/test-artifacts/logs-page.png`.
@Suite struct LogsPageBrowserTests {
    static let chromium = "/usr/bin/chromium"

    /// The document chromium holds after loading `url`, and what it printed when it failed.
    static func dom(_ url: String, screenshot: String? = nil) throws -> String {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments =
            [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--virtual-time-budget=10000", "--window-size=1000,500",
            ] + (screenshot.map { ["--screenshot=\($0)"] } ?? ["--dump-dom"]) + [url]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The `<li>` elements of the lines list, as markup.
    static func items(_ dom: String) -> [String] {
        dom.components(separatedBy: "<li").dropFirst().map { "<li" + ($0.components(separatedBy: "</li>").first ?? "") }
    }

    @Test(
        "the page loads a channel's day, marks a deleted message and a timed-out user, filters, follows a user link",
        .timeLimit(.minutes(20)))
    func browse() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium) else {
            Issue.record("\(Self.chromium) is missing: make deps installs Debian's chromium")
            return
        }
        let dir = try InputTempDirectory("logs-page")
        try LogsCLITests.write(
            dir, "alpha/2025-11-19.log.gz",
            [
                "@time=2025-11-19T09:00:00.000Z;display-name=Bob;id=m0;room-id=1001;tmi-sent-ts=1763542800000;user-id=2001 "
                    + ":bob!bob@bob.tmi.twitch.tv PRIVMSG #alpha :yesterday"
            ])
        try LogsCLITests.write(
            dir, "alpha/2025-11-20.log.gz",
            [
                "@time=2025-11-20T10:00:00.100Z;display-name=Bob;id=m1;room-id=1001;tmi-sent-ts=1763632800000;user-id=2001 "
                    + ":bob!bob@bob.tmi.twitch.tv PRIVMSG #alpha :hello <b>there</b>",
                "@time=2025-11-20T10:00:01.100Z;display-name=Carol;id=m2;room-id=1001;tmi-sent-ts=1763632801000;user-id=2002 "
                    + ":carol!carol@carol.tmi.twitch.tv PRIVMSG #alpha :bad words",
                "@time=2025-11-20T10:00:02.000Z;login=carol;room-id=1001;target-msg-id=m2;tmi-sent-ts=1763632802000 "
                    + ":tmi.twitch.tv CLEARMSG #alpha :bad words",
                "@time=2025-11-20T10:00:04.000Z;ban-duration=600;room-id=1001;target-user-id=2001;tmi-sent-ts=1763632804000 "
                    + ":tmi.twitch.tv CLEARCHAT #alpha :bob",
            ])
        let chatcap = try ChatcapProcess(["logs", "--dir", dir.path, "--http-port", "0"])
        guard chatcap.waitForStderr(containing: "listening on http://127.0.0.1:", timeoutMs: 20_000),
            let match = chatcap.stderr.firstMatch(of: #/listening on (http://127\.0\.0\.1:\d+/)/#)
        else {
            _ = chatcap.stop(with: SIGKILL)
            Issue.record("no 'listening on' line: \(chatcap.stderr)")
            return
        }
        let url = String(match.1)

        // The latest day by default, both days to page back to.
        let day = try Self.dom(url)
        #expect(day.contains(#"<p id="status">#alpha · 2025-11-20 · 4 of 4 lines</p>"#), "\(day)")
        #expect(day.contains(#"<option value="2025-11-20""#) && day.contains(#"<option value="2025-11-19""#))
        let lines = Self.items(day)
        #expect(lines.count == 4)
        // Text stays text: the markup in a message is escaped, never rendered.
        #expect(lines.first?.contains(#"<span class="text">hello &lt;b&gt;there&lt;/b&gt;</span>"#) == true)
        #expect(lines.first?.contains(#"class="timedout""#) == true, "\(lines)")
        #expect(lines.dropFirst().first?.contains(#"class="deleted""#) == true, "\(lines)")
        #expect(lines.dropFirst(2).first?.contains("message `bad words` from `carol` has been deleted") == true)
        #expect(lines.first?.contains(##"href="#channel=alpha&amp;user=bob""##) == true)

        // The user link's view: bob's month, his line and his timeout.
        let bob = try Self.dom(url + "#channel=alpha&user=bob")
        #expect(bob.contains(#"<p id="status">#alpha · bob · 2025-11 · 3 of 3 lines</p>"#), "\(bob)")
        #expect(Self.items(bob).allSatisfy { $0.contains("bob") || $0.contains("Bob") })

        // Filtered by text, and an older day.
        let filtered = try Self.dom(url + "#channel=alpha&day=2025-11-20&q=BAD")
        #expect(filtered.contains(#"<p id="status">#alpha · 2025-11-20 · 2 of 4 lines</p>"#), "\(filtered)")
        let older = try Self.dom(url + "#channel=alpha&day=2025-11-19")
        #expect(Self.items(older).count == 1)
        #expect(older.contains("yesterday"))

        let artifacts = Fixtures.root + "/.build/test-artifacts"
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        _ = try Self.dom(url + "#channel=alpha&day=2025-11-20", screenshot: artifacts + "/logs-page.png")
        #expect(FileManager.default.fileExists(atPath: artifacts + "/logs-page.png"))
        #expect(chatcap.stop(with: SIGINT) == 0)
    }
}
