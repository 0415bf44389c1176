public import ChatNet
import ChatPosix
import Foundation
import IRCWire
import Testing
import TwitchSession

/// A throwaway PKI made with the `openssl` CLI in a temp directory: a test CA, a server certificate
/// for `localhost` and 127.0.0.1, and one for `other.example` (for name mismatches).
public struct TLSTestPKI: Sendable {
    public let directory: String
    public var caFile: String { directory + "/ca.pem" }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    public init() throws {
        directory = NSTemporaryDirectory() + "chatcap-tls-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(
            ["req", "-x509"] + ec + [
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=chatcap test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try issue("localhost", subjectAltName: "DNS:localhost,IP:127.0.0.1")
        try issue("other", subjectAltName: "DNS:other.example")
    }

    public func remove() { try? FileManager.default.removeItem(atPath: directory) }

    public func certificate(_ name: String) -> (cert: String, key: String) {
        (directory + "/\(name).pem", directory + "/\(name).key")
    }

    private func issue(_ name: String, subjectAltName: String) throws {
        try run([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(name)",
        ])
        let extensions = "subjectAltName=\(subjectAltName)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
        try Data(extensions.utf8).write(to: URL(fileURLWithPath: directory + "/\(name).ext"))
        try run([
            "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", "\(name).pem", "-days", "2", "-extfile", "\(name).ext",
        ])
    }

    private func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(
                description: "openssl \(arguments.joined(separator: " ")) failed: "
                    + String(decoding: output, as: UTF8.self))
        }
    }
}

/// `openssl s_server -rev` on a free 127.0.0.1 port: every line sent comes back reversed, and a
/// line `CLOSE` makes it close the connection. Stop it with ``stop()`` (by PID) in a `defer`.
public final class TLSTestServer {
    public let port: UInt16
    private let process: Process

    public init(certificate: String, key: String) throws {
        let listener = try SocketLoopbackListener()
        port = listener.port
        listener.close()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key, "-rev", "-quiet",
        ]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready once it accepts TCP connections (s_server shrugs off the aborted probes).
        let deadline = Moment.now().monotonicMs + 10_000
        while true {
            if (try? TCPConnection.connect(host: "127.0.0.1", port: port, timeoutMs: 500)) != nil { break }
            guard process.isRunning, Moment.now().monotonicMs < deadline else {
                stop()
                throw TLSTestPKI.Failure(description: "openssl s_server did not start on port \(port)")
            }
            usleep(20_000)
        }
    }

    public func stop() {
        guard process.isRunning else { return }
        // SIGKILL: a child spawned from a Dispatch worker inherits its blocked signals, SIGTERM included.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// A throwaway PKI and an `openssl s_server -rev` presenting its certificate for `name` (`localhost`
/// or `other`). Call ``stop()`` in a `defer`: it stops the server and removes the PKI.
public struct TLSTestBed {
    public let pki: TLSTestPKI
    public let server: TLSTestServer

    public init(certificateFor name: String) throws {
        pki = try TLSTestPKI()
        let (cert, key) = pki.certificate(name)
        do {
            server = try TLSTestServer(certificate: cert, key: key)
        } catch {
            pki.remove()
            throw error
        }
    }

    public var port: UInt16 { server.port }
    public var caFile: String { pki.caFile }

    public func stop() {
        server.stop()
        pki.remove()
    }
}

/// Sends `line` and returns the first line that comes back, driving the connection the way the
/// ingest loop does: wait for what ``ByteStream/interest`` asks, flush when writable, read until
/// `.wouldBlock` when readable (the handshake happens inside). `nil` if the stream ends first.
public func tlsExchange(_ connection: TLSConnection, _ line: String, timeoutMs: Int64 = 10_000) throws -> String? {
    connection.enqueue(bytes: Array(line.utf8) + [0x0D, 0x0A])
    var framer = LineFramer()
    let loop = try EventLoop()
    try loop.register(connection.fileDescriptor, interest: connection.interest)
    defer { try? loop.remove(connection.fileDescriptor) }
    let deadline = Moment.now().monotonicMs + timeoutMs
    while Moment.now().monotonicMs < deadline {
        var readiness: EventLoop.Readiness = []
        try loop.wait(timeoutMs: 100) { readiness.formUnion($1) }
        if readiness.contains(.writable) { try connection.flush() }
        if !readiness.isDisjoint(with: [.readable, .hangup, .error]) {
            while true {
                let outcome = try connection.read(into: &framer)
                if case .line(let framed)? = framer.nextLine() {
                    return framer.withBytes(of: framed) { string($0, ByteRange($0.indices)) }
                }
                if outcome == .endOfStream { return nil }
                if outcome == .wouldBlock { break }
            }
        }
        try loop.modify(connection.fileDescriptor, interest: connection.interest)
    }
    Issue.record("no answer within \(timeoutMs) ms")
    return nil
}

/// Owns an `openssl s_server` process; used by one test at a time.
@available(*, unavailable)
extension TLSTestServer: Sendable {}

@available(*, unavailable)
extension TLSTestBed: Sendable {}
