import ChatNet
import ChatPosix
import ChatServe
import ChatTestSupport
import Foundation
import IRCWire
import Synchronization
import Testing
import TwitchSession

/// A ``ChatServer`` running on a thread of its own, as `chatcap serve` runs it, for tests that talk
/// to it over 127.0.0.1. The server is built on that thread (it is confined to it); its reports are
/// collected. Call ``stop()`` in a `defer`: it stops the loop and waits for the thread to end.
final class ServeHarness: Sendable {
    /// What the server thread shares with the test: its start-up result and its reports.
    private final class Shared: Sendable {
        let started = Mutex<Result<(UInt16, String, ServeStopHandle), ServeError>?>(nil)
        let reports = Mutex<[String]>([])
        let ready = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
    }

    let port: UInt16
    let address: String
    private let handle: ServeStopHandle
    private let shared = Shared()

    /// Starts a server over `arguments` (paths relative to the repository root) on a free port. By
    /// default as fast as the clients read, with the recorded times (so that served lines can be
    /// compared with the log's byte for byte).
    ///
    /// - Throws: the server's ``ServeError`` when it cannot start.
    init(_ arguments: [String], options: ServeOptions = ServeOptions(port: 0, speed: nil, keepTime: true)) throws {
        var chosen = options
        chosen.port = 0
        let options = chosen
        let paths = arguments.map { $0.hasPrefix("/") || $0 == "-" ? $0 : Fixtures.root + "/" + $0 }
        let shared = shared
        let thread = Thread {
            defer { shared.finished.signal() }
            let server: ChatServer
            do throws(ServeError) {
                server = try ChatServer(arguments: paths, options: options) { line in
                    shared.reports.withLock { $0.append(line) }
                }
            } catch {
                shared.started.withLock { $0 = .failure(error) }
                shared.ready.signal()
                return
            }
            shared.started.withLock { $0 = .success((server.port, server.address, server.stopHandle)) }
            shared.ready.signal()
            do { try server.run() } catch { shared.reports.withLock { $0.append("run failed: \(error)") } }
        }
        thread.start()
        shared.ready.wait()
        let result = shared.started.withLock { $0 }!
        (port, address, handle) = try result.get()
    }

    /// What the server reported so far.
    var reports: [String] { shared.reports.withLock { $0 } }

    /// Waits (at most `timeoutMs`) until a report contains `text`, and returns it.
    func waitForReport(containing text: String, timeoutMs: Int64 = 5_000) -> String? {
        let deadline = Moment.now().monotonicMs + timeoutMs
        while Moment.now().monotonicMs < deadline {
            if let line = reports.first(where: { $0.contains(text) }) { return line }
            usleep(10_000)
        }
        return nil
    }

    /// Stops the server and waits for its thread to finish.
    func stop() {
        handle.stop()
        shared.finished.wait()
        shared.finished.signal()  // a second stop() returns at once
    }
}

/// A test client of `chatcap serve`: sends raw lines and reads whole lines back, with deadlines,
/// over plain TCP or TLS, driving the stream the way the ingest loop does.
final class ServeTestClient<Stream: ByteStream> {
    let stream: Stream
    private var framer = LineFramer()
    private let loop: EventLoop
    private var pending: [String] = []
    private(set) var ended = false

    init(_ stream: Stream) throws {
        self.stream = stream
        loop = try EventLoop()
        try loop.register(stream.fileDescriptor, interest: stream.interest)
    }

    deinit {
        try? loop.remove(stream.fileDescriptor)
    }

    /// Queues and sends `lines`, each with CR LF.
    func send(_ lines: String...) throws {
        for line in lines { stream.enqueue(line: Array(line.utf8).span) }
        _ = try pump(timeoutMs: 0)
    }

    /// The next line, or `nil` when none comes within `timeoutMs` or the stream ended.
    func line(timeoutMs: Int64 = 5_000) throws -> String? {
        let deadline = Moment.now().monotonicMs + timeoutMs
        while pending.isEmpty && !ended {
            let remaining = deadline - Moment.now().monotonicMs
            guard remaining > 0 else { return nil }
            _ = try pump(timeoutMs: remaining)
        }
        return pending.isEmpty ? nil : pending.removeFirst()
    }

