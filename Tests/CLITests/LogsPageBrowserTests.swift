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

    /// Two days of #alpha: a line with markup, a message deleted by a CLEARMSG, a timeout of bob; a
    /// day before it.
    static func archive() throws -> InputTempDirectory {
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
        return dir
    }

    /// `chatcap logs` over `dir`, and its URL; `nil` (with the issue recorded) when it does not start.
    static func serve(_ dir: InputTempDirectory) throws -> (ChatcapProcess, String)? {
        let chatcap = try ChatcapProcess(["logs", "--dir", dir.path, "--http-port", "0"])
        guard chatcap.waitForStderr(containing: "listening on http://127.0.0.1:", timeoutMs: 20_000),
            let match = chatcap.stderr.firstMatch(of: #/listening on (http://127\.0\.0\.1:\d+/)/#)
        else {
            _ = chatcap.stop(with: SIGKILL)
            Issue.record("no 'listening on' line: \(chatcap.stderr)")
            return nil
        }
        return (chatcap, String(match.1))
    }

    @Test(
        "the page loads a channel's day, marks a deleted message and a timed-out user, filters, follows a user link",
        .timeLimit(.minutes(20)))
    func browse() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.chromium) else {
            Issue.record("\(Self.chromium) is missing: make deps installs Debian's chromium")
            return
        }
        let dir = try Self.archive()
        guard let (chatcap, url) = try Self.serve(dir) else { return }

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

    /// What `Tests/Support/logs_page_selenium.py` saw at one step.
    struct View: Decodable {
        var status: String
        var lines: [String]
        var hash: String
    }

    /// The deleted message's line as selenium read it.
    struct Deleted: Decodable {
        var `class`: String
        var text: String
        var decoration: String
        var marker: String
    }

    struct Clicks: Decodable {
        var day: View?
        var deleted: [Deleted]?
        var filtered: View?
        var user: View?
        var linkHref: String?
        var link: View?
        var older: View?
        var error: String?
        var lastStatus: String?
    }

    @Test(
        "selenium in chromium: the day, a deleted message as deleted, filters by text and user, a link, older",
        .timeLimit(.minutes(20)))
    func clicks() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            try InputShell.run("python3 -c 'import selenium'").status == 0
        else {
            Issue.record("chromium-driver or selenium is missing: make deps installs them")
            return
        }
        let dir = try Self.archive()
        guard let (chatcap, url) = try Self.serve(dir) else { return }
        let artifacts = Fixtures.root + "/.build/test-artifacts"
        try FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
        let process = Process()
        let output = Pipe()
        // The python3 on PATH: the one `make deps` pip-installs selenium into.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixtures.root + "/Tests/Support/logs_page_selenium.py", url, artifacts]
        // chromium-driver's throwaway profile and chromium's folder for its singleton socket go to TMPDIR:
        // a directory of the test's own, removed when the test ends (chromium left its
        // org.chromium.Chromium.* folder behind in /tmp after every run, once the driver quit). Right
        // under /tmp, whatever TMPDIR is: the socket's path must fit in sockaddr_un's 108 bytes.
        var template = Array("/tmp/chatcap-chromium.XXXXXX".utf8CString)
        let browserTemp = try #require(mkdtemp(&template).map { String(cString: $0) }, "mkdtemp: errno \(errno)")
        defer { try? FileManager.default.removeItem(atPath: browserTemp) }
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": browserTemp]) { $1 }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seen = try JSONDecoder().decode(Clicks.self, from: data)
        #expect(seen.error == nil, "\(seen.error ?? "") (status: \(seen.lastStatus ?? "?"))")

        let day = try #require(seen.day)
        #expect(day.status == "#alpha · 2025-11-20 · 4 of 4 lines")
        #expect(day.lines.count == 4)
        // The view chosen by default is in the URL: shareable, and what the filter filters.
        #expect(day.hash == "#channel=alpha&day=2025-11-20")
        // The deleted message: struck through, marked, the CLEARMSG's line saying what was deleted.
        let deleted = try #require(seen.deleted)
        #expect(deleted.count == 1)
        #expect(deleted.first?.text == "bad words")
        #expect(deleted.first?.class.split(separator: " ").contains("deleted") == true)
        #expect(deleted.first?.decoration == "line-through")
        #expect(deleted.first?.marker == #"" (deleted)""#)
        #expect(day.lines.contains { $0.contains("message `bad words` from `carol` has been deleted") })

        let filtered = try #require(seen.filtered)
        #expect(filtered.status == "#alpha · 2025-11-20 · 2 of 4 lines")
        #expect(filtered.lines.allSatisfy { $0.lowercased().contains("bad") })
        #expect(filtered.hash.contains("q=BAD"))

        // Typed into the user box: carol's month, her lines only, in the URL.
        let user = try #require(seen.user)
        #expect(user.status.hasPrefix("#alpha · carol · 2025-11 · "))
        #expect(!user.lines.isEmpty && user.lines.allSatisfy { $0.contains("Carol:") }, "\(user.lines)")
        #expect(user.hash.contains("user=carol"))

        // Bob's name followed: his month, by a link that can be shared.
        #expect(seen.linkHref?.hasSuffix("#channel=alpha&user=bob") == true, "\(seen.linkHref ?? "")")
        let link = try #require(seen.link)
        #expect(link.status == "#alpha · bob · 2025-11 · 3 of 3 lines")
        #expect(link.hash == "#channel=alpha&day=2025-11&user=bob")

        let older = try #require(seen.older)
        #expect(older.status == "#alpha · 2025-11-19 · 1 of 1 lines")
        #expect(older.lines.first?.contains("yesterday") == true)

        for shot in ["logs-page-deleted.png", "logs-page-user.png"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: artifacts + "/" + shot)[.size] as? Int) ?? 0
            #expect(size > 1_000, "\(shot) kept")
        }
        #expect(chatcap.stop(with: SIGINT) == 0)
    }
}
