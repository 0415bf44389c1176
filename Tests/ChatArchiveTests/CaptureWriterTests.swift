import ChatArchive
import ChatStore
import ChatTestSupport
import Foundation
import IRCWire
import Testing
import TwitchSession

/// `CaptureWriter` with an injected clock: naming, the time tag, day/hour/size rotation, restart
/// appends, flush pacing and write errors.
@Suite(.timeLimit(.minutes(20))) struct CaptureWriterTests {
    static func ms(_ rfc3339: String) -> Int64 { instant(rfc3339).milliseconds }
    static func instant(_ rfc3339: String) -> Timestamp { Timestamp(rfc3339: rfc3339)! }

    static func at(_ rfc3339: String, mono: Int64 = 0) -> Moment { Moment(monotonicMs: mono, wallMs: ms(rfc3339)) }

    static func append(_ writer: CaptureWriter, _ text: String, _ moment: Moment) throws {
        let bytes = Array(text.utf8)
        let message = try TwitchMessage.parse(bytes.span)
        try writer.append(bytes.span, message: message, receivedAt: moment)
    }

    static func zcat(_ path: String) throws -> String {
        let r = try InputShell.run("zcat \(InputShell.quote(path))")
        #expect(r.status == 0, "\(path): \(r.errors)")
        return String(decoding: r.output, as: UTF8.self)
    }

    static func files(_ dir: String) -> [String] {
        (FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".gz") }
            .sorted()
    }

    @Test("rotation parses daily, hourly and sizes")
    func parsesRotation() {
        #expect(CaptureRotation(argument: "daily") == .daily)
        #expect(CaptureRotation(argument: "hourly") == .hourly)
        #expect(CaptureRotation(argument: "100M") == .size(100 << 20))
        #expect(CaptureRotation(argument: "512k") == .size(512 << 10))
        #expect(CaptureRotation(argument: "4096") == .size(4096))
        for bad in ["", "0", "M", "1X", "-1", "weekly", "99999999999999999999G"] {
            #expect(CaptureRotation(argument: bad) == nil, "\(bad)")
        }
    }

    @Test("the time tag is added first, merged into an existing tag section; verbatim keeps the bytes")
    func timeTag() throws {
        let dir = try InputTempDirectory()
        let t = Self.at("2025-11-21T04:26:41.971Z")
        let writer = try CaptureWriter(directory: dir.path)
        try Self.append(writer, "@id=1;tmi-sent-ts=1763699201000 :u!u@u PRIVMSG #Chan :hi there", t)
        try Self.append(writer, ":u!u@u PRIVMSG #chan :no tags", t)
        try Self.append(writer, "PING :tmi.twitch.tv", t)
        try writer.close()
        #expect(
            try Self.zcat(dir.path + "/chan/2025-11-21.log.gz") == """
                @time=2025-11-21T04:26:41.971Z;id=1;tmi-sent-ts=1763699201000 :u!u@u PRIVMSG #Chan :hi there\r
                @time=2025-11-21T04:26:41.971Z :u!u@u PRIVMSG #chan :no tags\r

                """)
        #expect(
            try Self.zcat(dir.path + "/_session/2025-11-21.log.gz")
                == "@time=2025-11-21T04:26:41.971Z PING :tmi.twitch.tv\r\n")
        #expect(writer.channelCounters.first.map { $0.lagSumMs / $0.lagCount } == 971)

        let raw = try InputTempDirectory()
        let verbatim = try CaptureWriter(directory: raw.path, options: CaptureOptions(verbatim: true))
        try Self.append(verbatim, "@id=1 :u!u@u PRIVMSG #chan :hi", t)
        try verbatim.close()
        #expect(try Self.zcat(raw.path + "/chan/2025-11-21.log.gz") == "@id=1 :u!u@u PRIVMSG #chan :hi\r\n")
    }

    @Test("a line received after midnight UTC goes to the next day's file; the old file is closed whole")
    func dayRotation() throws {
        let dir = try InputTempDirectory()
        let writer = try CaptureWriter(directory: dir.path)
        try Self.append(writer, ":u PRIVMSG #c :before", Self.at("2025-12-31T23:59:59.999Z", mono: 0))
        try Self.append(writer, ":u PRIVMSG #c :after", Self.at("2026-01-01T00:00:00.000Z", mono: 1))
        // The old day's file is finished at rotation: gzip -t passes while the writer is still open.
        let old = dir.path + "/c/2025-12-31.log.gz"
        try writer.waitForWrites()
        #expect(try InputShell.run("gzip -t \(InputShell.quote(old))").status == 0)
        try writer.close()
        #expect(Self.files(dir.path) == ["c/2025-12-31.log.gz", "c/2026-01-01.log.gz"])
        #expect(try Self.zcat(old) == "@time=2025-12-31T23:59:59.999Z :u PRIVMSG #c :before\r\n")
        #expect(
            try Self.zcat(dir.path + "/c/2026-01-01.log.gz")
                == "@time=2026-01-01T00:00:00.000Z :u PRIVMSG #c :after\r\n")
    }

    @Test(
        "a line of an earlier period reopens that file, also when its close is still queued: lines going back and forth between days never stop the writer"
    )
    func backAndForthBetweenPeriods() throws {
        let dir = try InputTempDirectory()
        let writer = try CaptureWriter(directory: dir.path)
        let days = ["2025-11-21T10:00:00.000Z", "2100-01-01T00:00:00.000Z", "2025-11-20T23:59:59.000Z"]
        var expected: [String: Int] = [:]
        // Issue #35 R1: today, 2100, today failed with "another writer has the file open" (the first
        // close of today's file was still queued for the writer thread when it was opened again).
        for round in 0..<200 {
            for (i, day) in [days[0], days[round % 2 == 0 ? 1 : 2], days[0]].enumerated() {
                try Self.append(writer, ":u PRIVMSG #c :\(round).\(i)", Self.at(day, mono: Int64(round)))
                expected[String(day.prefix(10)), default: 0] += 1
            }
        }
        try writer.close()
        #expect(Self.files(dir.path) == ["c/2025-11-20.log.gz", "c/2025-11-21.log.gz", "c/2100-01-01.log.gz"])
        for (day, count) in expected {
            let text = try Self.zcat(dir.path + "/c/\(day).log.gz")
            #expect(text.split(separator: "\r\n").count == count, "\(day)")
        }
    }

    @Test("hourly rotation names files YYYY-MM-DDTHH")
    func hourlyRotation() throws {
        let dir = try InputTempDirectory()
        let writer = try CaptureWriter(directory: dir.path, options: CaptureOptions(rotation: .hourly))
        try Self.append(writer, ":u PRIVMSG #c :a", Self.at("2025-11-21T04:59:59.000Z"))
        try Self.append(writer, ":u PRIVMSG #c :b", Self.at("2025-11-21T05:00:00.000Z"))
        try writer.close()
        #expect(Self.files(dir.path) == ["c/2025-11-21T04.log.gz", "c/2025-11-21T05.log.gz"])
    }

    @Test("size rotation continues the day in .0000, .0001 …: name order is time order, every line kept once")
    func sizeRotation() throws {
        let dir = try InputTempDirectory()
        var options = CaptureOptions(rotation: .size(200))
        options.outputCapacity = 64
        let writer = try CaptureWriter(directory: dir.path, options: options)
        var expected = ""
        for i in 0..<200 {
            // Deflate holds output back until a flush; a tick every line flushes (500 ms monotonic apart).
            let t = Self.at("2025-11-21T04:00:00.000Z", mono: Int64(i) * 500).advanced(byMs: Int64(i) * 7)
            try writer.tick(now: t)
            try Self.append(writer, ":u PRIVMSG #c :\(i) \(UInt64(i) &* 0x9E37_79B9_7F4A_7C15)", t)
            expected +=
                "@time=\(t.wall.rfc3339) :u PRIVMSG #c :\(i) \(UInt64(i) &* 0x9E37_79B9_7F4A_7C15)\r\n"
        }
        try writer.close()
        let names = Self.files(dir.path).filter { $0.hasPrefix("c/") }
        // 40 files, past .0009, where a plain number would sort .10 before .2.
        #expect(
            names == (0..<40).map { "c/2025-11-21.\(String(repeating: "0", count: 4 - "\($0)".count))\($0).log.gz" })
        // What `zcat c/*.gz` reads: the names sorted as a shell glob sorts them.
        #expect(try names.sorted().map { try Self.zcat(dir.path + "/" + $0) }.joined() == expected)
        // Restarting goes on in the first file under the limit, not in a full one: all 40 are full
        // (the last one too), so a new one.
        let bytes = { (name: String) in
            (try? FileManager.default.attributesOfItem(atPath: dir.path + "/" + name))?[.size] as? Int ?? 0
        }
        #expect(names.allSatisfy { bytes($0) >= 200 }, "\(names.map(bytes))")
        let again = try CaptureWriter(directory: dir.path, options: options)
        try Self.append(again, ":u PRIVMSG #c :later", Self.at("2025-11-21T05:00:00.000Z"))
        try again.close()
        let after = Self.files(dir.path).filter { $0.hasPrefix("c/") }
        #expect(after == names + ["c/2025-11-21.0040.log.gz"])
        // That one is under the limit: the next restart goes on in it.
        let third = try CaptureWriter(directory: dir.path, options: options)
        try Self.append(third, ":u PRIVMSG #c :later still", Self.at("2025-11-21T05:00:01.000Z"))
        try third.close()
        #expect(Self.files(dir.path).filter { $0.hasPrefix("c/") } == after)
        #expect(
            try Self.zcat(dir.path + "/c/2025-11-21.0040.log.gz")
                == "@time=2025-11-21T05:00:00.000Z :u PRIVMSG #c :later\r\n@time=2025-11-21T05:00:01.000Z :u PRIVMSG #c :later still\r\n"
        )
    }

    @Test("a restart appends a new gzip member; zcat reads both runs")
    func restartAppends() throws {
        let dir = try InputTempDirectory()
        let path = dir.path + "/c/2025-11-21.log.gz"
        let first = try CaptureWriter(directory: dir.path)
        try Self.append(first, ":u PRIVMSG #c :one", Self.at("2025-11-21T01:00:00.000Z"))
        try first.close()
        let firstSize = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        let second = try CaptureWriter(directory: dir.path)
        try Self.append(second, ":u PRIVMSG #c :two", Self.at("2025-11-21T02:00:00.000Z"))
        try second.close()
        let bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        #expect(bytes.count > firstSize)
        #expect(
            Array(bytes[firstSize..<firstSize + 3]) == [0x1F, 0x8B, 0x08],
            "a second gzip member starts where the first ended")
        #expect(
            try Self.zcat(path) == """
                @time=2025-11-21T01:00:00.000Z :u PRIVMSG #c :one\r
                @time=2025-11-21T02:00:00.000Z :u PRIVMSG #c :two\r

                """)
    }

    @Test("tick flushes once the interval has passed, so an unclosed file is readable")
    func flushPacing() throws {
        let dir = try InputTempDirectory()
        let writer = try CaptureWriter(directory: dir.path)
        let path = dir.path + "/c/2025-11-21.log.gz"
        let t = Self.at("2025-11-21T01:00:00.000Z", mono: 10_000)
        try writer.tick(now: t)
        try Self.append(writer, ":u PRIVMSG #c :x", t)
        try writer.tick(now: t.advanced(byMs: 100))
        try writer.waitForWrites()
        #expect(FileManager.default.contents(atPath: path)?.isEmpty ?? true, "not flushed before the interval")
        try writer.tick(now: t.advanced(byMs: 500))
        try writer.waitForWrites()
        let r = try InputShell.run("zcat \(InputShell.quote(path)) 2>/dev/null")
        #expect(String(decoding: r.output, as: UTF8.self) == "@time=2025-11-21T01:00:00.000Z :u PRIVMSG #c :x\r\n")
        try writer.close()
    }

    @Test("a write error names the file, is sticky, and leaves earlier data readable")
    func writeError() throws {
        let dir = try InputTempDirectory()
        var options = CaptureOptions()
        options.outputCapacity = 64
        let writer = try CaptureWriter(directory: dir.path, options: options)
        let t = Self.at("2025-11-21T01:00:00.000Z")
        try Self.append(writer, ":u PRIVMSG #c :kept", t)
        try writer.flushAll()
        try writer.waitForWrites()
        let path = dir.path + "/c/2025-11-21.log.gz"
        let flushed = UInt64(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int)
        // Reopen with a failing writer: the next day's file fails at once.
        writer.injectedFailure = (afterBytes: 0, errno: ENOSPC)
        var thrown: CaptureError? = nil
        do {
            for i in 0..<100 {
                try Self.append(
                    writer, ":u PRIVMSG #c :lost \(i) \(UInt64(i) &* 0x9E37_79B9_7F4A_7C15)",
                    Self.at("2025-11-22T01:00:00.000Z"))
            }
            try writer.flushAll()
        } catch let error as CaptureError { thrown = error }
        let error = try #require(thrown)
        #expect(error.path == dir.path + "/c/2025-11-22.log.gz")
        #expect(error.description.contains("No space left on device"), "\(error)")
        #expect(throws: CaptureError.self) { try writer.tick(now: t.advanced(byMs: 5_000)) }
        #expect(throws: CaptureError.self) { try writer.close() }
        #expect(flushed > 0)
        #expect(try Self.zcat(path) == "@time=2025-11-21T01:00:00.000Z :u PRIVMSG #c :kept\r\n")
    }

    @Test("a directory that cannot be created is reported before anything is written")
    func badDirectory() throws {
        let dir = try InputTempDirectory()
        let file = try dir.write("plain", [1, 2, 3])
        #expect {
            _ = try CaptureWriter(directory: file + "/capture")
        } throws: { error in
            (error as? CaptureError).map { $0.path == file && $0.description.contains("Not a directory") } ?? false
        }
    }

    @Test("session records are IRC lines of our own with the event, target and text")
    func records() throws {
        let dir = try InputTempDirectory()
        let writer = try CaptureWriter(directory: dir.path)
        let t = Self.instant("2025-11-21T01:00:00.000Z")
        try writer.record(.connected(attempt: 2, at: t))
        try writer.record(.gap(Gap(channel: "c", from: t.advanced(byMilliseconds: -1500), to: t, reason: .endOfStream)))
        try writer.close()
        let text = try Self.zcat(dir.path + "/_session/2025-11-21.log.gz")
        #expect(
            text.hasPrefix("@time=2025-11-21T01:00:00.000Z :chatcap CAPTURE connected * :connected (connection 2)\r\n"))
        // Times in RFC 3339 (tags and text), the reason in a tag of its own.
        #expect(
            text.contains(
                "@time=2025-11-21T01:00:00.000Z;gap-from=2025-11-21T00:59:58.500Z;gap-to=2025-11-21T01:00:00.000Z;reason=the\\sserver\\sclosed\\sthe\\sconnection :chatcap CAPTURE gap #c :gap in #c from 2025-11-21T00:59:58.500Z to 2025-11-21T01:00:00.000Z (1500 ms): the server closed the connection\r\n"
            ), "\(text)")
        #expect(writer.reconnects == 1 && writer.gaps == 1)
    }

    @Test(
        "a restart finds the hole: after a stop, from the stop; after a run without stop, a record, and from its last line"
    )
    func previousRun() throws {
        let dir = try InputTempDirectory()
        // Nothing before: nothing to record.
        let none = try CaptureWriter(directory: dir.path)
        #expect(try none.recordPreviousRun(channels: ["c"], at: Self.instant("2025-11-21T00:59:00.000Z")) == nil)
        try none.close()
        let first = try CaptureWriter(directory: dir.path)
        try first.note(event: "start", text: "capture of c started", at: Self.instant("2025-11-21T01:00:00.000Z"))
        try Self.append(first, "PING :tmi.twitch.tv", Self.at("2025-11-21T01:00:04.000Z"))
        try Self.append(first, ":u PRIVMSG #c :one", Self.at("2025-11-21T01:00:05.000Z"))
        try first.close()  // no stop record: as if killed
        let second = try CaptureWriter(directory: dir.path)
        let killed = try second.recordPreviousRun(
            channels: ["c", "new"], at: Self.instant("2025-11-21T01:10:00.000Z"))
        #expect(
            killed
                == CapturePreviousRun(
                    endedWithStop: false, lastLine: Self.instant("2025-11-21T01:00:05.000Z"), channels: ["c"]))
        // The gaps are the session's to record, when each channel is joined (ConnectionMachine.openGap).
        #expect(second.gaps == 0)
        #expect(killed?.gapReason == "capture was not running (the previous run ended without a stop record)")
        try second.note(event: "stop", text: "capture stopped", at: Self.instant("2025-11-21T01:20:00.000Z"))
        try second.close()
        let third = try CaptureWriter(directory: dir.path)
        let stopped = try third.recordPreviousRun(channels: ["c"], at: Self.instant("2025-11-21T01:30:00.000Z"))
        #expect(
            stopped
                == CapturePreviousRun(
                    endedWithStop: true, lastLine: Self.instant("2025-11-21T01:20:00.000Z"), channels: ["c"]))
        #expect(stopped?.gapReason == "capture was not running (stopped, then started again)")
        try third.close()
        #expect(
            try Self.zcat(dir.path + "/_session/2025-11-21.log.gz") == """
                @time=2025-11-21T01:00:00.000Z :chatcap CAPTURE start * :capture of c started\r
                @time=2025-11-21T01:00:04.000Z PING :tmi.twitch.tv\r
                @time=2025-11-21T01:10:00.000Z :chatcap CAPTURE ended-without-stop * :the previous capture run ended without a stop record (killed, crashed or lost power); its last stored line is from 2025-11-21T01:00:05.000Z\r
                @time=2025-11-21T01:20:00.000Z :chatcap CAPTURE stop * :capture stopped\r

                """)
    }

    @Test(
        "the start record lists a short channel list itself; a long one goes in channels records of at most 8,000 bytes of names"
    )
    func startRecord() throws {
        let dir = try InputTempDirectory()
        let writer = try CaptureWriter(directory: dir.path)
        let at = Self.instant("2025-11-21T01:00:00.000Z")
        try writer.recordStart("capture", channels: ["a", "b"], at: at)
        // 7,999 + 1 + 1 bytes: one past the limit, so a second record; a name longer than the limit stands alone.
        let long = String(repeating: "x", count: 9_000)
        let names = [String(repeating: "y", count: 7_999), "z", long, "w"]
        try writer.recordStart("capture (shard 1/2)", channels: names, at: at)
        try writer.close()
        let prefix = "@time=2025-11-21T01:00:00.000Z :chatcap CAPTURE "
        #expect(
            try Self.zcat(dir.path + "/_session/2025-11-21.log.gz") == """
                \(prefix)start * :capture of a b started\r
                \(prefix)start * :capture (shard 1/2) of 4 channels started (listed in the 4 channels records that follow)\r
                \(prefix)channels * :channels 1-1 of 4: \(names[0])\r
                \(prefix)channels * :channels 2-2 of 4: z\r
                \(prefix)channels * :channels 3-3 of 4: \(long)\r
                \(prefix)channels * :channels 4-4 of 4: w\r

                """)
    }

    @Test("a line the parser rejected is stored in the session file as received (time tag added, or verbatim)")
    func unparsedLines() throws {
        let dir = try InputTempDirectory()
        let t = Self.at("2025-11-21T04:26:41.971Z")
        let writer = try CaptureWriter(directory: dir.path)
        let bad: [UInt8] = Array("@a=b".utf8)  // tags and nothing else
        #expect(throws: LineError.self) { try TwitchMessage.parse(bad.span) }
        try writer.appendUnparsed(bad.span, receivedAt: t)
        try writer.appendUnparsed([0xFF, 0x20, 0x01].span, receivedAt: t)
        try writer.close()
        #expect(writer.unparsedLines == 2 && writer.lineCount == 2)
        let stored = try InputShell.run("zcat \(InputShell.quote(dir.path + "/_session/2025-11-21.log.gz"))").output
        #expect(
            stored == Array("@time=2025-11-21T04:26:41.971Z;a=b\r\n@time=2025-11-21T04:26:41.971Z ".utf8) + [
                0xFF, 0x20, 0x01, 13, 10,
            ])

        let raw = try InputTempDirectory()
        let verbatim = try CaptureWriter(directory: raw.path, options: CaptureOptions(verbatim: true))
        try verbatim.appendUnparsed(bad.span, receivedAt: t)
        try verbatim.close()
        #expect(try Self.zcat(raw.path + "/_session/2025-11-21.log.gz") == "@a=b\r\n")
    }

    @Test("the status line and JSON object: per-channel rate and lag, totals, queue, back-pressure, bad lines")
    func statusSnapshot() throws {
        let dir = try InputTempDirectory()
        let writer = try CaptureWriter(directory: dir.path)
        let start = Self.at("2025-11-21T01:00:00.000Z", mono: 1_000)
        var status = CaptureStatus(startedAt: start)
        for i in 0..<30 {
            try Self.append(writer, "@tmi-sent-ts=\(Self.ms("2025-11-21T00:59:59.800Z")) :u PRIVMSG #a :\(i)", start)
        }
        try Self.append(writer, ":u PRIVMSG #b :x", start)
        try Self.append(writer, ":me!me@me JOIN #a", start)
        try writer.record(.connected(attempt: 1, at: start.wall))
        try writer.record(.connected(attempt: 2, at: start.wall))
        try writer.waitForWrites()
        let first = status.snapshot(writer, now: start.advanced(byMs: 2_000), unusableLines: 3)
        let line = first.line(width: 250)
        #expect(line.hasPrefix("32 lines  "), "the summary first: \(line)")
        #expect(line.contains("reconnects 1  gaps 0  unusable 3 | "), "\(line)")
        #expect(line.hasSuffix(" | #a 15.0 msg/s lag 200ms  #b 0.5 msg/s"), "\(line)")
        let json = try JSONSerialization.jsonObject(with: Data(first.json.utf8)) as! [String: Any]
        #expect(json["type"] as? String == "capture_status")
        #expect(json["lines"] as? Int == 32 && json["reconnects"] as? Int == 1 && json["unusable_lines"] as? Int == 3)
        #expect(json["back_pressure_events"] as? Int == 0 && json["queued_bytes"] as? Int == 0)
        #expect(json["buffer_limit"] as? Int == 16 << 20)
        // Without --http-port there are no rings and no budget figure; with it, the entries it trimmed.
        #expect(json["budget_trimmed_entries"] == nil)
        var withRings = first
        withRings.budgetTrimmedEntries = 1_234
        let ringsJSON = try JSONSerialization.jsonObject(with: Data(withRings.json.utf8)) as! [String: Any]
        #expect(ringsJSON["budget_trimmed_entries"] as? Int == 1_234)
        let channels = json["channels"] as! [[String: Any]]
        #expect(channels.map { $0["channel"] as! String } == ["a", "b", "_session"])
        #expect(channels[0]["messages_per_second"] as? Double == 15.0 && channels[0]["mean_lag_ms"] as? Int == 200)
        #expect(
            channels[0]["lines"] as? Int == 31 && channels[0]["messages"] as? Int == 30,
            "a JOIN is a line, not a message")
        // Rates are since the previous snapshot: nothing new in the next second.
        let second = status.snapshot(writer, now: start.advanced(byMs: 3_000))
        #expect(
            second.line(width: 250).hasPrefix("32 lines")
                && second.line(width: 250).hasSuffix(" | #a 0.0 msg/s  #b 0.0 msg/s"),
            "\(second.line(width: 250))")
        #expect(
            CaptureStatus.Snapshot.duration(ms: 31_567_453_788) == "365d"
                && CaptureStatus.Snapshot.duration(ms: 12_345) == "12.3s")
        try writer.close()
    }

    @Test("at most maxOpenFiles files are open: the least recently written is closed and reopened on demand")
    func openFilesBounded() throws {
        let dir = try InputTempDirectory()
        var options = CaptureOptions()
        options.maxOpenFiles = 4
        let writer = try CaptureWriter(directory: dir.path, options: options)
        let t = Self.at("2025-11-21T04:26:41.971Z")
        var peak = 0
        for round in 0..<3 {
            for c in 0..<20 {
                try Self.append(writer, ":u!u@u PRIVMSG #c\(c) :round \(round)", t)
                try Self.append(writer, "PING :tmi.twitch.tv", t)
                peak = max(peak, writer.openFileCount)
            }
        }
        try writer.close()
        #expect(peak <= 4, "\(peak) files open at once")
        for c in 0..<20 {
            let text = try Self.zcat(dir.path + "/c\(c)/2025-11-21.log.gz")
            let rounds = text.split(separator: "\r\n").map { $0.split(separator: " :").last.map(String.init) ?? "" }
            #expect(rounds == ["round 0", "round 1", "round 2"], "#c\(c): \(text)")
        }
        #expect(try Self.zcat(dir.path + "/_session/2025-11-21.log.gz").split(separator: "\r\n").count == 60)
    }

    @Test("with joined channels given, lines of other channels go to _session and are counted")
    func unjoinedChannelsGoToSession() throws {
        let dir = try InputTempDirectory()
        var options = CaptureOptions()
        options.channels = ["#Chan"]
        let writer = try CaptureWriter(directory: dir.path, options: options)
        let t = Self.at("2025-11-21T04:26:41.971Z")
        try Self.append(writer, ":u!u@u PRIVMSG #chan :joined", t)
        for c in 0..<50 { try Self.append(writer, ":u!u@u PRIVMSG #other\(c) :not joined", t) }
        try Self.append(writer, ":u!u@u PRIVMSG #CHAN :joined again", t)
        try writer.close()
        #expect(Self.files(dir.path) == ["_session/2025-11-21.log.gz", "chan/2025-11-21.log.gz"])
        #expect(writer.unjoinedLines == 50)
        #expect(try Self.zcat(dir.path + "/chan/2025-11-21.log.gz").split(separator: "\r\n").count == 2)
        let session = try Self.zcat(dir.path + "/_session/2025-11-21.log.gz")
        #expect(session.split(separator: "\r\n").count == 50 && session.contains("PRIVMSG #other49 :not joined"))
    }

    @Test("every back-pressure event is stored in _session, also those after the last tick and while closing")
    func everyBackPressureEventStored() throws {
        let dir = try InputTempDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/c", withIntermediateDirectories: true)
        let fifo = dir.path + "/c/2025-11-21.log.gz"
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = SlowPipeReader(path: fifo, chunk: 8192, pauseMs: 2)
        var options = CaptureOptions()
        options.level = 0
        options.outputCapacity = 4096
        options.bufferLimit = 16 * 1024
        let writer = try CaptureWriter(directory: dir.path, options: options)
        let noise = String(repeating: "x", count: 400)
        var mono: Int64 = 0
        for i in 0..<3000 {
            try Self.append(writer, ":u!u@u PRIVMSG #c :\(i) \(noise)", Self.at("2025-11-21T04:26:41.971Z", mono: mono))
            if i % 50 == 0 {
                mono += 100
                try writer.tick(now: Self.at("2025-11-21T04:26:41.971Z", mono: mono))
            }
        }
        // More events after the last tick.
        let afterTick = writer.backPressure.events
        // Bounded: a writer that never stops for back-pressure fails here instead of looping for ever.
        for i in 0..<100_000 where writer.backPressure.events == afterTick {
            try Self.append(writer, ":u!u@u PRIVMSG #c :more \(i) \(noise)", Self.at("2025-11-21T04:26:41.971Z"))
        }
        try #require(writer.backPressure.events > afterTick, "no back-pressure event after the last tick")
        try writer.close()
        _ = reader.join()
        let events = writer.backPressure.events
        #expect(events > 1)
        // Records carry the time they happened (now), so they may be in another day's file.
        let session = try Self.files(dir.path + "/_session").map { try Self.zcat(dir.path + "/_session/" + $0) }
            .joined()
        let stored = session.split(separator: "\r\n").filter { $0.contains(" :chatcap CAPTURE back-pressure * :") }
        #expect(stored.count == events, "\(stored.count) of \(events) events stored")
    }

    @Test("a disconnection flushes every file at once, without waiting for the next tick")
    func disconnectFlushes() throws {
        let dir = try InputTempDirectory()
        let writer = try CaptureWriter(directory: dir.path)
        let t = Self.at("2025-11-21T01:00:00.000Z", mono: 10_000)
        try writer.tick(now: t)
        try Self.append(writer, ":u PRIVMSG #c :before the break", t)
        let path = dir.path + "/c/2025-11-21.log.gz"
        try writer.waitForWrites()
        #expect(FileManager.default.contents(atPath: path)?.isEmpty ?? true, "not flushed yet")
        try writer.record(.disconnected(.endOfStream, at: t.wall.advanced(byMilliseconds: 10)))
        try writer.waitForWrites()
        let r = try InputShell.run("zcat \(InputShell.quote(path)) 2>/dev/null")
        #expect(
            String(decoding: r.output, as: UTF8.self)
                == "@time=2025-11-21T01:00:00.000Z :u PRIVMSG #c :before the break\r\n")
        try writer.close()
    }
}
