import ChatTestSupport
import Foundation
import Glibc

/// A `chatcap` started in the background for end-to-end tests: standard output on a pipe, standard
/// error in a file (readable while it runs), stopped by PID — killed when released.
final class ChatcapProcess {
    let process = Process()
    let output = Pipe()
    private let errorFile: String

    /// Starts `chatcap arguments…` in the repository root; standard output goes to `stdoutFile`
    /// (created or truncated) when one is given, else to ``output``. With a `descriptorLimit`, it runs
    /// under `ulimit -n` of that many (see ``CLI/limited(_:descriptorLimit:)``); `environment` is added
    /// to this process's.
    init(
        _ arguments: [String], stdoutFile: String? = nil, descriptorLimit: Int? = nil,
        environment: [String: String] = [:]
    ) throws {
        errorFile = NSTemporaryDirectory() + "chatcap-\(UUID().uuidString).err"
        _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
        let (executable, argv) = CLI.limited(arguments, descriptorLimit: descriptorLimit)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = argv
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = URL(fileURLWithPath: Fixtures.root)
        if let stdoutFile {
            _ = FileManager.default.createFile(atPath: stdoutFile, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutFile))
        } else {
            process.standardOutput = output
        }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorFile))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: errorFile)
    }

    var isRunning: Bool { process.isRunning }

    /// What the process wrote to standard error so far.
    var stderr: String {
        String(decoding: FileManager.default.contents(atPath: errorFile) ?? Data(), as: UTF8.self)
    }

    /// Sends `signal`.
    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits (at most `seconds`) for the exit: the exit status (128 + N for signal N), or `nil` if it
    /// is still running.
    func exitStatus(within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        guard !process.isRunning else { return nil }
        process.waitUntilExit()
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    /// Sends `signal` and waits (at most 5 s) for the exit; returns the exit status, or `nil` if it
    /// did not exit (it is then killed).
    func stop(with signal: Int32 = SIGTERM) -> Int32? {
        self.signal(signal)
        guard let status = exitStatus(within: 5) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return status
    }

    /// Waits (at most `timeoutMs`) until standard error contains `text`.
    func waitForStderr(containing text: String, timeoutMs: Int = 5_000) -> Bool {
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        while Date() < deadline {
            if stderr.contains(text) { return true }
            usleep(20_000)
        }
        return stderr.contains(text)
    }
}
