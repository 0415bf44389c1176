import ChatTestSupport
import Foundation
import Glibc
import Testing

/// `chatcap capture` against a server speaking for more channels than it has descriptors (issue #12
/// item 7): lines of channels not joined go to `_session`, idle files are closed and reopened, and the
/// number of open descriptors stays bounded.
@Suite(.serialized, .timeLimit(.minutes(20))) struct CaptureOpenFilesCLITests {
    /// Open descriptors of process `pid` (entries of /proc/PID/fd), or `nil` once it is gone.
    static func descriptorCount(_ pid: Int32) -> Int? {
        try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
    }

    @Test(
        "ulimit -n 256, 300 channels joined, a server speaking for 5,000: capture runs, stores every line, fds bounded")
    func manyChannelsUnderDescriptorLimit() throws {
        let dir = try CLITempDirectory.make("capture-open-files")
        defer { CLITempDirectory.remove(dir) }
        let joined = (0..<300).map { "ch\($0)" }
        try (joined.joined(separator: "\n") + "\n").write(
            toFile: dir + "/channels.txt", atomically: true, encoding: .utf8)
        let server = try HostileServer(.manyChannels)
        let arguments = [
            CLI.binary, "capture", "--channels-file", dir + "/channels.txt", "--dir", dir + "/cap", "--host",
            "127.0.0.1", "--port", "\(server.port)", "--plain", "--join-rate", "10000", "--duration", "4",
            "--status", "none",
        ]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "ulimit -n 256 && exec " + CaptureHealthCLITests.quoted(arguments)]
        process.currentDirectoryURL = URL(fileURLWithPath: Fixtures.root)
        let errorFile = dir + "/stderr.txt"
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var peak = 0
        while process.isRunning {
            if let n = Self.descriptorCount(process.processIdentifier) { peak = max(peak, n) }
            usleep(20_000)
        }
        process.waitUntilExit()
        let stderr = try String(contentsOfFile: errorFile, encoding: .utf8)
        #expect(process.terminationStatus == 0, "\(stderr)")
        #expect(peak > 0 && peak <= CaptureDefaults.maxOpenFilesUnder256 + 24, "\(peak) descriptors open at once")
        // Every joined channel has its three lines, in order, in its own file.
        var rounds: [String: [String]] = [:]
        for line in try CaptureHealthCLITests.stored("\(dir)/cap/ch*/*.log.gz") where line.contains(" PRIVMSG #") {
            let parts = line.split(separator: " PRIVMSG #")[1].split(separator: " :")
            rounds[String(parts[0]), default: []].append(String(parts[1]))
        }
        for channel in joined {
            #expect(rounds[channel] == ["round 0", "round 1", "round 2"], "#\(channel): \(rounds[channel] ?? [])")
        }
        // The others have no directory: their lines are in _session, once each.
        let names = try FileManager.default.contentsOfDirectory(atPath: dir + "/cap")
        #expect(Set(names) == Set(joined + ["_session"]))
        let session = try CaptureHealthCLITests.stored("\(dir)/cap/_session/*.log.gz")
        #expect(session.filter { $0.contains(" PRIVMSG #ch") }.count == 4_700 * 3)
        #expect(stderr.contains("14100 lines of channels not joined stored in _session"), "\(stderr)")
    }
}

extension CaptureOpenFilesCLITests {
    /// The soft "Max open files" limit in /proc/PID/limits, or `nil` once the process is gone.
    static func softDescriptorLimit(_ pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") })
        else { return nil }
        return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).first.flatMap { Int($0) }
    }

    @Test(
        "capture raises its soft descriptor limit to the hard one (64 -> 256), so its default bound is a file per channel within 128",
        .timeLimit(.minutes(20)))
    func raisesDescriptorLimit() throws {
        let dir = try CLITempDirectory.make("capture-raise-limit")
        defer { CLITempDirectory.remove(dir) }
        let server = try HostileServer(.manyChannels)
        let arguments = [
            CLI.binary, "capture", "ch1", "ch2", "--dir", dir + "/cap", "--host", "127.0.0.1", "--port",
            "\(server.port)", "--plain", "--duration", "2", "--status", "none",
        ]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c", "ulimit -S -n 64 && ulimit -H -n 256 && exec " + CaptureHealthCLITests.quoted(arguments),
        ]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var limits: Set<Int> = []
        while process.isRunning {
            // Only once capture runs (bash has exec'd it): before that, bash's own limit is 64.
            if let n = Self.softDescriptorLimit(process.processIdentifier),
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.processIdentifier)/exe"))?
                    .hasSuffix("bash") == false
            {
                limits.insert(n)
            }
            usleep(20_000)
        }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(limits.contains(256), "soft limits seen: \(limits.sorted())")
    }
}

/// What the default `--max-open-files` is under `ulimit -n 256`.
enum CaptureDefaults {
    static let maxOpenFilesUnder256 = 128
}
