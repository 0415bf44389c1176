import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `--recent-messages`: gaps filled from a recent-messages service. The IRC side is `chatcap serve
/// --drop-after` (it closes every connection after so many lines); the service is
/// `Tests/Support/recent_messages_service.py`, a small stdlib HTTP server that records serve's chat
/// the way the real service does (as an IRC client of it, on overlapping connections) or never answers.
@Suite(.serialized) struct BackfillCLITests {
    static let channels = ["pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns", "ottertech", "mossyforge"]
    static let script = Fixtures.root + "/Tests/Support/recent_messages_service.py"

    /// A generated log of the six channels (about 350 lines/s at speed 1), looped by serve.
    static func fixture(in dir: String) throws -> String {
        let path = dir + "/chat.irc"
        let run = try CLI.shell("python3 Scripts/generate_fixtures.py --lines 5000 --out '\(path)'")
        guard run.status == 0 else { throw ServeCLIFailure(description: "generate_fixtures: \(run.stderr)") }
        return path
    }

    /// `(id, channel)` of a PRIVMSG or USERNOTICE line.
    static func message(_ line: Substring) -> (id: Substring, channel: Substring)? {
        let words = line.split(separator: " ", maxSplits: 4)
        guard words.count >= 4, words[2] == "PRIVMSG" || words[2] == "USERNOTICE", words[3].hasPrefix("#"),
            let id = LineTags.value("id", in: line)
        else { return nil }
        return (id, words[3].dropFirst())
    }

    /// What a capture directory holds against what the service recorded of serve's timeline: per
    /// channel, the ids served but not captured while capture was joined (except those the service
    /// received inside `excused` intervals: gaps recorded as not filled, each starting earlier by
    /// capture's delivery lag then, and 100 ms wider on each side), and ids captured more than once.
    ///
    /// A channel is accountable from its first `joined` record (messages serve stamped in a later
    /// millisecond) to its `parted` record (then up to its last message captured before it) or to
    /// the end of the run: the last message, of any channel, that the capture stored, in serve's
    /// order; in the last second before the `stop` record only up to the channel's own last message
    /// (its connection may be read last: what was on the way when the run stopped is not lost). So a
    /// channel that quietly stops being written while the others go on fails the audit; one never
    /// joined fails it whole.
    struct Audit {
        var captured = 0
        var missing = 0
        var doubled = 0
        /// Lines of any type marked historical (recovered).
        var historical = 0
        /// The first few missing: `<tmi-sent-ts> <received by the recorder> <id> #<channel>`.
        var missingFirst: [String] = []
        /// Channel and receive time (the recorder's) of those first few missing.
        var missingAt: [(channel: Substring, ms: Int64)] = []
    }

    struct Served {
        /// When the recorder received it, and when serve played it (its `tmi-sent-ts`; `ms` without one).
        var ms: Int64
        var sentMs: Int64
        var id: Substring
        var channel: Substring
    }