    /// The next `count` lines (fewer when the stream ends or the time runs out).
    func lines(_ count: Int, timeoutMs: Int64 = 5_000) throws -> [String] {
        var result: [String] = []
        let deadline = Moment.now().monotonicMs + timeoutMs
        while result.count < count, let line = try line(timeoutMs: max(1, deadline - Moment.now().monotonicMs)) {
            result.append(line)
        }
        return result
    }

    /// Lines up to and including the first that `predicate` accepts.
    func lines(until predicate: (String) -> Bool, timeoutMs: Int64 = 5_000) throws -> [String] {
        var result: [String] = []
        let deadline = Moment.now().monotonicMs + timeoutMs
        while let line = try line(timeoutMs: max(1, deadline - Moment.now().monotonicMs)) {
            result.append(line)
            if predicate(line) { break }
        }
        return result
    }

    /// Everything that arrives within `ms` (the stream may end sooner).
    func drain(forMs ms: Int64) throws -> [String] {
        let deadline = Moment.now().monotonicMs + ms
        while !ended, Moment.now().monotonicMs < deadline {
            _ = try pump(timeoutMs: max(1, deadline - Moment.now().monotonicMs))
        }
        defer { pending.removeAll() }
        return pending
    }

    /// Logs in as `nick` (tags and commands requested, a PASS sent) and reads the welcome up to 376,
    /// and the GLOBALUSERSTATE after it when `twitch.tv/commands` was requested.
    func login(_ nick: String = "justinfan123", capabilities: String? = "twitch.tv/tags twitch.tv/commands") throws
        -> [String]
    {
        if let capabilities { try send("CAP REQ :\(capabilities)") }
        try send("PASS oauth:not-a-real-token", "NICK \(nick)")
        var welcome = try lines(until: { $0.contains(" 376 ") })
        if capabilities?.contains("twitch.tv/commands") == true {
            welcome += try lines(until: { $0.hasSuffix(" GLOBALUSERSTATE") })
        }
        return welcome
    }

    /// Joins `channel` and reads the replies up to its ROOMSTATE (or a NOTICE): JOIN, 353, 366,
    /// USERSTATE (with `twitch.tv/commands`), ROOMSTATE.
    func join(_ channel: String) throws -> [String] {
        try send("JOIN #\(channel)")
        return try lines(until: { $0.contains("ROOMSTATE #\(channel)") || $0.contains("NOTICE #\(channel)") })
    }

    /// One wait on the socket: flush, then read until `.wouldBlock`, framing lines into `pending`.
    private func pump(timeoutMs: Int64) throws -> Bool {
        _ = try stream.flush()
        try loop.modify(stream.fileDescriptor, interest: stream.interest)
        var readiness: EventLoop.Readiness = []
        try loop.wait(timeoutMs: Int32(clamping: timeoutMs)) { readiness.formUnion($1) }
        if readiness.contains(.writable) { _ = try stream.flush() }
        guard !readiness.isDisjoint(with: [.readable, .hangup, .error]) else { return false }
        while true {
            let outcome = try stream.read(into: &framer)
            while let event = framer.nextLine() {
                guard case .line(let framed) = event else { continue }
                pending.append(framer.withBytes(of: framed) { string($0, ByteRange($0.indices)) })
            }
            switch outcome {
            case .bytes: continue
            case .wouldBlock: return true
            case .endOfStream:
                ended = true
                return true
            }
        }
    }
}

extension ServeTestClient where Stream == TCPConnection {
    /// A plain TCP client connected to `port` on 127.0.0.1.
    convenience init(port: UInt16) throws {
        let connection = try TCPConnection.connect(host: "127.0.0.1", port: port, timeoutMs: 5_000)
        try self.init(connection)
    }
}

/// The lines of a fixture addressed to `channel`, as the server sends them (without CR LF).
func fixtureLines(_ name: String, channel: String) throws -> [String] {
    let bytes = try Fixtures.bytes("lines/\(name)")
    var result: [String] = []
    var framer = LineFramer()
    framer.feed(bytes.span) { event, framer in
        guard case .line(let line) = event else { return }
        framer.withBytes(of: line) { span in
            guard let message = try? TwitchMessage.parse(span), let range = message.channel,
                string(span, range) == channel
            else { return }
            result.append(string(span, ByteRange(span.indices)))
        }
    }
    return result
}
