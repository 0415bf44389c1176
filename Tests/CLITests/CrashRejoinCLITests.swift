import ChatTestSupport
import Foundation
import Glibc
import Testing

/// kill -9 of a capture while some of its channels are still rejoining (issue #35 R3): `serve
/// --drop-after` closes every connection after so many lines, capture keeps one channel a connection
/// and waits before it reconnects, so at most moments some channels are between a drop and their
/// rejoin. A restart's gap for such a channel must start at that channel's own last stored line, not
/// at the newest line of the whole run (the other channels went on): every id serve played while a run
/// was joined is in a file or inside a recorded gap (``CrashIdAudit``), per channel, with the backfill
/// on as in production.
@Suite(.serialized, .timeLimit(.minutes(20))) struct CrashRejoinCLITests {
    static let channels = ["pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns", "ottertech", "mossyforge"]
    static var cycles: Int { ProcessInfo.processInfo.environment["CRASH_CYCLES"].flatMap { Int($0) } ?? 6 }

    @Test("kill -9 while channels rejoin, with backfill: every id served is stored or inside a gap, per channel")
    func killWhileRejoining() throws {
        let dir = try CLITempDirectory.make("crash-rejoin")
        let keep = CLITempDirectory.keeps
        defer { CLITempDirectory.remove(dir) }
        let serve = try ServeProcess([
            try BackfillCLITests.fixture(in: dir), "--port", "0", "--loop", "--drop-after", "100",
        ])
        defer { _ = serve.stop(with: SIGKILL) }
        // The service records what serve plays on overlapping connections (it is dropped too, and misses
        // nothing), and answers the backfill.
        let log = dir + "/recorded.log"
        let service = Process()
        let httpPort = try startPythonServer(
            service,
            arguments: [BackfillCLITests.script, "record", "\(serve.port)", "40", log] + Self.channels,
            what: "the recent-messages service")
        defer {
            kill(service.processIdentifier, SIGKILL)
            service.waitUntilExit()
        }
        let capture =
            [
                "capture", "--dir", "\(dir)/cap", "--host", "127.0.0.1", "--port", "\(serve.port)", "--plain",
                "--status", "none", "--channels-per-connection", "1", "--join-rate", "1000", "--connect-interval",
                "0.05",
                // A dropped channel waits 2 s before its connection is opened again: about a third of the
                // time, a channel is between a drop and its rejoin.
                "--reconnect-base", "2", "--reconnect-max", "2",
                "--recent-messages", "http://127.0.0.1:\(httpPort)", "--recent-messages-wait", "1",
            ] + Self.channels
        var kills: [Int64] = []
        var generator = SystemRandomNumberGenerator()
        for cycle in 0...Self.cycles {
            let run = try ChatcapProcess(capture)
            // Until every channel has chat in this run's files, then at a random moment.
            let before = Self.channels.map { CrashRepairCLITests.chatBytes(in: "\(dir)/cap", channel: $0) }
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline && run.isRunning
                && zip(Self.channels, before).contains(where: {
                    CrashRepairCLITests.chatBytes(in: "\(dir)/cap", channel: $0) <= $1
                })
            {
                usleep(20_000)
            }
            try #require(run.isRunning, "run \(cycle) ended: \(run.stderr)")
            usleep(UInt32.random(in: 500_000...4_000_000, using: &generator))
            if cycle < Self.cycles {
                kills.append(Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
                _ = run.stop(with: SIGKILL)
            } else {
                #expect(run.stop(with: SIGINT) == 0, "the last run stops cleanly: \(run.stderr)")
            }
        }
        kill(service.processIdentifier, SIGTERM)
        usleep(300_000)
        let played = Self.rows(log)

        var ids = CrashIdAudit()
        // A restart's backfill recognises the last lines the run before stored: none is written twice.
        var seen = Set<Substring>()
        var doubled = 0
        for channel in Self.channels + ["_session"] {
            let folder = "\(dir)/cap/\(channel)"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasSuffix(".gz")
            {
                let text = try InputShell.run("zcat \(InputShell.quote("\(folder)/\(name)"))").output
                for line in String(decoding: text, as: UTF8.self).components(separatedBy: "\r\n").dropLast() {
                    ids.take(Substring(line))
                    if let id = BackfillCLITests.message(Substring(line))?.id, !seen.insert(id).inserted {
                        doubled += 1
                    }
                }
            }
        }
        let audit = ids.audit(played: played, kills: kills)
        if keep {
            try kills.map { "\($0)\n" }.joined().write(toFile: "\(dir)/kills.txt", atomically: true, encoding: .utf8)
        }
        print("CrashRejoinCLITests, \(Self.cycles) kills: \(audit)")
        #expect(audit.required > 1_000 && audit.stored > 1_000, "\(audit)")
        #expect(audit.missingCount == 0, "\(audit)")
        #expect(doubled == 0, "\(doubled) ids stored twice")
    }

    /// The service's `<ms>\t<line>` rows as played messages: `tmi-sent-ts`, `id` and channel of each
    /// PRIVMSG or USERNOTICE, sorted by `tmi-sent-ts` (stable).
    static func rows(_ log: String) -> [CrashIdAudit.Played] {
        let text = String(data: FileManager.default.contents(atPath: log) ?? Data(), encoding: .utf8) ?? ""
        let rows = text.split(separator: "\n").compactMap { row -> CrashIdAudit.Played? in
            let parts = row.split(separator: "\t", maxSplits: 1)
            guard parts.count == 2, let m = BackfillCLITests.message(parts[1]),
                let sent = LineTags.value("tmi-sent-ts", in: parts[1]).flatMap({ Int64($0) })
            else { return nil }
            return CrashIdAudit.Played(sentMs: sent, id: String(m.id), channel: String(m.channel))
        }
        return rows.enumerated().sorted { ($0.element.sentMs, $0.offset) < ($1.element.sentMs, $1.offset) }
            .map(\.element)
    }
}