    static func audit(_ dir: String, served: [Served], excused: [Substring: [ClosedRange<Int64>]] = [:]) throws
        -> Audit
    {
        let run = try CLI.run(["replay", dir, "--format", "raw"])
        #expect(run.status == 0, "\(run.stderr)")
        var audit = Audit()
        var count: [Substring: Int] = [:]
        var byChannel: [Substring: [Substring: Int64]] = [:]  // id → receive time
        var joined: [Substring: Int64] = [:]
        var parted: [Substring: Int64] = [:]
        var stopped = Int64.max
        /// (receive time, delivery lag) of every stored message: how late capture read the chat.
        var lags: [(at: Int64, lag: Int64)] = []
        for line in run.text.split(separator: "\r\n") {
            if LineTags.value("historical", in: line) == "1" { audit.historical += 1 }
            let time = LineTags.value("time", in: line).map { wallMs(String($0)) } ?? 0
            let words = line.split(separator: " ", maxSplits: 4)
            if words.count >= 4, words[1] == ":chatcap", words[2] == "CAPTURE", words[3] == "stop" {
                stopped = time
                continue
            }
            if words.count >= 4, words[1] == ":chatcap", words[2] == "CAPTURE",
                words[3] == "joined" || words[3] == "parted",
                words.count == 5, let channel = words[4].split(separator: " ").first, channel.hasPrefix("#")
            {
                let name = channel.dropFirst()
                if words[3] == "joined" {
                    if joined[name] == nil { joined[name] = time }
                } else {
                    parted[name] = time
                }
                continue
            }
            guard let m = message(line) else { continue }
            audit.captured += 1
            count[m.id, default: 0] += 1
            byChannel[m.channel, default: [:]][m.id] = time
            // Live lines only: a recovered line is dated by the service, not by when capture read it.
            if LineTags.value("historical", in: line) != "1",
                let sent = LineTags.value("tmi-sent-ts", in: line).flatMap({ Int64($0) })
            {
                lags.append((time, time - sent))
            }
        }
        audit.doubled = count.values.reduce(0) { $0 + max(0, $1 - 1) }
        let end = served.lastIndex { byChannel[$0.channel]?[$0.id] != nil } ?? -1
        for channel in Set(served.map(\.channel)) {
            let ids = byChannel[channel] ?? [:]
            // A gap starts when capture noticed the connection was gone, which on a busy machine is a
            // delivery lag after serve stopped sending to it: each excused interval starts that much
            // earlier (the largest lag of the messages stored in the 2 s up to its start, the start
            // included: after a stall the last lines before a drop come in one late burst, and it is
            // their lag that tells how far behind capture was), and 100 ms wider on each side.
            let holes = (excused[channel] ?? []).map { gap in
                let lag =
                    lags.lazy.filter { $0.at <= gap.lowerBound && $0.at >= gap.lowerBound - 2_000 }.map(\.lag).max()
                    ?? 0
                return (gap.lowerBound - 100 - max(lag, 0))...(gap.upperBound + 100)
            }
            // After a part, up to the last message captured before it.
            let partEnd = parted[channel].map { part in
                served.lastIndex { $0.channel == channel && (ids[$0.id].map { $0 <= part } ?? false) } ?? -1
            }
            let last = min(end, partEnd ?? end)
            let own = served.lastIndex { $0.channel == channel && ids[$0.id] != nil } ?? -1
            guard last >= 0 else { continue }
            for (index, line) in served[...last].enumerated()
            where line.channel == channel && line.sentMs > (joined[channel] ?? .min) && ids[line.id] == nil
                && !holes.contains(where: { $0.contains(line.ms) }) && (index <= own || line.ms < stopped - 1_000)
            {
                audit.missing += 1
                if audit.missingFirst.count < 5 {
                    audit.missingFirst.append("\(line.sentMs) \(line.ms) \(line.id) #\(channel)")
                    audit.missingAt.append((channel, line.ms))
                }
            }
        }
        return audit
    }

