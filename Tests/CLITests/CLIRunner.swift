import ChatTestSupport
import Foundation

/// Runs the built `chatcap` binary the way a user does and collects what it printed.
struct CLIRun {
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
    var text: String { String(decoding: stdout, as: UTF8.self) }
    /// Output lines, counted as LF bytes (`\r\n` is one Character in Swift, so splitting a String
    /// on "\n" would miss CRLF lines).
    var lineCount: Int { stdout.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
}

enum CLI {
    /// The binary: `$CHATCAP_BIN`, else the `chatcap` built next to this test bundle (whatever the
    /// scratch path), else the default debug build.
    static var binary: String {
        if let path = ProcessInfo.processInfo.environment["CHATCAP_BIN"] { return path }
        let sibling = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("chatcap").path
        return FileManager.default.isExecutableFile(atPath: sibling) ? sibling : Fixtures.root + "/.build/debug/chatcap"
    }

    /// ``binary`` quoted for a shell command line.
    static var shellBinary: String { "'" + binary + "'" }

    /// The executable and arguments that run `chatcap arguments…`: the binary itself, or with a
    /// `descriptorLimit` `/bin/sh -c 'ulimit -n N && exec "$0" "$@"'` so that the limit holds for chatcap.
    static func limited(_ arguments: [String], descriptorLimit: Int?) -> (executable: String, arguments: [String]) {
        guard let descriptorLimit else { return (binary, arguments) }
        return ("/bin/sh", ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", binary] + arguments)
    }

    /// A `chatcap` started in the background, its output on pipes.
    struct Background {
        let process: Process
        let stdout: Pipe
        let stderr: Pipe

        /// Reads standard output until its first line is in (or the process has ended): what it read.
        /// For a test that acts once the output has begun, not after a fixed time that a busy machine
        /// may not be done starting the debug build in.
        func readThroughFirstLine() -> Data {
            var out = Data()
            while !out.contains(0x0A) {
                let chunk = stdout.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                out.append(chunk)
            }
            return out
        }
    }

    /// Starts `chatcap arguments…` in the repository root without waiting for it.
    static func start(_ arguments: [String]) throws -> Background {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: Fixtures.root)
        let run = Background(process: process, stdout: Pipe(), stderr: Pipe())
        process.standardOutput = run.stdout
        process.standardError = run.stderr
        try process.run()
        return run
    }

    /// Runs `chatcap arguments…` with `stdin` as input, in the repository root; with a
    /// `descriptorLimit`, under `ulimit -n` of that many (see ``limited(_:descriptorLimit:)``).
    static func run(
        _ arguments: [String], stdin: [UInt8]? = nil, environment: [String: String] = [:],
        descriptorLimit: Int? = nil
    ) throws -> CLIRun {
        let process = Process()
        let (executable, argv) = limited(arguments, descriptorLimit: descriptorLimit)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = argv
        process.currentDirectoryURL = URL(fileURLWithPath: Fixtures.root)
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "NO_COLOR")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        // Read both pipes while the process runs, so that a full pipe cannot block it.
        let group = DispatchGroup()
        nonisolated(unsafe) var outData = Data()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            outData = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        return CLIRun(
            status: process.terminationStatus, stdout: [UInt8](outData),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs a shell pipeline (for `| jq`), returning its status and output.
    static func shell(_ command: String) throws -> CLIRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-o", "pipefail", "-c", command]
        process.currentDirectoryURL = URL(fileURLWithPath: Fixtures.root)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIRun(status: process.terminationStatus, stdout: [UInt8](o), stderr: String(decoding: e, as: UTF8.self))
    }
}

/// Compares `actual` with `Fixtures/golden/<name>`, or records it when RECORD_GOLDEN=1 (and fails,
/// so that a recording never passes silently).
enum Golden {
    static func check(_ actual: [UInt8], _ name: String) -> String? {
        let path = Fixtures.directory + "/golden/" + name
        if ProcessInfo.processInfo.environment["RECORD_GOLDEN"] == "1" {
            try? FileManager.default.createDirectory(
                atPath: Fixtures.directory + "/golden", withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path, contents: Data(actual))
            return "recorded \(name) (RECORD_GOLDEN=1): re-run without it"
        }
        guard let expected = FileManager.default.contents(atPath: path) else {
            return "missing golden file \(name) (make golden)"
        }
        if [UInt8](expected) == actual { return nil }
        let e = String(decoding: expected, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let a = String(decoding: actual, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(e.count, a.count) where i >= e.count || i >= a.count || e[i] != a[i] {
            return
                "\(name) differs at line \(i + 1):\n  expected: \(i < e.count ? String(e[i]) : "<none>")\n  actual:   \(i < a.count ? String(a[i]) : "<none>")"
        }
        return "\(name) differs"
    }
}
