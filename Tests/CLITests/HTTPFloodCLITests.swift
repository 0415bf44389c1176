import ChatTestSupport
import Foundation
import Glibc
import Testing

/// A connection flood on capture's `--http-port` while chat flows (issue R2): 5,000 idle connections
/// from 20 loopback addresses (`Tests/Support/http_flood.py`; 250 each, under the per-address cap),
/// against a capture with descriptors to spare (it raises `ulimit -n` to the hard limit) and one
/// started under `ulimit -n 256`, fewer descriptors than the listener's default connection limit.
///
/// Our own `chatcap serve --from-start` is Twitch: every capture connection gets its channel's whole
/// log from the start, so the ids served are exactly the `id=` tags of the log's lines. The capture
/// pools one channel per connection, opened a second apart, so that connections are still being
/// opened while the flood holds its sockets: before the fix, the listener took every descriptor under
/// `ulimit -n 256` (`socket for 127.0.0.1:…: Too many open files`), and those channels were never
/// captured while the run still exited 0.
@Suite(.serialized) struct HTTPFloodCLITests {
    static let channels = ["pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns", "ottertech", "mossyforge"]
    static let floodScript = Fixtures.root + "/Tests/Support/http_flood.py"
    static let connections = 5_000
    static let sources = 20
    /// The capture's `--duration`: the last connection opens after 5 s and its log takes about 11 s.
    static let durationSeconds = 25.0

    /// The `id` of every PRIVMSG and USERNOTICE in `lines` (raw IRC, CR LF or LF).
    static func ids(_ lines: some StringProtocol) -> Set<Substring> {
        var ids = Set<Substring>()
        for line in lines.split(whereSeparator: \.isNewline) {
            if let message = BackfillCLITests.message(Substring(line)) { ids.insert(message.id) }
        }
        return ids
    }

    /// `http_flood.py`'s counts.
    struct Flood: Decodable {
        var opened: Int
        var connected: Int?
        var refused: Int?
        var pending: Int?
        var shed: Int?
        var error: String?
    }

    /// Starts `http_flood.py` against `port`, holding its connections for `holdSeconds`.
    static func startFlood(port: UInt16, holdSeconds: Double) throws -> (Process, Pipe) {
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [floodScript, "\(port)", "\(connections)", "\(sources)", "\(holdSeconds)"]
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// Waits for a flood started by ``startFlood(port:holdSeconds:)`` and decodes what it counted.
    static func finish(_ flood: (Process, Pipe)) throws -> Flood {
        let data = flood.1.fileHandleForReading.readDataToEndOfFile()
        flood.0.waitUntilExit()
        return try JSONDecoder().decode(Flood.self, from: data)
    }

    @Test(
        "5,000 idle connections on --http-port, with descriptors to spare and under ulimit -n 256: capture runs to its --duration, exits 0, has every id served, and counts the connections its listener shed",
        .timeLimit(.minutes(20)))
    func floodEndsNeitherCaptureNorChat() throws {
        let dir = try CLITempDirectory.make("http-flood")
        defer { CLITempDirectory.remove(dir) }
        let log = dir + "/chat.irc"
        let generated = try CLI.shell("python3 Scripts/generate_fixtures.py --lines 8000 --out '\(log)'")
        try #require(generated.status == 0, "generate_fixtures: \(generated.stderr)")
        let served = Self.ids(try String(contentsOfFile: log, encoding: .utf8))
        try #require(served.count > 5_000)

        let server = try ServeProcess([log, "--port", "0", "--speed", "2", "--from-start"])
        defer { _ = server.stop() }
        let arguments = { (name: String) in
            ["capture"] + Self.channels + [
                "--dir", "\(dir)/\(name)", "--duration", "\(Self.durationSeconds)", "--channels-per-connection", "1",
                "--connect-interval", "1",
            ]
        }
        let started = Date()
        let spare = try LiveHTTPCLITests.Live(arguments("spare"), server: server)
        let scarce = try LiveHTTPCLITests.Live(arguments("scarce"), server: server, descriptorLimit: 256)
        let floods = [
            try Self.startFlood(port: spare.port, holdSeconds: 12),
            try Self.startFlood(port: scarce.port, holdSeconds: 12),
        ]
        let counts = try floods.map(Self.finish)
        for (name, flood) in zip(["spare", "scarce"], counts) {
            #expect(flood.opened == Self.connections && flood.error == nil, "\(name): \(flood)")
            // Shedding answers at once: no connect waits in a full backlog.
            #expect(flood.pending == 0, "\(name): \(flood)")
        }

        for (name, capture) in [("spare", spare), ("scarce", scarce)] {
            // The flood's sockets are closed: the listener answers again.
            let exposition = LiveHTTPCLITests.poll(seconds: 10) { () -> String? in
                let answer = try? ServeRecentMessagesCLITests.curl(capture.url + "/metrics", timeout: 2)
                return answer?.status == 200 ? answer?.body : nil
            }
            let metrics = exposition ?? ""
            #expect(exposition != nil, "\(name): no /metrics after the flood: \(capture.chatcap.stderr)")
            let limit = Self.sample("chatcap_http_connection_limit", in: metrics)
            let shed = Self.sample(#"chatcap_http_connections_refused_total{reason="connection_limit"}"#, in: metrics)
            #expect(limit != nil && shed != nil, "\(name): no listener figures in /metrics")
            if let limit, let shed {
                #expect(limit > 0 && limit <= (name == "scarce" ? 64 : 512), "\(name): connection limit \(limit)")
                // Every connection past the limit was accepted and closed at once, and counted.
                #expect(shed >= Double(Self.connections) - limit, "\(name): \(shed) shed, limit \(limit)")
            }
            #expect(Self.sample("chatcap_channels_joined", in: metrics) == Double(Self.channels.count), "\(name)")
        }

        for (name, capture) in [("spare", spare), ("scarce", scarce)] {
            let status = capture.chatcap.exitStatus(within: Self.durationSeconds + 30)
            let stderr = capture.chatcap.stderr
            #expect(status == 0, "\(name): \(stderr)")
            #expect(Date().timeIntervalSince(started) >= Self.durationSeconds, "\(name) ended before its --duration")
            #expect(stderr.contains("stopped: --duration"), "\(name): \(stderr)")
            // Chat went on: no connection lost or refused for want of a descriptor.
            let disconnects = stderr.split(separator: "\n").filter {
                $0.contains("disconnected:") && !$0.hasSuffix("disconnected: stopped")
            }
            #expect(disconnects.isEmpty, "\(name): \(disconnects)")
            #expect(stderr.contains("connections shed"), "\(name): the summary counts the shed connections: \(stderr)")

            let replay = try CLI.run(["replay", "\(dir)/\(name)", "--format", "raw"])
            #expect(replay.status == 0, "\(replay.stderr)")
            let captured = Self.ids(replay.text)
            let lost = served.subtracting(captured)
            #expect(lost.isEmpty, "\(name): \(lost.count) of \(served.count) ids lost, e.g. \(Array(lost.prefix(3)))")
        }
    }

    /// The value of the sample `name` (labels as written) in an exposition.
    static func sample(_ name: String, in exposition: String) -> Double? {
        LiveHTTPCLITests.sample(name, in: exposition)
    }
}
