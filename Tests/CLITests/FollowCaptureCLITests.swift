import ChatTestSupport
import Foundation
import Testing

/// `replay DIR --follow` beside a capture that is still writing `DIR` (issue 23, item 6): real
/// processes on 127.0.0.1 — `serve` plays a generated log of six channels at a few hundred lines/s,
/// `capture` writes it, the follower reads the directory — and `Tests/Support/appearance_watch.py`
/// notes when each line appears on disk (decoded by zlib up to capture's last flush) and in the
/// follower's output.
@Suite(.serialized, .timeLimit(.minutes(20))) struct FollowCaptureCLITests {

    static let channels = ["pixelharbor", "lunafrost", "grimfang_tv", "velvetspeedruns", "ottertech", "mossyforge"]

    struct Appearance: Decodable {
        var pairs: [[Double?]]
        var diskLines: Int
        var followerLines: Int
        var followerNotOnDisk: Int
        var files: Int
    }

    /// The lines of a raw output, without their CRLF.
    static func lines(_ bytes: [UInt8]) -> [String] {
        FramerVerifier.oracleLines(bytes).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The value below which `fraction` of the sorted `values` lie.
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    @Test(
        "replay DIR --follow of a live capture: lines follow capture's flushes (median within 1.5 s), none waits for the stop; every line once it stops",
        .timeLimit(.minutes(20)),
        arguments: [
            (rotate: "daily", speed: "0.5", seconds: 8.0),
            // Size rotation: new files replace old ones in each busy channel while the follower reads.
            (rotate: "64K", speed: "1", seconds: 10.0),
        ])
    func followsLiveCapture(rotate: String, speed: String, seconds: Double) throws {
        let dir = try CLITempDirectory.make("follow-capture")
        defer { CLITempDirectory.remove(dir) }
        let generated = try CLI.shell("python3 Scripts/generate_fixtures.py --lines 20000 --out '\(dir)/feed.irc'")
        try #require(generated.status == 0, "\(generated.stderr)")
        // 20,000 lines over 55 s of chat: about 180 lines/s at speed 0.5, 365 at speed 1.
        let server = try ServeProcess.onFreePort(["\(dir)/feed.irc", "--speed", speed, "--loop"])
        defer { server.kill() }
        let cap = "\(dir)/cap"
        let capture = try ChatcapProcess(
            ["capture"] + Self.channels + [
                "--dir", cap, "--host", "127.0.0.1", "--port", "\(server.port)", "--plain", "--status", "none",
                "--rotate", rotate, "--level", "1",
            ])
        // The follower starts once capture has written its first files (replay needs a log to start).
        var waited = 0
        while waited < 100 && (try? Self.captureFiles(cap))?.isEmpty != false {
            usleep(100_000)
            waited += 1
        }
        let output = "\(dir)/follower.out"
        let follower = try ChatcapProcess(["replay", cap, "--follow", "--format", "raw"], stdoutFile: output)
        let stopFile = "\(dir)/stop"
        let resultFile = "\(dir)/appearance.json"
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        watcher.arguments = [
            "python3", Fixtures.root + "/Tests/Support/appearance_watch.py", cap, output, stopFile, resultFile,
        ]
        try watcher.run()
        defer { if watcher.isRunning { kill(watcher.processIdentifier, SIGKILL) } }

        Thread.sleep(forTimeInterval: seconds)
        #expect(capture.stop(with: SIGINT) == 0, "\(capture.stderr)")
        // The follower has 1 s (FollowMode.settle) plus a poll to write what capture flushed last.
        Thread.sleep(forTimeInterval: 3)
        _ = FileManager.default.createFile(atPath: stopFile, contents: nil)
        watcher.waitUntilExit()
        #expect(follower.stop(with: SIGINT) == 0, "\(follower.stderr)")
        #expect(!follower.stderr.contains("truncated"), "\(follower.stderr)")

        // Every line of the finished capture was written by the follower, once; nothing else was.
        let finished = try CLI.run(["replay", cap, "--format", "raw"])
        #expect(finished.status == 0, "\(finished.stderr)")
        let expected = Self.lines(finished.stdout)
        let written = Self.lines(Array(FileManager.default.contents(atPath: output) ?? Data()))
        #expect(expected.count > Int(seconds) * 100, "only \(expected.count) lines captured")
        #expect(written.count == expected.count, "follower wrote \(written.count) of \(expected.count) lines")
        #expect(written.sorted() == expected.sorted())
        // In time order (equal times may come in another order: the merge breaks ties by input, and
        // a rotation's file joins the follower's list last).
        let times = written.map { $0.prefix(6 + 24) }
        #expect(times.allSatisfy { $0.hasPrefix("@time=") && $0.hasSuffix("Z") })
        let backwards = zip(times, times.dropFirst()).filter { $0.1 < $0.0 }.count
        #expect(backwards == 0, "\(backwards) lines written before an earlier one")
        // Capture's own records and each file's last line are among them.
        #expect(written.contains { $0.contains(":chatcap CAPTURE stop ") }, "no stop record")
        #expect(written.filter { $0.contains(":chatcap CAPTURE disconnected ") }.count >= 1, "no disconnected record")

        // Lag: from a line's appearance on disk to its appearance in the follower's output.
        let appearance = try JSONDecoder().decode(
            Appearance.self, from: try #require(FileManager.default.contents(atPath: resultFile)))
        #expect(appearance.followerNotOnDisk == 0)
        let lags = appearance.pairs.compactMap { pair -> Double? in
            guard let disk = pair[0], let followed = pair[1] else { return nil }
            return followed - disk
        }
        #expect(lags.count == appearance.diskLines, "\(appearance.diskLines - lags.count) lines never followed")
        try #require(lags.count > 100)
        let p99 = Self.percentile(lags, 0.99)
        let worst = lags.max()!
        print(
            "follow lag (\(rotate)): median \(Self.percentile(lags, 0.5)) s, p99 \(p99) s, max \(worst) s; "
                + "\(appearance.files) files, \(lags.count) lines")
        // Following, not waiting for the stop: on a quiet machine the median is 0.74-0.79 s, the p99
        // 1.05-1.10 s and the worst 1.09-1.13 s (eight fresh-clone runs); a loaded one added 0.8 s to
        // the p99 (1.86 s). A follower that read only at a rotation or at the end would leave lines
        // for most of the run (8-10 s): bounds far from both.
        let median = Self.percentile(lags, 0.5)
        #expect(median <= 1.5, "median lag \(median) s")
        #expect(p99 <= 4, "p99 lag \(p99) s")
        #expect(worst <= 6, "worst lag \(worst) s")
        if rotate != "daily" {
            #expect(appearance.files > Self.channels.count + 1, "no rotation in \(appearance.files) files")
        }
    }

    /// The capture's log files so far (`.gz` below `dir`).
    static func captureFiles(_ dir: String) throws -> [String] {
        let all = FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []
        return all.filter { $0.hasSuffix(".log.gz") }
    }
}
