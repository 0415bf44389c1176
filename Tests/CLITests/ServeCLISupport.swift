import ChatTestSupport
import Foundation
import Glibc
import Testing

/// A `chatcap serve` process for end-to-end tests (a ``ChatcapProcess``) that has said where it listens.
final class ServeProcess {
    let chatcap: ChatcapProcess
    let port: UInt16
    let listeningLine: String
    /// With `--ws-port`: the WebSocket port from the second line, `listening on ws://HOST:PORT`.
    let webSocketPort: UInt16?
    /// With `--ws-port`: that second line.
    let webSocketLine: String?

    /// With `--http-port`: the base URL from the HTTP line, `listening on http://HOST:PORT` (no
    /// trailing slash), which comes after the IRC and WebSocket ones.
    let httpURL: String?

    /// Starts `chatcap serve arguments…` in the repository root and waits for its
    /// `listening on HOST:PORT` line (and with `--ws-port` and `--http-port` the WebSocket and HTTP
    /// ones after it): at most 60 s each, a guard against a hang (a debug build reading a long log on
    /// a busy machine takes seconds). With a `descriptorLimit`, it runs under `ulimit -n` of that many.
    /// This is the one way tests start serve.
    init(_ arguments: [String], descriptorLimit: Int? = nil) throws {
        chatcap = try ChatcapProcess(["serve"] + arguments, descriptorLimit: descriptorLimit)
        (listeningLine, port) = try Self.listening(chatcap, "", "")
        if arguments.contains("--ws-port") {
            let (line, port) = try Self.listening(chatcap, "ws", "WebSocket ")
            (webSocketLine, webSocketPort) = (line, port)
        } else {
            (webSocketLine, webSocketPort) = (nil, nil)
        }
        if arguments.contains("--http-port") {
            let line = try Self.listening(chatcap, "http://", "HTTP ").line
            let url = String(line.dropFirst("listening on ".count))
            httpURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        } else {
            httpURL = nil
        }
    }

    /// The next `listening on PREFIX…:PORT` line of `chatcap`'s standard output (at most 60 s); kills
    /// it and throws, naming `what`, when another line or none comes.
    private static func listening(_ chatcap: ChatcapProcess, _ prefix: String, _ what: String) throws -> (
        line: String, port: UInt16
    ) {
        let line = readLine(chatcap.output.fileHandleForReading.fileDescriptor, timeoutMs: 60_000)
        guard let line, line.hasPrefix("listening on \(prefix)"),
            let port = line.split(separator: ":").last.flatMap({ UInt16($0.filter(\.isNumber)) })
        else {
            let stderr = chatcap.stderr
            _ = chatcap.stop(with: SIGKILL)
            throw ServeCLIFailure(description: "no \(what)'listening on' line (got \(line ?? "nothing")): \(stderr)")
        }
        return (line, port)
    }

    /// `chatcap serve arguments… --port 0`: on a port the kernel picks (``port`` says which).
    static func onFreePort(_ arguments: [String]) throws -> ServeProcess {
        try ServeProcess(arguments + ["--port", "0"])
    }

    /// Kills the server (SIGKILL) and waits for it: the end of a test that no longer needs it.
    func kill() { _ = stop(with: SIGKILL) }

    /// What the server wrote to standard error so far.
    var stderr: String { chatcap.stderr }

    /// Sends `signal` and waits (at most 5 s) for the exit; returns the exit status, or `nil` if it
    /// did not exit (it is then killed).
    func stop(with signal: Int32 = SIGTERM) -> Int32? { chatcap.stop(with: signal) }

    /// Waits (at most `timeoutMs`) until standard error contains `text`.
    func waitForStderr(containing text: String, timeoutMs: Int = 5_000) -> Bool {
        chatcap.waitForStderr(containing: text, timeoutMs: timeoutMs)
    }

    /// One line from `descriptor`, read a byte at a time so nothing after it is consumed. A call
    /// interrupted by a signal (SIGCHLD of another test's child) is made again.
    static func readLine(_ descriptor: Int32, timeoutMs: Int32) -> String? {
        var bytes: [UInt8] = []
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        while Date() < deadline {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            if ready < 0 && errno == EINTR { continue }
            guard ready >= 0 else { return nil }
            guard poller.revents != 0 else { continue }
            var byte: UInt8 = 0
            let got = read(descriptor, &byte, 1)
            if got < 0 && errno == EINTR { continue }
            guard got == 1 else {
                return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
            }
            if byte == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
        return nil
    }
}

/// Runs `chatcap arguments…` to its end in the repository root (see ``CLI/run(_:stdin:environment:)``).
func serveRun(_ arguments: [String]) throws -> CLIRun { try CLI.run(arguments) }

struct ServeCLIFailure: Error, CustomStringConvertible {
    var description: String
}

/// A blocking IRC client on a plain Glibc socket to 127.0.0.1, with a receive timeout.
final class ServeLineClient {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var ended = false

    init(port: UInt16) throws {
        // Connected before it is stored: a throwing initializer of a fully initialized class runs
        // `deinit`, which would close the descriptor a second time.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw ServeCLIFailure(description: "connect to 127.0.0.1:\(port): errno \(code)")
        }
        self.descriptor = descriptor
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func send(_ lines: String...) {
        let bytes = Array(lines.map { $0 + "\r\n" }.joined().utf8)
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The next line (without CR LF), or `nil` after `timeoutMs` or at the end of the stream.
    func line(timeoutMs: Int = 5_000) -> String? {
        let deadline = Date().addingTimeInterval(Double(timeoutMs) / 1000)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<newline])
                buffer.removeSubrange(...newline)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard !ended, Date() < deadline else { return nil }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = read(descriptor, &chunk, chunk.count)
            if count > 0 {
                buffer += chunk[..<count]
            } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                ended = true
            }
        }
    }

    /// Lines up to and including the first that `predicate` accepts.
    func lines(until predicate: (String) -> Bool, timeoutMs: Int = 5_000) -> [String] {
        var result: [String] = []
        while let line = line(timeoutMs: timeoutMs) {
            result.append(line)
            if predicate(line) { break }
        }
        return result
    }
}

/// The PRIVMSG texts of `#channel` in a fixture, in order (a CTCP ACTION as its text, without the
/// `\u{1}ACTION` wrapper).
func servePrivmsgTexts(_ fixture: String, channel: String) throws -> [String] {
    let marker = " PRIVMSG #\(channel) :"
    // Split bytes, not Characters: "\r\n" is one Character in Swift.
    return try Fixtures.bytes("lines/\(fixture)").split(separator: 0x0A).compactMap { bytes -> String? in
        let line = String(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes, as: UTF8.self)
        guard let range = line.range(of: marker) else { return nil }
        var message = String(line[range.upperBound...])
        if message.hasPrefix("\u{1}ACTION ") {
            message = String(message.dropFirst("\u{1}ACTION ".count)).trimmingCharacters(
                in: CharacterSet(charactersIn: "\u{1}"))
        }
        return message
    }
}
