import ChatGzip
import ChatInput
import ChatPosix
import ChatTestSupport
import Foundation
import Synchronization
import Testing

/// A ``MergeReader`` following a directory that is still being written (`replay DIR --follow`): no
/// quiet file holds the others back, files that appear join (a new channel, a rotation), and when
/// following ends every file's last line comes out, also one without a line end.
@Suite(.timeLimit(.minutes(20))) struct MergeReaderFollowTests {
    /// Times a minute ago, so that the merge's settle time has long passed for every line.
    static let t0 = Int64(Date().timeIntervalSince1970 * 1000) - 60_000

    static func line(_ name: String, _ offsetMs: Int64, channel: String) -> String {
        let date = Date(timeIntervalSince1970: Double(t0 + offsetMs) / 1000)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return "@time=\(formatter.string(from: date)) :u!u@u PRIVMSG #\(channel) :\(name)"
    }

    static func append(_ path: String, _ text: String) {
        let handle = FileHandle(forWritingAtPath: path)!
        handle.seekToEndOfFile()
        handle.write(Data(text.utf8))
        handle.closeFile()
    }

    @Test(
        "a followed directory: quiet files hold nothing back, new channels and rotations join, last lines come out",
        .timeLimit(.minutes(20)))
    func followsDirectory() throws {
        let dir = try InputTempDirectory()
        let a10 = try dir.write(
            "a/2025-11-21T10.log",
            Array((Self.line("a1", 0, channel: "a") + "\r\n" + Self.line("a2", 1_000, channel: "a") + "\r\n").utf8))
        let session = try dir.write(
            "_session/2025-11-21.log", Array((Self.line("s1", 500, channel: "x") + "\r\n").utf8))
        let stop = StopFlag()
        let seen = Mutex<[String]>([])
        /// Waits (at most 10 s) until `count` lines were handed out.
        @Sendable func reached(_ count: Int) -> Bool {
            for _ in 0..<1_000 {
                if seen.withLock({ $0.count }) >= count { return true }
                usleep(10_000)
            }
            return false
        }
        let writer = InputBackgroundThread {
            guard reached(3) else { return stop.raise() }
            // More in a file already read, a new channel, and the next hour's file of `a`.
            Self.append(a10, Self.line("a3", 2_000, channel: "a") + "\r\n")
            _ = try? dir.write("b/2025-11-21T10.log", Array((Self.line("b1", 3_000, channel: "b") + "\r\n").utf8))
            _ = try? dir.write("a/2025-11-21T11.log", Array((Self.line("a4", 4_000, channel: "a") + "\r\n").utf8))
            guard reached(6) else { return stop.raise() }
            // A record, and a last line without a line end (written when following ends).
            Self.append(session, Self.line("s2", 5_000, channel: "x") + "\r\n")
            Self.append(dir.path + "/b/2025-11-21T10.log", Self.line("b2", 6_000, channel: "b"))
            guard reached(7) else { return stop.raise() }
            usleep(300_000)  // b2 is not handed out while following: its line may go on
            stop.raise()
        }
        var follow = FollowMode(pollInterval: .milliseconds(20), stop: stop, deadline: .now + .seconds(30))
        follow.rescanInterval = .milliseconds(50)
        let reader = try MergeReader(arguments: [dir.path], follow: follow)
        var stoppedAt: Int? = nil
        while reader.next({ event, bytes in
            guard case .line = event else {
                Issue.record("\(event.diagnostic)")
                return
            }
            var copy: [UInt8] = []
            for i in bytes.indices { copy.append(bytes[i]) }
            let text = String(decoding: copy, as: UTF8.self)
            if stop.isRaised && stoppedAt == nil { stoppedAt = seen.withLock { $0.count } }
            seen.withLock { $0.append(String(text.split(separator: ":").last!)) }
        }) {}
        writer.join()
        #expect(seen.withLock { $0 } == ["a1", "s1", "a2", "a3", "b1", "a4", "s2", "b2"])
        #expect(stoppedAt == 7, "b2 came out only when following ended")
        #expect(
            reader.paths.map { $0.split(separator: "/").suffix(2).joined(separator: "/") }.sorted() == [
                "_session/2025-11-21.log", "a/2025-11-21T10.log", "a/2025-11-21T11.log", "b/2025-11-21T10.log",
            ])
    }

    @Test("a followed directory without logs yet is waited on, not refused", .timeLimit(.minutes(20)))
    func waitsForFirstLog() throws {
        let dir = try InputTempDirectory()
        try FileManager.default.createDirectory(atPath: dir.path + "/cap", withIntermediateDirectories: true)
        #expect(throws: InputError.noLogs(directory: dir.path + "/cap")) {
            try MergeReader(arguments: [dir.path + "/cap"])
        }
        let stop = StopFlag()
        var follow = FollowMode(pollInterval: .milliseconds(20), stop: stop, deadline: .now + .seconds(30))
        follow.rescanInterval = .milliseconds(50)
        let reader = try MergeReader(arguments: [dir.path + "/cap"], follow: follow)
        let writer = InputBackgroundThread {
            usleep(200_000)
            _ = try? dir.write("cap/c/2025-11-21.log", Array((Self.line("late", 0, channel: "c") + "\r\n").utf8))
        }
        var lines = 0
        while reader.next({ event, _ in
            if case .line = event { lines += 1 }
            stop.raise()
        }) {}
        writer.join()
        #expect(lines == 1)
    }

    @Test(
        "a rotation: the chain moves to the next gzip file only once capture has finished the one before",
        .timeLimit(.minutes(20)))
    func rotationWaitsForTheFinishedMember() throws {
        let dir = try InputTempDirectory()
        let hour10 = try dir.file("c/2025-11-21T10.log.gz")
        let hour11 = try dir.file("c/2025-11-21T11.log.gz")
        let stop = StopFlag()
        let seen = Mutex<[String]>([])
        @Sendable func reached(_ count: Int) -> Bool {
            for _ in 0..<1_000 {
                if seen.withLock({ $0.count }) >= count { return true }
                usleep(10_000)
            }
            return false
        }
        @Sendable func bytes(_ name: String, _ offsetMs: Int64) -> [UInt8] {
            Array((Self.line(name, offsetMs, channel: "c") + "\r\n").utf8)
        }
        // The first member is flushed (l1) and left open, as capture's is between two flushes.
        let first = try GzipWriter(path: hour10)
        try first.write(bytes("l1", 0).span)
        try first.flush()
        nonisolated(unsafe) let open = first
        let writer = InputBackgroundThread {
            defer { stop.raise() }
            guard reached(1) else { return }
            // The next hour's file appears (with l3) while the last lines of the old one are still to come,
            // as when capture's writer thread finishes the old member after the new file was opened.
            guard let next = try? GzipWriter(path: hour11) else { return }
            try? next.write(bytes("l3", 2_000).span)
            try? next.flush()
            usleep(400_000)
            try? open.write(bytes("l2", 1_000).span)
            try? open.close()
            _ = reached(3)
            try? next.close()
        }
        var follow = FollowMode(pollInterval: .milliseconds(20), stop: stop, deadline: .now + .seconds(30))
        follow.rescanInterval = .milliseconds(50)
        let reader = try MergeReader(arguments: [dir.path], follow: follow)
        while reader.next({ event, bytes in
            guard case .line = event else {
                Issue.record("\(event.diagnostic)")
                return
            }
            var copy: [UInt8] = []
            for i in bytes.indices { copy.append(bytes[i]) }
            seen.withLock { $0.append(String(String(decoding: copy, as: UTF8.self).split(separator: ":").last!)) }
        }) {}
        writer.join()
        #expect(seen.withLock { $0 } == ["l1", "l2", "l3"])
    }

    @Test(
        "a rotated gzip file left unfinished (a capture killed) is given up after the grace: truncated, its partial line counted",
        .timeLimit(.minutes(20)))
    func unfinishedFileIsGivenUp() throws {
        let dir = try InputTempDirectory()
        let partial = "@time=2025-11-21T10:59:59.999Z :u!u@u PRIVMSG #c :cut"
        let first = try GzipWriter(path: try dir.file("c/2025-11-21T10.log.gz"))
        try first.write(Array((Self.line("l1", 0, channel: "c") + "\r\n" + partial).utf8).span)
        try first.flush()
        let next = try GzipWriter(path: try dir.file("c/2025-11-21T11.log.gz"))
        try next.write(Array((Self.line("l3", 2_000, channel: "c") + "\r\n").utf8).span)
        try next.flush()
        let stop = StopFlag()
        var follow = FollowMode(pollInterval: .milliseconds(20), stop: stop, deadline: .now + .seconds(30))
        follow.rescanInterval = .milliseconds(50)
        let reader = try MergeReader(arguments: [dir.path], follow: follow)
        var events: [String] = []
        let started = ContinuousClock.now
        var l3At: Duration? = nil
        while reader.next({ event, bytes in
            switch event {
            case .line:
                var copy: [UInt8] = []
                for i in bytes.indices { copy.append(bytes[i]) }
                events.append(String(String(decoding: copy, as: UTF8.self).split(separator: ":").last!))
                if events.last == "l3" {
                    l3At = ContinuousClock.now - started
                    stop.raise()
                }
            case .inputFailed(_, let error, let dropped):
                events.append("\(error.isDamage ? "damaged" : "failed") dropped \(dropped)")
            default:
                events.append(event.diagnostic)
            }
        }) {}
        #expect(events == ["l1", "damaged dropped \(partial.utf8.count)", "l3"])
        #expect(l3At.map { $0 >= .seconds(5) } == true, "\(String(describing: l3At))")
        try first.close()
        try next.close()
    }
}
