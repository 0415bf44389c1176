import ChatPosix
import Foundation
import Glibc
import Testing

/// The manager's end of `NOTIFY_SOCKET` for a test: an `AF_UNIX` datagram socket bound to a path or an
/// abstract name, read with bounded waits; closed (and its path removed) when released.
final class NotifyReceiver {
    let name: String
    let descriptor: Int32

    /// Binds to a fresh path in the temporary directory, or to a fresh abstract name (`@…`).
    init(abstract: Bool, receiveBuffer: Int32? = nil) throws {
        let unique = "chatcap-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        name = abstract ? "@" + unique : NSTemporaryDirectory() + unique + ".sock"
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno)!) }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(name.utf8)
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in bytes.enumerated() { raw[i] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw POSIXError(.init(rawValue: errno)!) }
    }

    deinit {
        close(descriptor)
        if name.hasPrefix("/") { unlink(name) }
    }

    /// The next datagram, or `nil` when none comes within `timeoutMs`.
    func receive(timeoutMs: Int32 = 2_000) -> String? {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, timeoutMs) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        return n < 0 ? nil : String(decoding: buffer[..<n], as: UTF8.self)
    }

    /// Every datagram waiting now.
    func drain() -> [String] {
        var all: [String] = []
        while let next = receive(timeoutMs: 0) { all.append(next) }
        return all
    }
}

@Suite struct ServiceNotifierTests {
    @Test(
        "WATCHDOG_USEC is halved into milliseconds; unset, zero, not a number or another process's WATCHDOG_PID: no watchdog",
        arguments: [
            ("400000", nil, 200), ("30000000", "", 15_000), ("1", nil, 1), ("400000", "4242", 200),
            ("400000", "4243", nil), ("0", nil, nil), ("-5", nil, nil), ("soon", nil, nil), (nil, "4242", nil),
        ] as [(String?, String?, Int64?)])
    func watchdogInterval(usec: String?, pid: String?, expected: Int64?) {
        #expect(ServiceNotifier.watchdogInterval(usec: usec, pid: pid, ownPid: 4242) == expected)
    }

    @Test("no NOTIFY_SOCKET (or an empty one): no notifier; an address it cannot send to is an error")
    func environment() throws {
        #expect(try ServiceNotifier.fromEnvironment({ _ in nil }) == nil)
        #expect(try ServiceNotifier.fromEnvironment({ $0 == "NOTIFY_SOCKET" ? "" : nil }) == nil)
        for name in ["vsock:2:1234", "relative/notify", "@", String(repeating: "/x", count: 60)] {
            #expect(throws: ServiceNotifier.SetupError.unsupportedAddress(name)) {
                _ = try ServiceNotifier.fromEnvironment({ $0 == "NOTIFY_SOCKET" ? name : nil })
            }
        }
        let env = ["NOTIFY_SOCKET": "@chatcap-unused", "WATCHDOG_USEC": "400000", "WATCHDOG_PID": "\(getpid())"]
        let notifier = try #require(try ServiceNotifier.fromEnvironment({ env[$0] }, statusIntervalMs: 5_000))
        #expect(notifier.socketName == "@chatcap-unused" && notifier.watchdogIntervalMs == 200)
        #expect(notifier.statusIntervalMs == 5_000)
    }

    @Test(
        "a datagram reaches a socket named by a path and one named by an abstract @name, byte for byte",
        arguments: [false, true])
    func sends(abstract: Bool) throws {
        let receiver = try NotifyReceiver(abstract: abstract)
        let notifier = try ServiceNotifier(socketName: receiver.name, watchdogIntervalMs: nil)
        #expect(notifier.send("READY=1\nSTATUS=2 of 2 channels joined; 0 lines"))
        #expect(receiver.receive() == "READY=1\nSTATUS=2 of 2 channels joined; 0 lines")
        notifier.stopping(status: "stopping:\nclosing files")
        #expect(receiver.receive() == "STOPPING=1\nSTATUS=stopping: closing files", "a newline would end STATUS=")
        #expect(notifier.failedSends == 0)
    }

    @Test("tick: WATCHDOG=1 every half WATCHDOG_USEC, READY=1 once with a status, STATUS= at its interval")
    func schedule() throws {
        let receiver = try NotifyReceiver(abstract: true)
        let notifier = try ServiceNotifier(socketName: receiver.name, watchdogIntervalMs: 200, statusIntervalMs: 1_000)
        var statuses = 0
        let status = {
            statuses += 1
            return "status \(statuses)"
        }
        var readiness = 0
        let ready = { (answer: Bool) in
            readiness += 1
            return answer
        }
        notifier.tick(nowMs: 10_000, ready: ready(false), status: status)
        #expect(receiver.drain() == ["WATCHDOG=1", "STATUS=status 1"])
        notifier.tick(nowMs: 10_199, ready: ready(false), status: status)
        #expect(receiver.drain() == [], "nothing is due before 200 ms")
        notifier.tick(nowMs: 10_200, ready: ready(true), status: status)
        #expect(receiver.drain() == ["WATCHDOG=1", "READY=1\nSTATUS=status 2"])
        #expect(notifier.isReady)
        notifier.tick(nowMs: 10_450, ready: ready(true), status: status)
        #expect(receiver.drain() == ["WATCHDOG=1"])
        #expect(readiness == 3, "readiness is not asked once ready")
        notifier.tick(nowMs: 11_200, ready: ready(true), status: status)
        #expect(receiver.drain() == ["WATCHDOG=1", "STATUS=status 3"])
        #expect(statuses == 3, "a status is rendered only when it is due")
        // Without a watchdog, ticks send statuses only.
        let quiet = try ServiceNotifier(socketName: receiver.name, watchdogIntervalMs: nil, statusIntervalMs: 1_000)
        quiet.tick(nowMs: 0, ready: true, status: { "up" })
        quiet.tick(nowMs: 500, ready: true, status: { "up" })
        #expect(receiver.drain() == ["READY=1\nSTATUS=up"])
    }

    @Test("a socket nobody listens on: each failure counted, reported once, never thrown")
    func failuresCounted() throws {
        let notifier = try ServiceNotifier(
            socketName: NSTemporaryDirectory() + "chatcap-no-such-\(getpid()).sock", watchdogIntervalMs: 100)
        var reports: [String] = []
        notifier.onFirstFailure = { reports.append($0) }
        #expect(!notifier.send("WATCHDOG=1"))
        notifier.tick(nowMs: 0, ready: true, status: { "up" })
        #expect(notifier.failedSends == 3 && notifier.lastErrno == ENOENT)
        #expect(reports.count == 1 && reports[0].contains("No such file or directory"), "\(reports)")
        #expect(reports[0].contains("further failures are counted"))
    }

    @Test(
        "a manager that does not read: sends fail at once with EAGAIN (counted) instead of blocking",
        .timeLimit(.minutes(20)))
    func neverBlocks() throws {
        let receiver = try NotifyReceiver(abstract: true, receiveBuffer: 4096)
        let notifier = try ServiceNotifier(socketName: receiver.name, watchdogIntervalMs: 1)
        let start = ContinuousClock.now
        for _ in 0..<2_000 { notifier.send("WATCHDOG=1") }
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(notifier.failedSends > 0 && notifier.lastErrno == EAGAIN, "\(notifier.failedSends)")
        #expect(receiver.drain().count == 2_000 - notifier.failedSends, "every datagram not counted as failed arrived")
    }
}
