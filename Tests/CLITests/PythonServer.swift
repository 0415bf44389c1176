import Foundation
import Glibc

/// Starts `python3 arguments…` — a small scripted server that binds 127.0.0.1 port 0 and prints the
/// port on its first line — and returns that port. The caller owns `process` and stops it by PID.
///
/// - Throws: ``ServeCLIFailure`` (naming `what`) when the script ends or prints no port; the process
///   is killed first.
func startPythonServer(_ process: Process, arguments: [String], what: String) throws -> Int {
    guard let port = Int(try startPython(process, arguments: arguments)) else {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        throw ServeCLIFailure(description: "\(what) did not say its port")
    }
    return port
}

/// Starts `python3 arguments…` (stdin from /dev/null) and returns the first line it prints, without
/// its LF (empty if it ends first).
func startPython(_ process: Process, arguments: [String]) throws -> String {
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3"] + arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardInput = FileHandle.nullDevice
    try process.run()
    var text: [UInt8] = []
    while true {
        let byte = out.fileHandleForReading.readData(ofLength: 1)
        if byte.isEmpty || byte.first == 0x0A { break }
        text.append(byte.first!)
    }
    return String(decoding: text, as: UTF8.self)
}