    /// The `gap` records of a capture, as JSON objects.
    static func gaps(_ dir: String) throws -> [[String: Any]] {
        try CLI.run(["replay", dir, "--format", "json", "--type", "gap"]).text.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    /// The gap records of the missing lines' channels within 5 s of them (`from to backfill recovered
    /// reason`, capture's clock in ms): what a failed audit shows, so that a rare miss can be told apart
    /// from an audit's wrong window after the run's directory is gone.
    static func gapsNear(_ gaps: [[String: Any]], _ audit: Audit) -> [String] {
        gaps.filter { gap in
            let channel = Substring(gap["channel"] as? String ?? "")
            let from = wallMs(gap["from"])
            let to = wallMs(gap["to"])
            return audit.missingAt.contains { $0.channel == channel && $0.ms >= from - 5_000 && $0.ms <= to + 5_000 }
        }.map { gap in
            "#\(gap["channel"] ?? "") \(wallMs(gap["from"]))...\(wallMs(gap["to"])) \(gap["backfill"] ?? "-") "
                + "\(gap["recovered"] ?? "-") \(gap["reason"] ?? "")"
        }
    }

    /// What the recorder wrote down of serve's timeline: `<ms>\t<line>` rows.
    static func served(_ log: String) -> [Served] {
        (String(data: FileManager.default.contents(atPath: log) ?? Data(), encoding: .utf8) ?? "")
            .split(separator: "\n").compactMap { row -> Served? in
                let parts = row.split(separator: "\t", maxSplits: 1)
                guard parts.count == 2, let ms = Int64(parts[0]) else { return nil }
                return Self.served(parts[1], at: ms)
            }
    }

    /// A PRIVMSG or USERNOTICE line as served, received at `ms` (its `tmi-sent-ts` is when serve played it).
    static func served(_ line: Substring, at ms: Int64) -> Served? {
        guard let m = message(line) else { return nil }
        let sent = LineTags.value("tmi-sent-ts", in: line).flatMap { Int64($0) } ?? ms
        return Served(ms: ms, sentMs: sent, id: m.id, channel: m.channel)
    }

    /// The gaps a capture says are not filled whole: cut short by the run's end (still open at the
    /// stop, or rejoined just before it: no backfill, or "the session stopped before the service
    /// answered"), or closed only in part or not at all by the service (a busy machine can keep an answer from
    /// catching up before the next drop). Their lines may be missing; every other line may not.
    static func unfilled(_ gaps: [[String: Any]]) -> [[String: Any]] {
        gaps.filter { $0["backfill"] as? String != "closed" }
    }

    /// The gaps ``unfilled(_:)`` finds that neither the run's end nor the next drop explains: every
    /// gap but its channel's last (which the stop may cut short) is closed, or its backfill failed
    /// because the channel dropped again before the service answered (a fresh clone's CI run on a busy
    /// machine: a gap of 264 ms whose wait the next drop ended as "the session stopped before the
    /// service answered", the connection closed, was listed). A partial answer, a service
    /// that did not answer in time, or a gap with no backfill before the end is listed.
    static func unexplained(_ gaps: [[String: Any]]) -> [[String: Any]] {
        var last: [String: Int64] = [:]
        for gap in gaps {
            let channel = gap["channel"] as? String ?? ""
            last[channel] = max(last[channel] ?? .min, wallMs(gap["from"]))
        }
        return unfilled(gaps).filter { gap in
            if wallMs(gap["from"]) == last[gap["channel"] as? String ?? ""] { return false }
            // The next drop came before the answer: it ends the wait as a new gap of the same session
            // ("a new gap began") or, when it closed the connection, as the session's end.
            let error = gap["backfill_error"] as? String ?? ""
            return
                !(gap["backfill"] as? String == "failed"
                && (error.contains("a new gap began before the service answered")
                    || error.contains("the session stopped before the service answered")))
        }
    }

    /// The intervals of `gaps` (`from...to`, capture's clock), per channel: what an audit excuses, once
    /// ``audit(_:served:excused:)`` has widened them.
    static func excused(_ gaps: [[String: Any]]) -> [Substring: [ClosedRange<Int64>]] {
        var excused: [Substring: [ClosedRange<Int64>]] = [:]
        for gap in gaps {
            let channel = Substring(gap["channel"] as? String ?? "")
            excused[channel, default: []].append(Self.wallMs(gap["from"])...Self.wallMs(gap["to"]))
        }
        return excused
    }

    static func wallMs(_ value: Any?) -> Int64 {
        guard let text = value as? String, let date = ISO8601DateFormatter.withFraction.date(from: text) else {
            return 0
        }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The whole loop offline with chatcap on both ends: serve's own `--http-port` is the service (it
    /// answers from the timeline it plays, so it holds what a dropped client missed); the Python
    /// recorder only writes down what serve played, for the audit.
    @Test(
        "capture --recent-messages pointed at serve --http-port: 0 missing, 0 doubled, every rejoin gap closed but a channel's last or one the next drop cut short",
        .timeLimit(.minutes(20)))
    func gapsClosedByServe() throws {
        let dir = try CLITempDirectory.make("backfill-serve")
        defer { CLITempDirectory.remove(dir) }
        let (serve, url) = try ServeRecentMessagesCLITests.serve([
            try Self.fixture(in: dir), "--loop", "--drop-after", "400",
        ])
        defer { _ = serve.stop(with: SIGKILL) }
        let log = dir + "/recorded.log"
        let recorder = Process()
        _ = try startPythonServer(
            recorder, arguments: [Self.script, "record", "\(serve.port)", "60", log] + Self.channels,
            what: "the recorder")
        defer {
            kill(recorder.processIdentifier, SIGKILL)
            recorder.waitUntilExit()
        }
        let capture = try ChatcapProcess(
            ["capture", "--dir", dir + "/with", "--recent-messages", url] + Self.channels + [
                "--host", "127.0.0.1", "--port", "\(serve.port)", "--plain", "--status", "none", "--reconnect-base",
                "0.05", "--reconnect-max", "0.1", "--join-rate", "1000", "--duration", "6",
            ])
        #expect(capture.exitStatus(within: 30) == 0, "\(capture.stderr)")
        let served = Self.served(log)
        let gaps = try Self.gaps(dir + "/with")
        let closed = gaps.filter { $0["backfill"] as? String == "closed" }
        let unfilled = Self.unfilled(gaps)
        #expect(closed.count >= 10, "at least 10 drops, each gap closed: \(gaps.count) gaps")
        #expect(Self.unexplained(gaps).isEmpty, "gaps not closed: \(Self.unexplained(gaps)); closed: \(closed.count)")
        let excused = Self.excused(unfilled)
        let filled = try Self.audit(dir + "/with", served: served, excused: excused)
        #expect(filled.captured > 1_000, "\(filled)")
        #expect(filled.missing == 0, "\(filled); gaps near: \(Self.gapsNear(gaps, filled))")
        #expect(filled.doubled == 0, "\(filled)")
        #expect(filled.historical > 0, "\(filled)")
        // The audit itself: one channel's files cut to their first half, as if it had quietly stopped
        // being written while the others went on, is caught (the audit bounded by each channel's own
        // last line did not catch it).
        let folder = dir + "/with/" + Self.channels[0]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".log.gz") {
            let file = InputShell.quote(folder + "/" + name)
            let cut = try CLI.shell(
                "zcat \(file) > \(file).txt && head -n $(($(wc -l < \(file).txt) / 2)) \(file).txt | gzip > \(file).cut "
                    + "&& mv \(file).cut \(file) && rm \(file).txt")
            #expect(cut.status == 0, "\(cut.stderr)")
        }
        let stopped = try Self.audit(dir + "/with", served: served, excused: excused)
        #expect(stopped.missing > 100, "a channel stopped halfway: \(stopped)")
    }

    @Test(
        "capture behind serve --drop-after with --recent-messages (answers gzip-encoded): 0 missing, 0 doubled, every rejoin gap closed but a channel's last or one the next drop cut short; without it lines are missing",
        .timeLimit(.minutes(20)))
    func gapsClosed() throws {
        let dir = try CLITempDirectory.make("backfill")
        defer { CLITempDirectory.remove(dir) }
        let serve = try ServeProcess([try Self.fixture(in: dir), "--port", "0", "--loop", "--drop-after", "400"])
        defer { _ = serve.stop() }
        let log = dir + "/recorded.log"
        // Its answers come gzip-encoded (issue #35 R6: they were refused as "expected '{' at byte 0").
        let (service, httpPort) = try Self.recordingService(of: serve, log: log, environment: ["RM_GZIP": "1"])
        defer {
            kill(service.processIdentifier, SIGKILL)
            service.waitUntilExit()
        }
        let common =
            Self.channels + [
                "--host", "127.0.0.1", "--port", "\(serve.port)", "--plain", "--status", "none", "--reconnect-base",
                "0.05", "--reconnect-max", "0.1", "--join-rate", "1000", "--duration", "6",
            ]
        let with = try ChatcapProcess(
            ["capture", "--dir", dir + "/with", "--recent-messages", "http://127.0.0.1:\(httpPort)"] + common)
        let without = try ChatcapProcess(["capture", "--dir", dir + "/without"] + common)
        #expect(with.exitStatus(within: 30) == 0, "\(with.stderr)")
        #expect(without.exitStatus(within: 30) == 0, "\(without.stderr)")
        let served = Self.served(log)

        // Every gap that ended with a rejoin says closed and how many lines it recovered. Only the
        // gaps the end of the run cut short are not: still open at the stop (no backfill), or
        // rejoined just before it (the service's answer came too late).
        let gaps = try Self.gaps(dir + "/with")
        let closed = gaps.filter { $0["backfill"] as? String == "closed" }
        let unfilled = Self.unfilled(gaps)
        #expect(closed.count >= 10, "at least 10 drops, each gap closed: \(gaps.count) gaps")
        #expect(Self.unexplained(gaps).isEmpty, "gaps not closed: \(Self.unexplained(gaps)); closed: \(closed.count)")
        let excused = Self.excused(unfilled)

        let filled = try Self.audit(dir + "/with", served: served, excused: excused)
        let holes = try Self.audit(dir + "/without", served: served)
        #expect(filled.captured > 1_000, "\(filled)")
        #expect(filled.missing == 0, "\(filled); gaps near: \(Self.gapsNear(gaps, filled))")
        #expect(filled.doubled == 0, "\(filled)")
        #expect(filled.historical > 0, "\(filled)")
        #expect(holes.missing > 0, "without --recent-messages the drops lose chat: \(holes)")
        #expect(holes.historical == 0)

        let recovered = gaps.compactMap { $0["recovered"] as? Int }
        #expect(recovered.reduce(0, +) == filled.historical)
        let partial = gaps.count { $0["backfill"] as? String == "partial" }
        #expect(with.stderr.contains("asked about: \(closed.count) closed, \(partial) partial"), "\(with.stderr)")
        // The JSON marks exactly the recovered lines.
        let json = try CLI.run(["replay", dir + "/with", "--format", "json"]).text
        #expect(json.split(separator: "\n").count { $0.contains(#","historical":true"#) } == filled.historical)
    }

    @Test(
        "a service whose clock runs ahead past the hour, with lines dated 2100 and 1990: capture goes on, every line once, none in a later file (issue #35 R1)",
        .timeLimit(.minutes(20)))
    func misdatedService() throws {
        let dir = try CLITempDirectory.make("backfill-misdated")
        defer { CLITempDirectory.remove(dir) }
        let serve = try ServeProcess([try Self.fixture(in: dir), "--port", "0", "--loop", "--drop-after", "400"])
        defer { _ = serve.stop() }
        let log = dir + "/recorded.log"
        // The service's clock is past the next hour by two minutes: with hourly files, each of its lines
        // would open the next hour's file.
        let hourMs: Int64 = 3_600_000
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        let skew = hourMs - nowMs % hourMs + 120_000
        let (service, httpPort) = try Self.recordingService(
            of: serve, log: log, environment: ["RM_SKEW_MS": "\(skew)", "RM_ODD_EVERY": "25"])
        defer {
            kill(service.processIdentifier, SIGKILL)
            service.waitUntilExit()
        }
        // Each drop waits up to 0.4 s (full jitter) before the next connection: a few hundred lines are
        // recovered in all, so some are the service's misdated ones (every 25th and 37th of a channel).
        // With waits of up to 0.05 s the gaps held about 45 lines in all, and in one run none of them
        // was misdated: nothing was said, and the two checks of the messages below failed.
        let capture = try ChatcapProcess(
            [
                "capture", "--dir", dir + "/cap", "--rotate", "hourly", "--recent-messages",
                "http://127.0.0.1:\(httpPort)",
            ]
                + Self.channels + [
                    "--host", "127.0.0.1", "--port", "\(serve.port)", "--plain", "--status", "none",
                    "--reconnect-base", "0.4", "--reconnect-max", "0.4", "--join-rate", "1000", "--duration", "6",
                ])
        #expect(capture.exitStatus(within: 30) == 0, "\(capture.stderr)")
        let endMs = Int64(Date().timeIntervalSince1970 * 1000)
        // No file of a later hour than the run's last, none of 2100 or 1990.
        let latest = Self.hourName(endMs)
        let names = (FileManager.default.enumerator(atPath: dir + "/cap")?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".log.gz") }
        #expect(!names.isEmpty)
        for name in names {
            let hour = String(name.split(separator: "/").last!.prefix(13))
            #expect(hour <= latest && hour >= Self.hourName(nowMs), "\(name) is outside the run's hours")
        }
        // Every line once: the 2100 and 1990 lines too, at their gap's edge, said and counted.
        let gaps = try Self.gaps(dir + "/cap")
        let closed = gaps.filter { $0["backfill"] as? String == "closed" }
        #expect(closed.count >= 5, "\(gaps.count) gaps")
        let filled = try Self.audit(dir + "/cap", served: Self.served(log), excused: Self.excused(Self.unfilled(gaps)))
        #expect(filled.captured > 1_000, "\(filled)")
        #expect(filled.missing == 0, "\(filled); gaps near: \(Self.gapsNear(gaps, filled))")
        #expect(filled.doubled == 0, "\(filled)")
        #expect(filled.historical > 0, "\(filled)")
        #expect(capture.stderr.contains("outside that gap (its clock ahead?)"), "\(capture.stderr)")
        #expect(capture.stderr.contains("dated outside"), "\(capture.stderr)")
    }

