import ChatTestSupport
import Foundation
import Glibc
import Synchronization

/// `Tests/Support/hostile_server.py` in one of its modes on 127.0.0.1 (see the script's header),
/// started by the test and stopped by PID (SIGKILL) when released; it also stops by itself after 20 s.
/// What the client sent is logged to a file, one `connection<TAB>line` per line, `PASS` redacted.
final class HostileServer {
    enum Mode: String {
        case garbage, reconnect
        case pingFlood = "ping-flood"
        case partialStall = "partial-stall"
        case loginFailed = "login-failed"
        case manyChannels = "many-channels"
        case silent, unconfirmed
    }

    let process = Process()
    let port: Int
    private let logFile: String

    init(_ mode: Mode) throws {
        logFile = NSTemporaryDirectory() + "chatcap-hostile-\(UUID().uuidString).log"
        _ = FileManager.default.createFile(atPath: logFile, contents: nil)
        port = try startPythonServer(
            process, arguments: [Fixtures.root + "/Tests/Support/hostile_server.py", mode.rawValue, logFile],
            what: "the hostile server")
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: logFile)
    }

    /// Every line received so far, with the connection it came on (from 1).
    var received: [(connection: Int, line: String)] {
        let text = String(decoding: FileManager.default.contents(atPath: logFile) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n").compactMap { row in
            let parts = row.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let n = Int(parts[0]) else { return nil }
            return (n, String(parts[1]))
        }
    }

    /// How many received lines start with `prefix` (on connection `connection`, or on any).
    func count(_ prefix: String, connection: Int? = nil) -> Int {
        received.filter { (connection == nil || $0.connection == connection) && $0.line.hasPrefix(prefix) }.count
    }
}

/// A `chatcap` run to its end with standard output discarded, standard error collected, and its
/// peak resident set size (`VmHWM`) sampled from /proc while it runs.
struct SampledRun {
    var status: Int32
    var stderr: String
    /// The largest `VmHWM` seen, in KiB.
    var peakKiB: Int

    /// Runs `chatcap arguments…` with `environment` added to this process's (never changed here:
    /// other suites run in parallel); with `until`, it is stopped (SIGINT) once its stderr holds every
    /// one of those texts, so that a run lasts as long as the machine needs to get there, not a guess.
    static func run(_ arguments: [String], environment: [String: String] = [:], until: [String] = []) throws
        -> SampledRun
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: Fixtures.root)
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errData = Mutex(Data())
        let reader = Thread {
            while true {
                let chunk = err.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                errData.withLock { $0.append(chunk) }
            }
        }
        reader.start()
        var peak = 0
        var stopped = until.isEmpty
        let status = "/proc/\(process.processIdentifier)/status"
        while process.isRunning {
            if let text = try? String(contentsOfFile: status, encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
            {
                peak = max(peak, kib)
            }
            if !stopped {
                let said = errData.withLock { String(decoding: $0, as: UTF8.self) }
                if until.allSatisfy({ said.contains($0) }) {
                    stopped = true
                    kill(process.processIdentifier, SIGINT)
                }
            }
            usleep(20_000)
        }
        process.waitUntilExit()
        while !reader.isFinished { usleep(10_000) }
        return SampledRun(
            status: process.terminationStatus, stderr: errData.withLock { String(decoding: $0, as: UTF8.self) },
            peakKiB: peak)
    }
}