    /// The recording service (``script`` `record`) on serve's chat with `environment` added, joined
    /// (0.8 s): the process, to stop by PID, and its HTTP port.
    static func recordingService(of serve: ServeProcess, log: String, environment: [String: String]) throws -> (
        Process, Int
    ) {
        let service = Process()
        service.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let port = try startPythonServer(
            service, arguments: [script, "record", "\(serve.port)", "60", log] + channels,
            what: "the recent-messages service")
        return (service, port)
    }

    /// `YYYY-MM-DDTHH` of an instant, as hourly capture files are named.
    static func hourName(_ ms: Int64) -> String {
        String(
            ISO8601DateFormatter.withFraction.string(from: Date(timeIntervalSince1970: Double(ms) / 1000)).prefix(13))
    }

    @Test(
        "a service that never answers: live chat is held at most --recent-messages-wait, the failure said once and counted",
        .timeLimit(.minutes(20)))
    func silentService() throws {
        let dir = try CLITempDirectory.make("backfill-silent")
        defer { CLITempDirectory.remove(dir) }
        let serve = try ServeProcess([try Self.fixture(in: dir), "--port", "0", "--loop", "--drop-after", "150"])
        defer { _ = serve.stop() }
        let service = Process()
        let httpPort = try startPythonServer(service, arguments: [Self.script, "silent"], what: "the silent service")
        defer {
            kill(service.processIdentifier, SIGKILL)
            service.waitUntilExit()
        }
        let started = Date()
        let tail = try ChatcapProcess(
            ["tail"] + Self.channels + [
                "--host", "127.0.0.1", "--port", "\(serve.port)", "--plain", "--format", "raw", "--reconnect-base",
                "0.05", "--reconnect-max", "0.1", "--join-rate", "1000", "--duration", "5", "--recent-messages",
                "http://127.0.0.1:\(httpPort)", "--recent-messages-wait", "0.5",
            ])
        // Each line's arrival on our side against its tmi-sent-ts (serve stamps the moment it sends).
        var lags: [Double] = []
        var pending: [UInt8] = []
        let handle = tail.output.fileHandleForReading
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            let now = Date().timeIntervalSince1970 * 1000
            pending.append(contentsOf: chunk)
            while let lf = pending.firstIndex(of: 0x0A) {
                let line = Substring(String(decoding: pending[..<lf], as: UTF8.self))
                pending.removeSubrange(...lf)
                if Self.message(line) != nil, let sent = LineTags.value("tmi-sent-ts", in: line).flatMap({ Double($0) })
                {
                    lags.append((now - sent) / 1000)
                }
            }
        }
        #expect(tail.exitStatus(within: 10) == 0, "\(tail.stderr)")
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed < 5 + 3, "a silent service does not keep the run from ending: \(elapsed) s")
        #expect(lags.count > 500, "\(lags.count) lines")
        let worst = lags.max() ?? 0
        #expect(worst < 0.5 + 1.0, "no line held past the 0.5 s wait (plus output batching): \(worst) s")
        #expect(worst >= 0.4, "lines after a rejoin were held while the service was asked: \(worst) s")
        let said = tail.stderr.split(separator: "\n").count { $0.contains("could not fill the gap") }
        #expect(said == 1, "\(tail.stderr)")
        // The first failure, said: the wait ran out, or (serve drops a connection every 150 lines, about
        // every 0.4 s) the next drop came first.
        #expect(
            tail.stderr.contains("no answer within 0.5 s")
                || tail.stderr.contains("a new gap began before the service answered"), "\(tail.stderr)")
        let summary = tail.stderr.split(separator: "\n").first { $0.contains("backfill: ") }
        let failed = summary.flatMap {
            $0.split(separator: "0 partial, ").last.flatMap { Int($0.prefix { $0.isNumber }) }
        }
        #expect((failed ?? 0) >= 3, "\(summary ?? "no summary")")
        #expect(summary?.contains("asked about: 0 closed") == true, "\(summary ?? "")")
    }
}

extension ISO8601DateFormatter {
    /// RFC 3339 with milliseconds, as chatcap writes instants.
    nonisolated(unsafe) static let withFraction: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}
